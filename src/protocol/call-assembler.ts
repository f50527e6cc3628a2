import {
  type BlockFailure,
  type BlockLimits,
  type BlockSink,
  BlockStatus,
  type BlockStream,
  Streamed,
} from './block.js';
import type { BlockOpening } from './built-reader.js';
import { END_OF_INPUT } from './end-of-input.js';
import type { ArgumentPath, CallFormat, ParserEvent, ToolArguments } from './events.js';
import {
  clearPieces,
  createPieces,
  isEmptyPieces,
  joinPieces,
  type Pieces,
  pushPiece,
} from './pieces.js';

const BLOCK_OPEN = END_OF_INPUT['block-open'];

export interface CallAssemblerOptions {
  limits: BlockLimits;
  maxCallBytes: number;
  /** The id of the next call of the stream. */
  nextId: () => string;
  emit: (event: ParserEvent) => void;
}

/** How a block ended, for the scanner: it goes on, it ended, or its opening must be read again. */
export enum BlockEnd {
  Open = 0,
  Ended = 1,
  /** It failed on its own opening written again inside it: a new block opens where it stopped. */
  Reopen = 2,
}

/**
 * The one place where calls become events, for every dialect. A block's stream (a dialect's
 * engine over its data) reads the text and tells the assembler what it read, in order; the
 * assembler gives each call its id, its offsets and its raw text, caps a block at
 * `maxCallBytes` from its start (so the cap bites at the same place however the input was
 * chunked), and when a block is no call gives its text back as text after the error, so
 * nothing is lost. Streams that can be reset are kept, one per reader, for the whole parse.
 */
export class CallAssembler implements BlockSink {
  readonly #options: CallAssemblerOptions;
  readonly #emit: (event: ParserEvent) => void;
  #stream: BlockStream | null = null;
  #streams: Map<BlockOpening, BlockStream> | null = null;
  #blockStart = 0;
  /** Where the current call's text starts (absolute): the block's start, then each call's end. */
  #callStart = 0;
  #raw: Pieces = createPieces();
  /** During a run: the buffer, its offset, and where in it text not yet in `#raw` starts. */
  #buf = '';
  #offset = 0;
  #rawFrom = 0;
  /**
   * The chunks the stream took as `Streamed.Owed`, not yet in `#raw`: given back at once, the
   * same string goes to `#raw` and to the stream. (Taking them back out of `#raw` flattened
   * its tail of up to 1 KiB each time, which cost more than it saved when chunks alternate
   * between the fast path and the full one; an array of them joined cost more still.)
   */
  readonly #owed: Pieces = createPieces();
  /** Calls of the open block told to start and not yet ended. */
  readonly #open = new Set<string>();

  constructor(options: CallAssemblerOptions) {
    this.#options = options;
    this.#emit = options.emit;
  }

  // --- BlockSink: what a block's stream tells. ---

  start(): string {
    const id = this.#options.nextId();
    this.#open.add(id);
    this.#emit({ type: 'tool-start', id, offset: this.#callStart });
    return id;
  }

  name(id: string, toolName: string, serverName = 'local'): void {
    this.#emit({ type: 'tool-name', id, serverName, toolName });
  }

  delta(id: string, path: ArgumentPath, text: string): void {
    this.#emit({ type: 'argument-delta', id, path, text });
  }

  warn(code: Parameters<BlockSink['warn']>[0], message: string, offset: number, id?: string): void {
    if (id === undefined) this.#emit({ type: 'warning', code, message, offset });
    else this.#emit({ type: 'warning', code, message, offset, callId: id });
  }

