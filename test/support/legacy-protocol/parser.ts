import { createBlockRunner } from './block-runner.js';
import { createBracketMatcher, UNDECIDED, UNMATCHED } from './bracket-matcher.js';
import { CallStatus, createCallParser } from './call-parser.js';
import { Char, isHighSurrogate, isLineEnd, isSpaceOrTab } from './chars.js';
import { type BlockReader, blockReaders } from './dialects/index.js';
import type { ParseErrorCode, ParserEvent, ThinkingFormat } from './events.js';
import { Fence } from './fence.js';
import { type FoundOpening, Openings } from './openings.js';
import { PARSER_DEFAULTS, type Parser, type ParserOptions } from './parser-options.js';
import { createPieces, joinPieces, pushPiece } from './pieces.js';
import { PrefilledStart } from './prefilled-thinking.js';
import { partialSuffixStart, startsWithAt } from './tag.js';

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
const THINK_CLOSE = '</think>';
/**
 * Thinking in tags, at a line start: the common one, Claude's, and the special tokens of
 * Seed-OSS, Command R7B and Gemma 4.
 */
const THINK_TAGS = [
  ['<think>', THINK_CLOSE],
  ['<thinking>', '</thinking>'],
  ['<seed:think>', '</seed:think>'],
  ['<|START_THINKING|>', '<|END_THINKING|>'],
  ['<|channel>thought', '<channel|>'],
] as const;
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
  const openings = new Openings(readers);
  const anywhere = openings.anywhere;
  const anywhereFirst = openings.anywhereFirst;
  /**
   * What the line that starts at `s[i]` is to the line-start step: after any blanks, a
   * character that begins nothing (prose), or the newline of a blank line, both of which it
   * passes through as text; else it needs the step.
   */
  function lineAt(s: string, i: number): Line {
    const n = s.length;
    while (i < n && isSpaceOrTab(s.charCodeAt(i))) i++;
    if (i >= n) return Line.Undecided;
    const c = s.charCodeAt(i);
    if (c === Char.Newline) return Line.Blank;
    return isPlainLineStart(c) && !openings.startsWith(c) ? Line.Prose : Line.Construct;
  }
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

  const fence = new Fence(MAX_LINE_LOOKAHEAD);

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

  const blocks = createBlockRunner({
    limits,
    maxCallBytes,
    nextId: () => generateId(callCount++),
    emit,
  });

  const prefilledStart = new PrefilledStart(onEvent);
  let started = false;

  /** Bumped whenever `buf` changes: the openings' searches are remembered per version. */
  let bufVersion = 0;
  /**
   * The pre-filled `</think>` search, in absolute offsets (the buffer only grows at its end,
   * so an answer stays true across feeds): the first close found, and how far no close starts.
   */
  let thinkCloseAt = -1;
  let thinkCloseNoneBefore = 0;
  /** How far ahead of what is asked the search looks: one close settles most replies early. */
  const THINK_SEARCH_STEP = 2048;

  /**
   * Where the first `</think>` that starts in `buf[pos, limit)` (and within `maxHold`) is, or
   * -1. The text is searched in steps, each character about once: the whole 16 KiB window
   * once per message cost 13% of a whole-string parse, though the first call decides it.
   */
  function thinkCloseBefore(limit: number): number {
    const from = offset + pos;
    if (thinkCloseAt !== -1 && thinkCloseAt < from) thinkCloseAt = -1;
    const last = Math.min(offset + limit, maxHold + 1);
    while (thinkCloseAt === -1 && thinkCloseNoneBefore < last) {
      const start = Math.max(thinkCloseNoneBefore, from);
      const end = Math.min(
        offset + buf.length,
        Math.max(offset + limit, start + THINK_SEARCH_STEP) + THINK_CLOSE.length - 1,
      );
      const found = buf.slice(start - offset, end - offset).indexOf(THINK_CLOSE);
      if (found !== -1) thinkCloseAt = start + found;
      else if (end - start < THINK_CLOSE.length) break;
      else thinkCloseNoneBefore = end - THINK_CLOSE.length + 1;
      if (end === offset + buf.length) break;
    }
    return thinkCloseAt !== -1 && thinkCloseAt < last ? thinkCloseAt - offset : -1;
  }

  function emit(event: ParserEvent): void {
    // Held while the start may still be pre-filled thinking; else straight out.
    if (prefilledStart.undecided) prefilledStart.emit(event);
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
    prefilledStart.decideNot();
  }

  /** A `</think>` at absolute `at` ends a pre-filled thinking block that began the input. */
  function decidePrefilled(at: number): void {
    textStart = -1;
    fence.reset();
    prefilledStart.decide(at, THINK_CLOSE.length);
  }

  function begin(): void {
    started = true;
    if (prefilled === 'auto') prefilledStart.begin();
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

  function beginBlock(at: number, reader: BlockReader): void {
    flushText(at);
    decideNotPrefilled();
    blocks.begin(reader, offset + at);
    pos = at;
    state = Top.Block;
  }

  /** Runs the open dialect block over the buffer; returns false when it waits for input. */
  function stepBlock(final: boolean): boolean {
    pos = blocks.run(buf, pos, offset, final);
    if (blocks.open) return false;
    state = Top.MidLine;
    return true;
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
        // Field by field: a spread in the literal took ~90 ns a call, this ~13.
        emit({
          type: 'tool-end',
          call: {
            id: callId,
            serverName: result.serverName,
            toolName: result.toolName,
            arguments: result.arguments,
            format: result.format,
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

  /**
   * Opens the block of the first of `candidates` whose opening stands at `i`: true when one
   * opened, null when the input ends on a prefix of one (more input decides), else false.
   */
  function openBlockAt(
    i: number,
    candidates: readonly BlockReader[],
    final: boolean,
  ): boolean | null {
    let waiting = false;
    for (const reader of candidates) {
      let opens = startsWithAt(buf, i, reader.open);
      if (opens === true && reader.lineStart !== undefined)
        opens = reader.lineStart(buf, i + reader.open.length, final);
      if (opens === true) {
        beginBlock(i, reader);
        return true;
      }
      if (opens === null) waiting = true;
    }
    return waiting ? null : false;
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
      if (tool === true && (!fence.open || fence.callable)) {
        beginCall(i);
        return true;
      }
      if (!fence.open || fence.callable) {
        const opened = openBlockAt(i, readers, final);
        if (opened === true) return true;
        if (opened === null && !final) return false;
      }
      if (!fence.open) {
        let waiting = tool === null;
        for (const [open, close] of THINK_TAGS) {
          const opens = startsWithAt(buf, i, open);
          if (opens === true) {
            flushText(i);
            decideNotPrefilled();
            beginThinking(i, 'tag');
            thinkClose = close;
            pos = i + open.length;
            state = Top.ThinkTag;
            return true;
          }
          if (opens === null) waiting = true;
        }
        if (!final && waiting) return false;
      } else if (!final && tool === null && fence.callable) return false;
    } else if (
      openings.other.length > 0 &&
      openings.startsWith(c) &&
      c !== Char.OpenBrace &&
      !fence.open
    ) {
      const opened = openBlockAt(i, openings.other, final);
      if (opened === true) return true;
      if (opened === null && !final) return false;
    } else if (c === Char.OpenBrace && openings.brace.length > 0 && !fence.open) {
      const opened = openBlockAt(i, openings.brace, final);
      if (opened === true) return true;
      if (opened === null && !final) return false;
    } else if (c === Char.OpenBracket && !fence.open) {
      const opened = openBlockAt(i, openings.bracket, final);
      if (opened === true) return true;
      if (opened === null && !final) return false;
      flushText(i);
      bracketAt = offset + i;
      pos = i;
      state = Top.Bracket;
      return true;
    } else if (c === Char.Backtick || c === Char.Tilde) {
      const marker = fence.line(buf, i, c, final);
      if (marker === null) return false;
      if (marker) {
        state = Top.MidLine;
        return true;
      }
    }
    if (fence.open) fence.callable = false;
    state = Top.MidLine;
    return true;
  }

  /** The earliest opening that may stand mid-line in `buf[pos, end)`, outside fences. */
  function findAnywhere(end: number, final: boolean): FoundOpening | null {
    return anywhere.length === 0 || fence.open
      ? null
      : openings.find(buf, pos, end, final, bufVersion);
  }

  /**
   * The rest of a line is text, unless a special-token block opens in it; in 'auto' mode a
   * `</think>` in it may end pre-filled thinking.
   */
  function stepMidLine(final: boolean): boolean {
    const n = buf.length;
    const newline = buf.indexOf('\n', pos);
    if (newline !== -1 && (anywhere.length === 0 || fence.open) && !prefilledStart.undecided)
      return skipProse(newline, final);
    let end = newline === -1 ? n : newline + 1;
    const opening = findAnywhere(end, final);
    if (opening?.undecided) {
      // What follows it decides whether it opens a call: the text waits there.
      end = opening.at;
    } else if (opening !== null) {
      const close = prefilledStart.undecided ? thinkCloseBefore(opening.at) : -1;
      if (close === -1) {
        markText(pos);
        beginBlock(opening.at, opening.reader);
        return true;
      }
    } else if (newline === -1 && !final && anywhere.length > 0 && !fence.open) {
      // Keep a partial opening at the end for the next chunk.
      for (const reader of anywhere) end = Math.min(end, partialSuffixStart(buf, pos, reader.open));
    }
    if (prefilledStart.undecided) {
      const close = thinkCloseBefore(end);
      if (close !== -1) {
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
    if (prefilledStart.undecided && offset + pos > maxHold) decideNotPrefilled();
    if (newline === -1 || end <= newline) return false;
    state = Top.LineStart;
    return true;
  }

  /**
   * Prose, when nothing can open mid-line: the rest of this line, and every following line
   * that starts plain, is text, found in one scan from newline to newline instead of a
   * line-start step and a mid-line step per line. Stops at the first line start that may open
   * something (a tag, a bracket, a fence, blanks), or mid-line at the end of the input.
   */
  function skipProse(newline: number, final: boolean): boolean {
    const n = buf.length;
    let nl = newline;
    while (nl + 1 < n) {
      const line = lineAt(buf, nl + 1);
      if (line === Line.Construct || line === Line.Undecided) break;
      // A line of prose in a fence is no call's line: the fence holds no calls.
      if (line === Line.Prose && fence.open) fence.callable = false;
      const next = buf.indexOf('\n', nl + 1);
      if (next === -1) {
        let end = n;
        if (!final && isHighSurrogate(buf.charCodeAt(end - 1))) end--;
        markText(pos);
        pos = end;
        return false;
      }
      nl = next;
    }
    markText(pos);
    pos = nl + 1;
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
    fence.reset();
    pending = null;
    pendingLength = 0;
    rawUnpushedFrom = -1;
    rawPieces = createPieces();
    rawLength = 0;
    callCount = 0;
    blocks.reset();
    prefilledStart.reset();
    thinkCloseAt = -1;
    thinkCloseNoneBefore = 0;
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
      if (anywhereFirst.length > 0 && !fence.open && holdsAny(chunk, anywhereFirst)) return false;
      const lineStart = proseLineStarts(chunk, state === Top.LineStart);
      if (lineStart === null || isHighSurrogate(chunk.charCodeAt(chunk.length - 1))) return false;
      if (prefilledStart.undecided) {
        // Without a `<` the chunk cannot hold (the start of) a `</think>`.
        if (chunk.indexOf('<') !== -1) return false;
        prefilledStart.keep(chunk);
      }
      emit({ type: 'text', text: chunk });
      state = lineStart ? Top.LineStart : Top.MidLine;
      if (prefilledStart.undecided && offset + buf.length + chunk.length > maxHold)
        decideNotPrefilled();
    } else if (state === Top.Call) {
      if (rawLength + chunk.length >= maxCallBytes || !callParser.streamValue(chunk)) return false;
      pushPiece(rawPieces, chunk);
      rawLength += chunk.length;
    } else if (state === Top.Block) {
      if (!blocks.streamValue(chunk, offset + buf.length + chunk.length)) return false;
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
   * `atLineStart`) begins prose or a blank line, which the full path would only pass through:
   * then the chunk is text as it is. Returns whether the chunk ends at a line start (or in
   * its blanks), or null when some line start needs the state machine (a possible tag,
   * bracket, fence or `\r`, or any line start in a fence that may still hold calls).
   */
  function proseLineStarts(chunk: string, atLineStart: boolean): boolean | null {
    let newline = chunk.indexOf('\n');
    if (newline === -1 && !atLineStart) return false;
    if (fence.open && fence.callable) return null;
    let start = atLineStart ? 0 : newline + 1;
    for (;;) {
      if (start === chunk.length) return true;
      const line = lineAt(chunk, start);
      if (line === Line.Undecided) return true;
      if (line === Line.Construct) return null;
      newline = chunk.indexOf('\n', start);
      if (newline === -1) return false;
      start = newline + 1;
    }
  }

  function take(chunk: string): void {
    if (!started) begin();
    prefilledStart.keep(chunk);
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
      if (!started) begin();
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

/** What a line is to the line-start step (see `lineAt`). */
enum Line {
  Prose = 0,
  Blank = 1,
  /** It may begin a construct: the step decides. */
  Construct = 2,
  /** The input ends in its leading blanks. */
  Undecided = 3,
}

/** Whether `chunk` holds any of `firsts` (single characters). */
function holdsAny(chunk: string, firsts: readonly string[]): boolean {
  for (const c of firsts) if (chunk.indexOf(c) !== -1) return true;
  return false;
}

/** A line whose first character after its blanks is this one is prose: no construct, no line end. */
function isPlainLineStart(c: number): boolean {
  return !(
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
