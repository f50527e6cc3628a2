import type { CallFormat, ParseErrorCode, ParseWarningCode, ToolArguments } from '../events.js';

/** One call read from a dialect's block; `end` is where its text ends in the block. */
export interface BlockCall {
  serverName: string;
  toolName: string;
  arguments: ToolArguments;
  end: number;
}

/** A model's mistake a reader recovered from: said as a warning of call number `call`. */
export interface BlockWarning {
  code: ParseWarningCode;
  message: string;
  /** Where in the block. */
  position: number;
  /** The index of the call it belongs to, in `calls`. */
  call: number;
}

export type BlockResult =
  | { ok: true; format: CallFormat; calls: BlockCall[]; warnings?: BlockWarning[] }
  | { ok: false; code: ParseErrorCode; message: string; position: number };

/** What bounds a reader: the parser's own limits. */
export interface BlockLimits {
  /** How deep arguments may nest (a JSON body's arrays and objects too). */
  maxDepth: number;
}

/**
 * A dialect's block: it opens with `open` at a line start (or anywhere, for a special token)
 * and ends at the first `close`; `read` turns the whole block (both tags included) into calls,
 * or says why it cannot.
 */

export interface BlockReader {
  open: string;
  close: string;
  /**
   * The opening is a special token of its model family (`<tool_call>`, `<function_calls>`):
   * prose does not write it by accident, so it opens a block anywhere in a line (outside
   * fences), not only at a line start.
   */
  anywhere?: boolean;
  /**
   * Whether the body is JSON, told from its first character that is not blank: then a
   * closing tag inside a JSON string does not close the block.
   */
  jsonBody?: (first: string) => boolean;
  read(block: string, limits: BlockLimits): BlockResult;
}

export const failure = (code: ParseErrorCode, message: string, position: number): BlockResult => ({
  ok: false,
  code,
  message,
  position,
});

/** Drops one newline right after the opening tag and one right before the closing one. */
export function stripOuterNewlines(value: string): string {
  let start = 0;
  let end = value.length;
  if (value.startsWith('\r\n')) start = 2;
  else if (value.startsWith('\n')) start = 1;
  if (value.endsWith('\r\n') && end - 2 >= start) end -= 2;
  else if (value.endsWith('\n') && end - 1 >= start) end -= 1;
  return value.slice(start, end);
}
