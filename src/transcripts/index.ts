export { findingRecord } from './finding-record.js';
export { recordMessages, TRANSCRIPT_FORMATS, type TranscriptFormat } from './formats.js';
export {
  type Finding,
  type Location,
  layoutOf,
  type ScanOptions,
  type ScanSink,
  scanTranscript,
} from './scan.js';
export {
  ALONG_LOG_BLOCKS,
  type AlongLog,
  addAssistant,
  addFailed,
  addFinding,
  addMessage,
  compareBytes,
  createStats,
  type LogBlock,
  mergeStats,
  type RankedCall,
  summarizeStats,
  type TranscriptStats,
} from './stats.js';
