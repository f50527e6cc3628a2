import type { ArgumentSchema } from './arguments-tree.js';
import { createBracketMatcher, UNDECIDED, UNMATCHED } from './bracket-matcher.js';
import { CallStatus, createCallParser } from './call-parser.js';
import { Char, isHighSurrogate, isLineEnd, isSpaceOrTab } from './chars.js';
import type { BlockFailure } from './dialects/block.js';
import {
  type BlockReader,
  type BlockSink,
  BlockStatus,
  type BlockStream,
  blockReaders,
  type Dialect,
} from './dialects/index.js';
import type { ArgumentPath, ParseErrorCode, ParserEvent, ThinkingFormat } from './events.js';
import { createPieces, joinPieces, pushPiece } from './pieces.js';
import { partialSuffixStart, startsWithAt } from './tag.js';

/**
 * Whether the output begins inside thinking because the chat template already wrote `<think>`:
 * `'auto'` decides from the text (a `</think>` before any call or thinking block), `'always'`
 * starts in thinking, `'never'` reads a leading `</think>` as text.
 */
export type PrefilledThinking = 'auto' | 'always' | 'never';

export interface ParserOptions {
  onEvent: (event: ParserEvent) => void;
  /** Default `'auto'`: text at the start is held until it is decided, at most `maxHold` characters. */
  prefilledThinking?: PrefilledThinking;
  /** Largest tool block, in UTF-16 code units (bytes for ASCII). Default 8 MiB. */
  maxCallBytes?: number;
  /** Deepest nesting of argument elements. Default 32. */
  maxDepth?: number;
  /**
   * The most characters the parser holds undecided: a `[` bracket waiting for its `]`, or the
   * start of a reply that may be pre-filled thinking. Past it the text is released as text.
   * Default 16384.
   */
  maxHold?: number;
  /** Argument schemas by tool name: they decide strings and lists while arguments stream. */
  schemas?: Readonly<Record<string, ArgumentSchema>>;
  /** Ids of calls, from their index in the stream. Default `call_0`, `call_1`, … */
  generateId?: (index: number) => string;
  /**
   * Which written form of calls to read. Default `tagcall` (the `<tool>` protocol); `auto`
   * reads every dialect, each block by its opening tag. Every dialect streams: `tool-name`
   * when its name is read, `argument-delta` while a string value is written (for JSON bodies,
   * a preview of their string arguments: the parse at the block's end decides).
   */
  dialect?: Dialect | 'auto';
  /** Tool names, for the `cline` dialect (and `auto`): `<name>` at a line start opens a call. */
  toolNames?: readonly string[];
}

export const PARSER_DEFAULTS = {
  prefilledThinking: 'auto' as PrefilledThinking,
  maxCallBytes: 8 * 1024 * 1024,
  maxDepth: 32,
  maxHold: 16 * 1024,
  generateId: (index: number): string => `call_${index}`,
};

export interface Parser {
  /** Reads the next chunk of the stream. Never throws on any text. */
  feed(chunk: string): void;
  /** Ends the stream: whatever is held is decided, unclosed blocks are reported. */
  end(): void;
  /** Forgets everything, ready for a new stream. */
  reset(): void;
}

enum Top {
  LineStart = 0,
  MidLine = 1,
  Bracket = 2,
  ThinkTag = 3,
  Call = 4,
  /** Inside another dialect's block, read by that dialect's stream. */
  Block = 5,
}

const TOOL_OPEN = '<tool>';
const THINK_OPEN = '<think>';
const THINKING_OPEN = '<thinking>';
const THINK_CLOSE = '</think>';
/**
 * How far the parser looks along a line to decide it: a fence marker line (backticks or tildes,
 * then blanks), or the blanks after a thinking block's `]`. Longer is text.
 */
const MAX_LINE_LOOKAHEAD = 256;

/**
 * The streaming parser: text, thinking and tool calls out of a model's reply, chunk by chunk.
 *
 * Outside calls the state machine works line by line: constructs only begin at a line start,
 * so the rest of a line is skipped with one `indexOf('\n')`. Input not yet decided (a partial
 * tag, a bracket waiting for its `]`) stays in `buf`; everything before `pos` is done with.
 */
