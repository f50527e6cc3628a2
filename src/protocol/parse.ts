import type { ParseErrorEvent, ParserEvent, ParseWarningCode, ToolCall } from './events.js';
import { createParser } from './parser.js';
import type { ParserOptions } from './parser-options.js';

export interface ParseWarning {
  code: ParseWarningCode;
  message: string;
  offset: number;
  callId?: string;
}

export type ParseError = Omit<ParseErrorEvent, 'type'>;

/** One of the family's answer markers, as written at `offset` (docs/parser.md, `marker`). */
export interface ParseMarker {
  text: string;
  offset: number;
}

export interface ParseResult {
  /** Everything that is neither thinking, a call nor an answer marker, as written. */
  text: string;
  /** One entry per thinking block, in order. */
  thinking: string[];
  calls: ToolCall[];
  warnings: ParseWarning[];
  errors: ParseError[];
  /**
   * The family's answer markers left out of `text`, in order: present only when the reply had
   * one (most dialects have none, and a result without them reads as it always did).
   */
  markers?: ParseMarker[];
}

export type ParseOptions = Omit<ParserOptions, 'onEvent'>;

/** Folds parser events into a result. The same fold serves `parse` and any stream of events. */
export function createFold() {
  const textPieces: string[] = [];
  const thinking: string[] = [];
  let thinkingPieces: string[] | null = null;
  const result: ParseResult = {
    text: '',
    thinking,
    calls: [],
    warnings: [],
    errors: [],
  };
  return {
    add(event: ParserEvent): void {
      switch (event.type) {
        case 'text':
          textPieces.push(event.text);
          break;
        case 'thinking-start':
          thinkingPieces = [];
          break;
        case 'thinking-delta':
          thinkingPieces?.push(event.text);
          break;
        case 'thinking-end':
          thinking.push((thinkingPieces ?? []).join(''));
          thinkingPieces = null;
          break;
        case 'marker':
          result.markers ??= [];
          result.markers.push({ text: event.text, offset: event.offset });
          break;
        case 'tool-end':
          result.calls.push(event.call);
          break;
        case 'warning': {
          const { type: _, ...warning } = event;
          result.warnings.push(warning);
          break;
        }
        case 'error': {
          const { type: _, ...error } = event;
          result.errors.push(error);
          break;
        }
      }
    },
    result(): ParseResult {
      result.text = textPieces.join('');
      return result;
    },
  };
}

// With default options one parser serves every `parse` call (`end` leaves it as new):
// building a parser per call cost about a fifth of the time on the bench's 8 KB messages.
// `parse` is synchronous and the fold never calls back into it, so sharing is safe.
let currentFold: ReturnType<typeof createFold> | null = null;
let sharedParser: ReturnType<typeof createParser> | null = null;

/** Parses a whole reply: exactly the events of one `feed` and `end`, folded. */
export function parse(text: string, options?: ParseOptions): ParseResult {
  const fold = createFold();
  let parser: ReturnType<typeof createParser>;
  if (options === undefined || Object.keys(options).length === 0) {
    sharedParser ??= createParser({ onEvent: (event) => currentFold?.add(event) });
    parser = sharedParser;
    currentFold = fold;
  } else {
    parser = createParser({ ...options, onEvent: fold.add });
  }
  try {
    parser.feed(text);
    parser.end();
  } catch (error) {
    // Never expected (the parser does not throw on text); if it happens, do not reuse its state.
    if (parser === sharedParser) sharedParser = null;
    throw error;
  } finally {
    if (parser === sharedParser) currentFold = null;
  }
  return fold.result();
}