  end(
    id: string,
    toolName: string,
    args: ToolArguments,
    format: CallFormat,
    end: number,
    serverName = 'local',
  ): void {
    this.#open.delete(id);
    // Field by field: a spread in the literal took ~90 ns a call, this ~13.
    this.#emit({
      type: 'tool-end',
      call: {
        id,
        serverName,
        toolName,
        arguments: args,
        format,
        raw: this.#takeRaw(end),
        start: this.#callStart,
        end,
      },
    });
    this.#callStart = end;
  }

  text(end: number): void {
    const text = this.#takeRaw(end);
    if (text !== '') this.#emit({ type: 'text', text });
    this.#callStart = end;
  }

  marker(end: number): void {
    const offset = this.#callStart;
    const text = this.#takeRaw(end);
    if (text !== '') this.#emit({ type: 'marker', text, offset });
    this.#callStart = end;
  }

  thinkingStart(): void {
    this.#emit({ type: 'thinking-start', offset: this.#callStart, format: 'tag' });
  }

  thinking(text: string): void {
    if (text !== '') this.#emit({ type: 'thinking-delta', text });
  }

  thinkingEnd(end: number): void {
    this.#takeRaw(end);
    this.#emit({ type: 'thinking-end', offset: end });
    this.#callStart = end;
  }

  // --- The scanner's side. ---

  /** A block of `reader`'s dialect opens at absolute `at`. */
  begin(reader: BlockOpening, at: number): void {
    this.#blockStart = at;
    this.#callStart = at;
    this.#raw = createPieces();
    let stream = this.#streams?.get(reader);
    if (stream === undefined) {
      stream = reader.stream(this, this.#options.limits);
      if (stream.reset !== undefined) {
        this.#streams ??= new Map();
        this.#streams.set(reader, stream);
      }
    } else stream.reset?.();
    this.#stream = stream;
  }

  get open(): boolean {
    return this.#stream !== null;
  }

  /**
   * Reads `s` from `from` (`at` is the absolute offset of `s[0]`); returns where it stopped.
   * `ended` then says whether the block goes on, ended (or failed and was given back as text),
   * or must be opened again where it stopped.
   */
  run(s: string, from: number, at: number, final: boolean): number {
    const stream = this.#stream as BlockStream;
    if (!isEmptyPieces(this.#owed)) this.#giveOwed(stream);
    const maxCallBytes = this.#options.maxCallBytes;
    this.#buf = s;
    this.#offset = at;
    this.#rawFrom = from;
    const capEnd = this.#blockStart + maxCallBytes - at;
    const capped = s.length >= capEnd;
    let pos = stream.run(capped ? s.slice(0, capEnd) : s, from, at, final && !capped);
    if (pos > this.#rawFrom) pushPiece(this.#raw, s.slice(this.#rawFrom, pos));
    this.#buf = '';
    this.ended = BlockEnd.Ended;
    switch (stream.status) {
      case BlockStatus.Done:
        this.#clear();
        return pos;
      case BlockStatus.Failed: {
        if (at + pos === this.#blockStart && pos < s.length) {
          // Nothing read: its first character is text, so the opening is not met again here.
          pushPiece(this.#raw, s.slice(pos, pos + 1));
          pos++;
        }
        const failure = stream.stop('incomplete-tool-call', '', this.#blockStart);
        this.#fail(failure);
        if (failure.reopen === true) this.ended = BlockEnd.Reopen;
        return pos;
      }
      case BlockStatus.Open:
        if (final && !capped) {
          // Every block is decided at the end of the input: one left open is no call (row
          // 'block-open'; the engines decide their own ends by their rows first).
          pushPiece(this.#raw, s.slice(pos));
          this.#fail(stream.stop(BLOCK_OPEN.code, BLOCK_OPEN.message(), this.#blockStart));
          return s.length;
        }
        if (!capped) {
          this.ended = BlockEnd.Open;
          return pos;
        }
        pushPiece(this.#raw, s.slice(pos, capEnd));
        this.#fail(
          stream.stop(
            'max-call-bytes-exceeded',
            `the block is longer than ${maxCallBytes} characters; split the work into smaller calls`,
            this.#blockStart + maxCallBytes,
          ),
        );
        return capEnd;
    }
  }

  /** How the last `run` left the block. */
  ended = BlockEnd.Ended;

  /**
   * The streaming fast path: `chunk` (ending at absolute `end`) taken whole as value text,
   * when the block's stream can, within the cap.
   */
  streamValue(chunk: string, end: number): boolean {
    const stream = this.#stream;
    if (stream === null || end - this.#blockStart >= this.#options.maxCallBytes) return false;
    const taken = stream.streamValue(chunk);
    if (taken === Streamed.No) return false;
    if (taken === Streamed.Owed) pushPiece(this.#owed, chunk);
    else pushPiece(this.#raw, chunk);
    return true;
  }

  /**
   * Whether `chunk` (ending at absolute `end`) only continues the partial token the open
   * block's stream waits on, within the cap: then it is held with the rest, without a run.
   */
  continues(chunk: string, end: number): boolean {
    const stream = this.#stream;
    return (
      stream !== null &&
      end - this.#blockStart < this.#options.maxCallBytes &&
      stream.continues?.(chunk) === true
    );
  }

  reset(): void {
    this.#clear();
  }

  /**
   * The block's text from the last boundary up to absolute `end`, taken out of what is held:
   * in `#raw` up to `#offset + #rawFrom`, then in the buffer.
   */
  #takeRaw(end: number): string {
    let raw: string;
    let rest = '';
    if (end >= this.#offset + this.#rawFrom) {
      pushPiece(this.#raw, this.#buf.slice(this.#rawFrom, end - this.#offset));
      this.#rawFrom = end - this.#offset;
      raw = joinPieces(this.#raw);
    } else {
      const joined = joinPieces(this.#raw);
      raw = joined.slice(0, end - this.#callStart);
      rest = joined.slice(end - this.#callStart);
    }
    this.#raw = createPieces();
    if (rest !== '') pushPiece(this.#raw, rest);
    return raw;
  }

  /** What is left of the block is no call: the error, then its text back into the output. */
  #fail(failure: BlockFailure): void {
    const raw = joinPieces(this.#raw);
    if (failure.callId !== undefined) this.#open.delete(failure.callId);
    const error: ParserEvent = {
      type: 'error',
      code: failure.code,
      message: failure.message,
      offset: failure.offset,
      format: failure.format,
    };
    if (failure.callId !== undefined) error.callId = failure.callId;
    if (failure.partial !== undefined) error.partial = { ...failure.partial, raw };
    this.#emit(error);
    // A call told to start that the block never ended is no call either.
    for (const id of this.#open)
      this.#emit({
        type: 'error',
        code: failure.code,
        message: failure.message,
        offset: failure.offset,
        format: failure.format,
        callId: id,
      });
    if (raw !== '') this.#emit({ type: 'text', text: raw });
    this.#clear();
  }

  #giveOwed(stream: BlockStream): void {
    const text = joinPieces(this.#owed);
    clearPieces(this.#owed);
    pushPiece(this.#raw, text);
    (stream.takeOwed as (text: string) => void)(text);
  }

  #clear(): void {
    this.#stream = null;
    clearPieces(this.#owed);
    // Not when empty: clearing makes a new table even then (see bracket-matcher.ts).
    if (this.#open.size > 0) this.#open.clear();
    this.#raw = createPieces();
    this.#buf = '';
  }
}
