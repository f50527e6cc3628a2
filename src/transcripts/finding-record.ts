import type { Finding } from './scan.js';

/**
 * One NDJSON record of `tagcall parse`, snake_case as the protocol writes names. Built
 * property by property (no spreads: this runs once per finding of a gigabyte log).
 */
export function findingRecord(f: Finding): Record<string, unknown> {
  const record: Record<string, unknown> = { type: f.type };
  record.source = f.file === '-' ? '<stdin>' : f.file;
  if (f.line !== undefined) record.line = f.line;
  if (f.messageIndex !== undefined) record.message_index = f.messageIndex;
  record.offset = f.offset;
  switch (f.type) {
    case 'call':
      record.id = f.id;
      record.server_name = f.serverName;
      record.tool_name = f.toolName;
      record.arguments = f.arguments;
      record.format = f.format;
      record.chars = f.chars;
      if (f.durationMs !== undefined) record.duration_ms = f.durationMs;
      break;
    case 'quoted':
    case 'example':
      record.tool_name = f.toolName;
      record.format = f.format;
      break;
    default:
      record.code = f.code;
      record.message = f.message;
  }
  return record;
}
