import type { Dialect } from './dialect-names.js';

/** A JSON value, as tool arguments hold them (the JSON form can carry numbers and booleans). */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

/** Arguments of a call: a null-prototype object, so `__proto__` is an argument name like any other. */
export type ToolArguments = { [key: string]: JsonValue };

/**
 * Which written form a call came in: the tagcall protocol's `<tool>` block (`xml`) or its
 * deprecated JSON form (`json`), or another model family's dialect.
 */
export type CallFormat = 'xml' | 'json' | Exclude<Dialect, 'tagcall'>;

export interface ToolCall {
  id: string;
  serverName: string;
  toolName: string;
  arguments: ToolArguments;
  format: CallFormat;
  /** The block exactly as written, from `<tool>` to `</tool>`. */
  raw: string;
  /** Offsets in UTF-16 code units of the whole input: `raw === input.slice(start, end)`. */
  start: number;
  end: number;
}

/** Machine-readable codes of `error` events. */
export type ParseErrorCode =
  | 'incomplete-tool-call'
  | 'missing-tool-name'
  | 'invalid-json'
  | 'max-call-bytes-exceeded'
  | 'max-depth-exceeded'
  | 'unreadable-arguments';

/** Machine-readable codes of `warning` events: the input was read, but not as written. */
export type ParseWarningCode =
  | 'deprecated-json-format'
  | 'mismatched-close-tag'
  | 'unclosed-element'
  | 'argument-outside-arguments'
  | 'stray-text'
  | 'duplicate-field'
  | 'unclosed-thinking'
  | 'missing-wrapper'
  | 'repaired-json'
  | 'inexact-number'
  | 'unclosed-call-at-end'
  | 'string-encoded-arguments';

export type ThinkingFormat = 'bracket' | 'tag' | 'prefilled';

/** Where an argument-delta belongs: element names from below `<arguments>` down, and for each the
 * number of same-name siblings before it (0 for the first), so repeated elements stay apart. */
export interface ArgumentPath {
  names: readonly string[];
  indices: readonly number[];
}

export type ParserEvent =
  | { type: 'text'; text: string }
  /**
   * One of the family's answer markers (Command R7B's `<|START_RESPONSE|>`), as written at
   * absolute `offset`: structure around the answer, as thinking tags are, so not its text.
   * Consumers of the answer skip it; it is here so that nothing of the input is lost.
   */
  | { type: 'marker'; text: string; offset: number }
  | { type: 'thinking-start'; offset: number; format: ThinkingFormat }
  | { type: 'thinking-delta'; text: string }
  | { type: 'thinking-end'; offset: number }
  | { type: 'tool-start'; id: string; offset: number }
  | { type: 'tool-name'; id: string; serverName: string; toolName: string }
  | { type: 'argument-delta'; id: string; path: ArgumentPath; text: string }
  | { type: 'tool-end'; call: ToolCall }
  | { type: 'warning'; code: ParseWarningCode; message: string; offset: number; callId?: string }
  | ParseErrorEvent;

export interface ParseErrorEvent {
  type: 'error';
  code: ParseErrorCode;
  /** Phrased so that a model reading it can correct its next reply. */
  message: string;
  offset: number;
  /** Set when the error ends a call that had started: its `tool-start` had this id. */
  callId?: string;
  /**
   * The form the failed block was written in: its dialect, or `xml`/`json` for `<tool>`. Under
   * `dialect: 'auto'` this says which family a malformed call came from.
   */
  format: CallFormat;
  /** What was parsed of the failed call before it failed. */
  partial?: PartialCall;
}

export interface PartialCall {
  serverName?: string;
  toolName?: string;
  arguments: ToolArguments;
  raw: string;
}

export type ParserEventType = ParserEvent['type'];