export function createParser(options: ParserOptions): Parser {
  const onEvent = options.onEvent;
  const maxCallBytes = options.maxCallBytes ?? PARSER_DEFAULTS.maxCallBytes;
  const maxHold = options.maxHold ?? PARSER_DEFAULTS.maxHold;
  const prefilled = options.prefilledThinking ?? PARSER_DEFAULTS.prefilledThinking;
  const generateId = options.generateId ?? PARSER_DEFAULTS.generateId;
  const matcher = createBracketMatcher(maxHold);
  const dialect = options.dialect ?? 'tagcall';
  const readsTool = dialect === 'tagcall' || dialect === 'auto';
  const readers = blockReaders(dialect, options.toolNames ?? []);
  const anywhere = readers.filter((r) => r.anywhere === true);
  const limits = {
    maxDepth: options.maxDepth ?? PARSER_DEFAULTS.maxDepth,
    schemas: options.schemas,
  };
  const callParser = createCallParser(limits, emit);

  let buf = '';
  let pos = 0;
  /** Absolute offset of `buf[0]` in the whole input. */
  let offset = 0;
  let state = Top.LineStart;
  /** Start (in `buf`) of text consumed but not yet emitted, or -1. */
  let textStart = -1;

  let inFence = false;
  let fenceChar = 0;
  let fenceLength = 0;
  /** The fence holds only calls and blank lines so far: a `<tool>` line in it is a call. */
  let fenceCallable = false;

  let thinkClose = THINK_CLOSE;
  let bracketAt = 0;
  /** While a bracket waits for its `]`, chunks gather here instead of being joined per feed. */
  let pending: string[] | null = null;
  let pendingLength = 0;

  let callId = '';
  let callStart = 0;
  let rawPieces = createPieces();
  let rawLength = 0;
  /** Where in `buf` raw text not yet in `rawPieces` starts, or -1 for `pos`. */
  let rawUnpushedFrom = -1;
  let callCount = 0;

  let blockStream: BlockStream | null = null;
  let blockStart = 0;
  /** Where in `buf` the block's raw text not yet in rawPieces starts, during a block's run. */
  let blockRawFrom = 0;
  let deltaPath: ArgumentPath = { names: [], indices: [] };
  /** Calls of the open block told to start and not yet ended. */
  const blockCallIds = new Set<string>();

  // Pre-filled thinking, 'auto': until decided, events queue up and the chunks are kept, so
  // the start can still turn into one thinking block.
  let undecided = false;
  let queue: ParserEvent[] = [];
  let startChunks: string[] = [];
  let started = false;

  /** Where the next `</think>` is in `buf`, found once per buffer: every line asks. */
  let bufVersion = 0;
  let closeSearchVersion = -1;
  let closeSearchAt = -1;
  /** Where each special-token opening next stands in `buf`, and for which buffer. */
  const anywhereAt = anywhere.map(() => ({ version: -1, at: -1 }));
  function findThinkClose(): number {
    if (closeSearchVersion !== bufVersion || (closeSearchAt !== -1 && closeSearchAt < pos)) {
      closeSearchVersion = bufVersion;
      // Only a `</think>` that starts within maxHold counts: search no further than that.
      const window = buf.slice(pos, Math.max(pos, maxHold - offset + THINK_CLOSE.length));
      const found = window.indexOf(THINK_CLOSE);
      closeSearchAt = found === -1 ? -1 : pos + found;
    }
    return closeSearchAt;
  }

  function emit(event: ParserEvent): void {
    if (undecided) queue.push(event);
    else onEvent(event);
  }

  function flushText(end: number): void {
    if (textStart !== -1 && end > textStart)
      emit({ type: 'text', text: buf.slice(textStart, end) });
    textStart = -1;
  }

  function markText(from: number): void {
    if (textStart === -1) textStart = from;
  }

  function decideNotPrefilled(): void {
    if (!undecided) return;
    undecided = false;
    startChunks = [];
    const events = queue;
    queue = [];
    for (const event of events) onEvent(event);
  }

  /** A `</think>` at absolute `at` ends a pre-filled thinking block that began the input. */
  function decidePrefilled(at: number): void {
    undecided = false;
    const thinking = startChunks.join('').slice(0, at);
    startChunks = [];
    queue = [];
    textStart = -1;
    inFence = false;
    onEvent({ type: 'thinking-start', offset: 0, format: 'prefilled' });
    if (thinking !== '') onEvent({ type: 'thinking-delta', text: thinking });
    onEvent({ type: 'thinking-end', offset: at + THINK_CLOSE.length });
  }

  function start(): void {
    started = true;
    if (prefilled === 'auto') undecided = true;
    else if (prefilled === 'always') {
      onEvent({ type: 'thinking-start', offset: 0, format: 'prefilled' });
      thinkClose = THINK_CLOSE;
      state = Top.ThinkTag;
    }
  }

  function beginThinking(at: number, format: ThinkingFormat): void {
    flushText(at);
    emit({ type: 'thinking-start', offset: offset + at, format });
  }

  function beginCall(at: number): void {
    flushText(at);
    decideNotPrefilled();
    callId = generateId(callCount++);
    callStart = offset + at;
    rawPieces = createPieces();
    // `<tool>` joins the raw text in one slice with what follows: a separate first piece would
    // make the parser copy every block when it joins them.
    rawUnpushedFrom = at;
    rawLength = TOOL_OPEN.length;
    callParser.begin(callId);
    emit({ type: 'tool-start', id: callId, offset: callStart });
    pos = at + TOOL_OPEN.length;
    state = Top.Call;
  }

  /** A block that is no call: the error, then its text back into the output, so nothing is lost. */
  function failCall(code: ParseErrorCode, message: string, at: number): void {
    const raw = joinPieces(rawPieces);
    emit({
      type: 'error',
      code,
      message,
      offset: at,
      callId,
      partial: { ...callParser.partial(), raw },
    });
    emit({ type: 'text', text: raw });
    endCall();
  }

  function endCall(): void {
    rawPieces = createPieces();
    rawLength = 0;
    state = Top.MidLine;
  }

  /** Where a dialect block's events go: the parser gives ids, offsets and raw text. */
  const blockSink: BlockSink = {
    start() {
      const id = generateId(callCount++);
      blockCallIds.add(id);
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
      blockCallIds.delete(id);
      // The raw text so far is in rawPieces up to `offset + blockRawFrom`, then in `buf`.
      let raw: string;
      let rest = '';
      if (end >= offset + blockRawFrom) {
        pushPiece(rawPieces, buf.slice(blockRawFrom, end - offset));
        blockRawFrom = end - offset;
        raw = joinPieces(rawPieces);
      } else {
        const joined = joinPieces(rawPieces);
        raw = joined.slice(0, end - callStart);
        rest = joined.slice(end - callStart);
      }
      emit({
        type: 'tool-end',
        call: {
          id,
          serverName: 'local',
          toolName,
          arguments: args,
          format,
          raw,
          start: callStart,
          end,
        },
      });
      callStart = end;
      rawPieces = createPieces();
      if (rest !== '') pushPiece(rawPieces, rest);
    },
    drop(id, code, message, at) {
      blockCallIds.delete(id);
      emit({ type: 'error', code, message, offset: at, callId: id });
    },
  };

  function beginBlock(at: number, reader: BlockReader): void {
    flushText(at);
    decideNotPrefilled();
    blockStart = offset + at;
    callStart = blockStart;
    // The block's text gathers in rawPieces, as a call's does (only one is open at a time).
    rawPieces = createPieces();
    blockStream = reader.stream(blockSink, limits);
    pos = at;
    state = Top.Block;
  }

  /** What is left of a dialect block is no call: the error, then its text back into the output. */
  function failBlock(failure: BlockFailure): void {
    const raw = joinPieces(rawPieces);
    blockCallIds.delete(failure.callId ?? '');
    emit({
      type: 'error',
      code: failure.code,
      message: failure.message,
      offset: failure.offset,
      ...(failure.callId !== undefined && { callId: failure.callId }),
      ...(failure.partial !== undefined && { partial: { ...failure.partial, raw } }),
    });
    // A call told to start that the block never ended is no call either.
    for (const id of blockCallIds)
      emit({
        type: 'error',
        code: failure.code,
        message: failure.message,
        offset: failure.offset,
        callId: id,
      });
    blockCallIds.clear();
    if (raw !== '') emit({ type: 'text', text: raw });
    endCall();
  }

  /** Runs a dialect block's stream over the buffer, within the block's length cap. */
  function stepBlock(final: boolean): boolean {
    const stream = blockStream as BlockStream;
    blockRawFrom = pos;
    // The block may be at most maxCallBytes long, measured from its start: chunk-independent.
    const capEnd = blockStart + maxCallBytes - offset;
    const capped = buf.length >= capEnd;
    pos = stream.run(capped ? buf.slice(0, capEnd) : buf, pos, offset, final && !capped);
    if (pos > blockRawFrom) pushPiece(rawPieces, buf.slice(blockRawFrom, pos));
    switch (stream.status) {
      case BlockStatus.Done:
        endCall();
        return true;
      case BlockStatus.Failed:
        failBlock(stream.stop('incomplete-tool-call', '', offset + pos));
        return true;
      case BlockStatus.Open:
        if (capped) {
          pushPiece(rawPieces, buf.slice(pos, capEnd));
          pos = capEnd;
          failBlock(
            stream.stop(
              'max-call-bytes-exceeded',
              `the block is longer than ${maxCallBytes} characters; split the work into smaller calls`,
              blockStart + maxCallBytes,
            ),
          );
          return true;
        }
        return false;
    }
  }

  /** Advances the call parser; returns false when it waits for input. */
  function stepCall(final: boolean): boolean {
    const parser = callParser;
    const from = pos;
    // The call parser never sees past the cap, so the cap bites at the same place however
    // the input was chunked: a block still open after `maxCallBytes` characters is too long.
    const limit = pos + maxCallBytes - rawLength;
    const capped = buf.length >= limit;
    pos = parser.run(buf.length > limit ? buf.slice(0, limit) : buf, pos, offset, final && !capped);
    const rawStart = rawUnpushedFrom === -1 ? from : rawUnpushedFrom;
    rawUnpushedFrom = -1;
    if (pos > rawStart) pushPiece(rawPieces, buf.slice(rawStart, pos));
    rawLength += pos - from;
    if (parser.status === CallStatus.Open && capped) {
      failCall(
        'max-call-bytes-exceeded',
        `the tool block is longer than ${maxCallBytes} characters; split the work into smaller calls`,
        callStart + maxCallBytes,
      );
      return true;
    }
    switch (parser.status) {
      case CallStatus.Open:
        if (!final) return false;
        {
          const failure = parser.incomplete(callStart);
          failCall(failure.code, failure.message, failure.offset);
        }
        return true;
      case CallStatus.Done: {
        const result = parser.complete(callStart);
        if ('code' in result) {
          failCall(result.code, result.message, result.offset);
          return true;
        }
        emit({
          type: 'tool-end',
          call: {
            id: callId,
            ...result,
            raw: joinPieces(rawPieces),
            start: callStart,
            end: offset + pos,
          },
        });
        endCall();
        return true;
      }
      case CallStatus.Failed: {
        const failure = parser.failure as { code: ParseErrorCode; message: string; offset: number };
        failCall(failure.code, failure.message, failure.offset);
        return true;
      }
      case CallStatus.Restart: {
        failCall(
          'incomplete-tool-call',
          'a new <tool> began before this one was closed with </tool>',
          callStart,
        );
        beginCall(pos);
        return true;
      }
    }
  }

  /** At a line start, after leading blanks: returns false when it waits for input. */
  function stepLineStart(final: boolean): boolean {
    const n = buf.length;
    let i = pos;
    while (i < n && isSpaceOrTab(buf.charCodeAt(i))) i++;
    if (i > pos) {
      markText(pos);
      pos = i;
    }
    if (i >= n) return false;
    const c = buf.charCodeAt(i);
    if (isLineEnd(c)) {
      markText(i);
      pos = i + 1;
      return true;
    }
    if (c === Char.Lt) {
      const tool = readsTool ? startsWithAt(buf, i, TOOL_OPEN) : false;
      if (tool === true && (!inFence || fenceCallable)) {
        beginCall(i);
        return true;
      }
      if (!inFence || fenceCallable) {
        let waiting = false;
        for (const reader of readers) {
          const opens = startsWithAt(buf, i, reader.open);
          if (opens === true) {
            beginBlock(i, reader);
            return true;
          }
          if (opens === null) waiting = true;
        }
        if (waiting && !final) return false;
      }
      if (!inFence) {
        const think = startsWithAt(buf, i, THINK_OPEN);
        const thinking = startsWithAt(buf, i, THINKING_OPEN);
        if (think === true || thinking === true) {
          flushText(i);
          decideNotPrefilled();
          beginThinking(i, 'tag');
          thinkClose = think === true ? THINK_CLOSE : '</thinking>';
          pos = i + (think === true ? THINK_OPEN.length : THINKING_OPEN.length);
          state = Top.ThinkTag;
          return true;
        }
        if (!final && (think === null || thinking === null || tool === null)) return false;
      } else if (!final && tool === null && fenceCallable) return false;
    } else if (c === Char.OpenBracket && !inFence) {
      flushText(i);
      bracketAt = offset + i;
      pos = i;
      state = Top.Bracket;
      return true;
    } else if (c === Char.Backtick || c === Char.Tilde) {
      const marker = stepFenceLine(i, c, final);
      if (marker === null) return false;
      if (marker) {
        state = Top.MidLine;
        return true;
      }
    }
    if (inFence) fenceCallable = false;
    state = Top.MidLine;
    return true;
  }

  /**
   * A line that starts with backticks or tildes: true when it opens or closes a fence, false
   * when it is content, null when the input ends before that is decided.
   */
  function stepFenceLine(i: number, c: number, final: boolean): boolean | null {
    const n = buf.length;
    let k = i;
    // The marker line is held only while it could still be a fence: a bounded look.
    const limit = i + MAX_LINE_LOOKAHEAD;
    while (k < n && k < limit && buf.charCodeAt(k) === c) k++;
    if (k >= limit) return false;
    if (k >= n && !final) return null;
    const run = k - i;
    if (run < 3) return false;
    if (!inFence) {
      inFence = true;
      fenceChar = c;
      fenceLength = run;
      fenceCallable = true;
      return true;
    }
    if (c !== fenceChar || run < fenceLength) return false;
    while (k < n && k < limit && isSpaceOrTab(buf.charCodeAt(k))) k++;
    if (k >= limit) return false;
    if (k >= n && !final) return null;
    if (k < n && !isLineEnd(buf.charCodeAt(k))) return false;
    inFence = false;
    return true;
  }

  /**
   * The earliest opening of a special-token block (`anywhere`) in `buf[pos, end)`, outside
   * fences, or null.
   */
  function findAnywhere(end: number): { at: number; reader: BlockReader } | null {
    if (anywhere.length === 0 || inFence) return null;
    let found: { at: number; reader: BlockReader } | null = null;
    for (const [k, reader] of anywhere.entries()) {
      // Searched once per buffer, as `</think>` is: every line asks, and a search to the end
      // of the buffer per line is quadratic on a long reply.
      const memo = anywhereAt[k];
      if (memo.version !== bufVersion || (memo.at !== -1 && memo.at < pos)) {
        memo.version = bufVersion;
        memo.at = buf.indexOf(reader.open, pos);
      }
      if (memo.at !== -1 && memo.at < end && (found === null || memo.at < found.at))
        found = { at: memo.at, reader };
    }
    return found;
  }

  /**
   * The rest of a line is text, unless a special-token block opens in it; in 'auto' mode a
   * `</think>` in it may end pre-filled thinking.
   */
  function stepMidLine(final: boolean): boolean {
    const n = buf.length;
    const newline = buf.indexOf('\n', pos);
    let end = newline === -1 ? n : newline + 1;
    const opening = findAnywhere(end);
    if (opening !== null) {
      const close = undecided ? findThinkClose() : -1;
      if (close === -1 || close > opening.at || offset + close > maxHold) {
        markText(pos);
        beginBlock(opening.at, opening.reader);
        return true;
      }
    } else if (newline === -1 && !final && anywhere.length > 0 && !inFence) {
      // Keep a partial opening at the end for the next chunk.
      for (const reader of anywhere) end = Math.min(end, partialSuffixStart(buf, pos, reader.open));
    }
    if (undecided) {
      const close = findThinkClose();
      if (close !== -1 && close < end && offset + close <= maxHold) {
        markText(pos);
        decidePrefilled(offset + close);
        pos = close + THINK_CLOSE.length;
        return true;
      }
      if (newline === -1 && !final) {
        // Keep a partial `</think>` at the end for the next chunk.
        end = Math.min(end, partialSuffixStart(buf, pos, THINK_CLOSE));
      }
    }
    if (newline === -1 && !final && end > pos && isHighSurrogate(buf.charCodeAt(end - 1))) end--;
    if (end > pos) {
      markText(pos);
      pos = end;
    }
    if (undecided && offset + pos > maxHold) decideNotPrefilled();
    if (newline === -1 || end <= newline) return false;
    state = Top.LineStart;
    return true;
  }

  /** Inside `<think>`: thinking streams out until the closing tag. */
  function stepThinkTag(final: boolean): boolean {
    const n = buf.length;
    const close = buf.indexOf(thinkClose, pos);
    let end = close === -1 ? n : close;
    if (close === -1 && !final) {
      end = partialSuffixStart(buf, pos, thinkClose);
      if (end > pos && isHighSurrogate(buf.charCodeAt(end - 1))) end--;
    }
    if (end > pos) emit({ type: 'thinking-delta', text: buf.slice(pos, end) });
    pos = end;
    if (close === -1) return false;
    pos = close + thinkClose.length;
    emit({ type: 'thinking-end', offset: offset + pos });
    state = Top.MidLine;
    return true;
  }

  /** At a line-start `[`: thinking when its `]` ends a line and it is no markdown. */
  function stepBracket(final: boolean): boolean {
    const n = buf.length;
    let close = matcher.match(bracketAt, buf, offset);
    if (close === UNDECIDED) {
      if (!final) {
        pending = [];
        return false;
      }
      close = UNMATCHED;
    }
    const at = bracketAt - offset;
    if (close !== UNMATCHED) {
      const rel = close - offset;
      let k = rel + 1;
      // Blanks after the `]` are looked at only so far: past that the line does not end there.
      const limit = k + MAX_LINE_LOOKAHEAD;
      while (k < n && k < limit && isSpaceOrTab(buf.charCodeAt(k))) k++;
      if (k >= n && k < limit && !final) return false;
      const endsLine = k < limit && (k >= n || isLineEnd(buf.charCodeAt(k)));
      const content = buf.slice(at + 1, rel);
      if (endsLine && !isMarkdownBracket(content)) {
        beginThinking(at, 'bracket');
        emit({ type: 'thinking-delta', text: content });
        emit({ type: 'thinking-end', offset: close + 1 });
        pos = rel + 1;
        state = Top.MidLine;
        return true;
      }
    }
    markText(at);
    pos = at + 1;
    state = Top.MidLine;
    return true;
  }

  function run(final: boolean): void {
    let going = true;
    while (going) {
      switch (state) {
        case Top.LineStart:
          going = stepLineStart(final);
          break;
        case Top.MidLine:
          going = stepMidLine(final);
          break;
        case Top.Bracket:
          going = stepBracket(final);
          break;
        case Top.ThinkTag:
          going = stepThinkTag(final);
          break;
        case Top.Call:
          going = stepCall(final);
          break;
        case Top.Block:
          going = stepBlock(final);
          break;
      }
    }
    flushText(pos);
  }

  function finish(): void {
    if (state === Top.ThinkTag) {
      emit({
        type: 'warning',
        code: 'unclosed-thinking',
        message: `thinking was not closed with ${thinkClose} before the input ended`,
        offset: offset + pos,
      });
      emit({ type: 'thinking-end', offset: offset + pos });
    }
    decideNotPrefilled();
  }

  function clear(): void {
    buf = '';
    pos = 0;
    offset = 0;
    state = Top.LineStart;
    textStart = -1;
    inFence = false;
    fenceCallable = false;
    pending = null;
    pendingLength = 0;
    rawUnpushedFrom = -1;
    rawPieces = createPieces();
    rawLength = 0;
    callCount = 0;
    blockStream = null;
    blockCallIds.clear();
    undecided = false;
    queue = [];
    startChunks = [];
    started = false;
    matcher.reset();
  }

  /**
   * Most chunks of a stream fall wholly inside a line of prose or a value being written: they
   * are emitted as they are, without the buffer and the state machine (which the cost per
   * 4-character chunk is all about). Only when nothing is held back.
   */
  function fastPath(chunk: string): boolean {
    if (state === Top.MidLine || state === Top.LineStart) {
      // A special-token block can open anywhere: a chunk with a `<` takes the full path.
      if (anywhere.length > 0 && !inFence && chunk.indexOf('<') !== -1) return false;
      const lineStart = proseLineStarts(chunk, state === Top.LineStart);
      if (lineStart === null || isHighSurrogate(chunk.charCodeAt(chunk.length - 1))) return false;
      if (undecided) {
        // Without a `<` the chunk cannot hold (the start of) a `</think>`.
        if (chunk.indexOf('<') !== -1) return false;
        startChunks.push(chunk);
      }
      emit({ type: 'text', text: chunk });
      state = lineStart ? Top.LineStart : Top.MidLine;
      if (undecided && offset + buf.length + chunk.length > maxHold) decideNotPrefilled();
    } else if (state === Top.Call) {
      if (rawLength + chunk.length >= maxCallBytes || !callParser.streamValue(chunk)) return false;
      pushPiece(rawPieces, chunk);
      rawLength += chunk.length;
    } else if (state === Top.Block) {
      const blockEnd = offset + buf.length + chunk.length - blockStart;
      if (blockEnd >= maxCallBytes || !(blockStream as BlockStream).streamValue(chunk))
        return false;
      pushPiece(rawPieces, chunk);
    } else {
      return false;
    }
    offset += buf.length + chunk.length;
    buf = '';
    pos = 0;
    return true;
  }

  /**
   * Whether every line start in `chunk` (after each newline, and its first character when
   * `atLineStart`) begins plain prose, which the full path would only pass through: then the
   * chunk is text as it is. Returns whether the chunk ends at a line start, or null when some
   * line start needs the state machine (a possible tag, bracket, fence, indent or blank line,
   * or any line start in a fence that may still hold calls).
   */
  function proseLineStarts(chunk: string, atLineStart: boolean): boolean | null {
    let k = chunk.indexOf('\n');
    if (k === -1 && !atLineStart) return false;
    if (inFence && fenceCallable) return null;
    if (atLineStart && !isPlainLineStart(chunk.charCodeAt(0))) return null;
    while (k !== -1) {
      if (k === chunk.length - 1) return true;
      if (!isPlainLineStart(chunk.charCodeAt(k + 1))) return null;
      k = chunk.indexOf('\n', k + 1);
    }
    return false;
  }

  function take(chunk: string): void {
    if (!started) start();
    if (undecided) startChunks.push(chunk);
    if (pending !== null) {
      const chunkStart = offset + buf.length + pendingLength;
      pending.push(chunk);
      pendingLength += chunk.length;
      if (matcher.match(bracketAt, chunk, chunkStart) === UNDECIDED) return;
      chunk = pending.join('');
      pending = null;
      pendingLength = 0;
    }
    bufVersion++;
    // Only the undecided tail is kept: concatenating the whole message per feed is O(n²).
    if (pos > 0) {
      offset += pos;
      buf = buf.slice(pos) + chunk;
      pos = 0;
    } else {
      buf += chunk;
    }
  }

  return {
    feed(chunk: string): void {
      if (chunk === '') return;
      if (pos === buf.length && pending === null && started && fastPath(chunk)) return;
      take(chunk);
      if (pending === null) run(false);
    },
    end(): void {
      if (!started) start();
      if (pending !== null) {
        const rest = pending.join('');
        pending = null;
        pendingLength = 0;
        offset += pos;
        bufVersion++;
        buf = buf.slice(pos) + rest;
        pos = 0;
      }
      run(true);
      finish();
      clear();
    },
    reset: clear,
  };
}

/** A line that starts with this character cannot begin a construct or a blank line. */
function isPlainLineStart(c: number): boolean {
  return !(
    isSpaceOrTab(c) ||
    isLineEnd(c) ||
    c === Char.Lt ||
    c === Char.OpenBracket ||
    c === Char.Backtick ||
    c === Char.Tilde
  );
}

/** Markdown that a line-start bracket can be: a task box `[ ]` / `[x]`, or nothing at all. */
function isMarkdownBracket(content: string): boolean {
  return content === '' || content === ' ' || content === 'x' || content === 'X';
}
