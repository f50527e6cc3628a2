import type { BlockFailure, BlockLimits, BlockReader } from './dialects/block.js';
import { type BlockSink, BlockStatus, type BlockStream } from './dialects/index.js';
import type { ArgumentPath, ParserEvent } from './events.js';
import { createPieces, joinPieces, pushPiece } from './pieces.js';

export interface BlockRunnerOptions {
  limits: BlockLimits;
  maxCallBytes: number;
  /** The id of the next call of the stream (ids count `<tool>` calls and dialect calls alike). */
  nextId: () => string;
  emit: (event: ParserEvent) => void;
}

/**
 * Runs one dialect block at a time over the parser's buffer, as the call parser runs a
 * `<tool>` block: the dialect's stream reads it and says what it read, and the runner turns
 * that into events, giving each call its id, its offsets and its raw text, and the block's
 * text back as text when it is no call. A block is at most `maxCallBytes` long, measured
 * from its start, so the cap bites at the same place however the input was chunked.
 */
export function createBlockRunner(options: BlockRunnerOptions) {
  const { emit, maxCallBytes } = options;
  let stream: BlockStream | null = null;
  let blockStart = 0;
  /** Where the current call's text starts (absolute): the block's start, then each call's end. */
  let callStart = 0;
  let rawPieces = createPieces();
  /** During a run: the buffer, its offset, and where in it text not yet in rawPieces starts. */
  let buf = '';
  let offset = 0;
  let rawFrom = 0;
  let deltaPath: ArgumentPath = { names: [], indices: [] };
  /** Calls of the open block told to start and not yet ended. */
  const open = new Set<string>();

  const sink: BlockSink = {
    start() {
      const id = options.nextId();
      open.add(id);
      emit({ type: 'tool-start', id, offset: callStart });
      return id;
    },
    name(id, toolName) {
      emit({ type: 'tool-name', id, serverName: 'local', toolName });
    },
    delta(id, key, index, text) {
      // One path object per value, not per delta: a file body comes in thousands of deltas.
      if (deltaPath.names[0] !== key || deltaPath.indices[0] !== index)
        deltaPath = { names: [key], indices: [index] };
      emit({ type: 'argument-delta', id, path: deltaPath, text });
    },
    warn(code, message, at, id) {
      emit({ type: 'warning', code, message, offset: at, ...(id !== undefined && { callId: id }) });
    },
    end(id, toolName, args, format, end) {
      open.delete(id);
      emit({
        type: 'tool-end',
        call: {
          id,
          serverName: 'local',
          toolName,
          arguments: args,
          format,
          raw: takeRaw(end),
          start: callStart,
          end,
        },
      });
      callStart = end;
    },
    text(end) {
      const text = takeRaw(end);
      if (text !== '') emit({ type: 'text', text });
      callStart = end;
    },
    thinkingStart() {
      emit({ type: 'thinking-start', offset: callStart, format: 'tag' });
    },
    thinking(text) {
      if (text !== '') emit({ type: 'thinking-delta', text });
    },
    thinkingEnd(end) {
      takeRaw(end);
      emit({ type: 'thinking-end', offset: end });
      callStart = end;
    },
    drop(id, code, message, at) {
      open.delete(id);
      emit({ type: 'error', code, message, offset: at, callId: id });
    },
  };

  /**
   * The block's text from the last boundary up to absolute `end`, taken out of what is held:
   * in rawPieces up to `offset + rawFrom`, then in `buf`.
   */
  function takeRaw(end: number): string {
    let raw: string;
    let rest = '';
    if (end >= offset + rawFrom) {
      pushPiece(rawPieces, buf.slice(rawFrom, end - offset));
      rawFrom = end - offset;
      raw = joinPieces(rawPieces);
    } else {
      const joined = joinPieces(rawPieces);
      raw = joined.slice(0, end - callStart);
      rest = joined.slice(end - callStart);
    }
    rawPieces = createPieces();
    if (rest !== '') pushPiece(rawPieces, rest);
    return raw;
  }

  /** What is left of the block is no call: the error, then its text back into the output. */
  function fail(failure: BlockFailure): void {
    const raw = joinPieces(rawPieces);
    open.delete(failure.callId ?? '');
    emit({
      type: 'error',
      code: failure.code,
      message: failure.message,
      offset: failure.offset,
      ...(failure.callId !== undefined && { callId: failure.callId }),
      ...(failure.partial !== undefined && { partial: { ...failure.partial, raw } }),
    });
    // A call told to start that the block never ended is no call either.
    for (const id of open)
      emit({
        type: 'error',
        code: failure.code,
        message: failure.message,
        offset: failure.offset,
        callId: id,
      });
    if (raw !== '') emit({ type: 'text', text: raw });
    clear();
  }

  function clear(): void {
    stream = null;
    open.clear();
    rawPieces = createPieces();
    buf = '';
  }

  return {
    /** A block of `reader`'s dialect opens at absolute `at`. */
    begin(reader: BlockReader, at: number): void {
      blockStart = at;
      callStart = at;
      rawPieces = createPieces();
      stream = reader.stream(sink, options.limits);
    },

    /**
     * Reads `s` from `from` (`at` is the absolute offset of `s[0]`); returns where it stopped.
     * Then `open` says whether the block goes on (else it ended, or failed and was given back
     * as text).
     */
    run(s: string, from: number, at: number, final: boolean): number {
      const current = stream as BlockStream;
      buf = s;
      offset = at;
      rawFrom = from;
      const capEnd = blockStart + maxCallBytes - at;
      const capped = s.length >= capEnd;
      let pos = current.run(capped ? s.slice(0, capEnd) : s, from, at, final && !capped);
      if (pos > rawFrom) pushPiece(rawPieces, s.slice(rawFrom, pos));
      buf = '';
      switch (current.status) {
        case BlockStatus.Done:
          clear();
          return pos;
        case BlockStatus.Failed:
          if (at + pos === blockStart && pos < s.length) {
            // Nothing read: its first character is text, so the opening is not met again here.
            pushPiece(rawPieces, s.slice(pos, pos + 1));
            pos++;
          }
          fail(current.stop('incomplete-tool-call', '', blockStart));
          return pos;
        case BlockStatus.Open:
          if (!capped) return pos;
          pushPiece(rawPieces, s.slice(pos, capEnd));
          pos = capEnd;
          fail(
            current.stop(
              'max-call-bytes-exceeded',
              `the block is longer than ${maxCallBytes} characters; split the work into smaller calls`,
              blockStart + maxCallBytes,
            ),
          );
          return pos;
      }
    },

    get open(): boolean {
      return stream !== null;
    },

    /**
     * The streaming fast path: `chunk` (ending at absolute `end`) taken whole as value text,
     * when the block's stream can, within the cap.
     */
    streamValue(chunk: string, end: number): boolean {
      if (stream === null || end - blockStart >= maxCallBytes || !stream.streamValue(chunk))
        return false;
      pushPiece(rawPieces, chunk);
      return true;
    },

    reset: clear,
  };
}

export type BlockRunner = ReturnType<typeof createBlockRunner>;
