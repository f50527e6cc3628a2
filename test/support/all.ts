// Every layer's public API and the internals the tests reach into, for test files: the
// package's own entry points (src/index.ts and each folder's index) are narrower on purpose.
export * from '../../src/adapters/arguments-json.js';
export * from '../../src/adapters/native-calls.js';
export * from '../../src/agent/index.js';
export * from '../../src/grammar/index.js';
export * from '../../src/grammar/model.js';
export { type MarkedSpan, readMarks, recognize } from '../../src/grammar/recognize.js';
export * from '../../src/memory/index.js';
export * from '../../src/messages/index.js';
export {
  admitsName,
  blockReaders,
  THINK_TAGS,
  triggerOf,
  WRITTEN_FORMS,
} from '../../src/protocol/dialects/index.js';
export * from '../../src/protocol/index.js';
export * from '../../src/server/chat-request.js';
export * from '../../src/server/chat-response.js';
export * from '../../src/server/index.js';
export { coerceValue, writtenAs } from '../../src/tools/coerce.js';
export * from '../../src/tools/index.js';
export { contentToText } from '../../src/tools/mcp-client.js';
export * from '../../src/transcripts/index.js';
