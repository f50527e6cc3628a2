import type { CallFormat, ToolArguments } from '../events.js';
import { readArgumentsBody } from '../json-call.js';
import { createPieces, joinPieces, pushPiece } from '../pieces.js';
import { partialSuffixStart } from '../tag.js';
import {
  type BlockFailure,
  type BlockLimits,
  type BlockSink,
  BlockStatus,
  type BlockStream,
  callFailure,
} from './block.js';
import { JsonPreview, type PreviewedCall } from './json-preview.js';

/**
 * A dialect whose calls are written between special tokens as a name, a separator and the
 * arguments as JSON, described as data (DeepSeek V3.1: `<｜tool▁call▁begin｜>name<｜tool▁sep｜>
 * {…}<｜tool▁call▁end｜>` inside `<｜tool▁calls▁begin｜>` … `<｜tool▁calls▁end｜>`).
 */
export interface JsonCallForm {
  format: CallFormat;
  wrapper: { open: string; close: string };
  call: { open: string; separator: string; close: string };
  /**
   * The name and where the JSON starts, read from what stands between the separator and the
   * call's close, for forms whose header is a constant (DeepSeek R1 writes `function`, then the
   * name on the line after the separator and the JSON in a fence). Null: not yet known.
   */
  nameAfterSeparator?: (header: string, body: string) => { name: string; json: number } | null;
  /** The tool's name as the header writes it (Kimi: `functions.name:0`). */
  nameOf: (header: string) => string;
}

enum State {
  Start = 0,
  Between = 1,
  Header = 2,
  Body = 3,
  Done = 4,
  Failed = 5,
}

/** The longest header (a tool's name) read before it is no call. */
const MAX_HEADER = 512;

/**
 * Reads a block of a `JsonCallForm` as it streams: the tool's name is told at the separator,
 * the body's string arguments while they are written (a preview, as for Hermes), the call at
 * its close, when its JSON is parsed (and repaired if need be, with `repaired-json`). The
 * tokens are special tokens of the model's vocabulary: a JSON string cannot hold them, so the
 * first of each is the one. A block left open after complete calls ends with the input
 * (`unclosed-element`); a call whose JSON does not read ends the block as an error, its text
 * given back.
 */
export function createJsonCallStream(
  form: JsonCallForm,
  sink: BlockSink,
  limits: BlockLimits,
): BlockStream {
  const { wrapper, call: tokens } = form;
  let state = State.Start;
  let calls = 0;
  let header = '';
  let headerStart = 0;
  let current: PreviewedCall | null = null;
  let preview: JsonPreview | null = null;
  let body = createPieces();
  /** For a header written after the separator (R1): what is known of it. */
  let late: { name: string; json: number } | null = null;
  let failed: BlockFailure | null = null;
  /** A call whose close was read: it ends when the next call opens or the block closes. */
  let closed: { id: string; name: string; args: ToolArguments; end: number } | null = null;

  function endClosed(end: number = closed?.end ?? 0): void {
    if (closed === null) return;
    sink.end(closed.id, closed.name, closed.args, form.format, end);
    closed = null;
  }

  function fail(code: BlockFailure['code'], message: string, offset: number): void {
    endClosed();
    failed = callFailure(code, message, offset, current);
    state = State.Failed;
  }

  function beginCall(name: string): void {
    const id = sink.start();
    current = { id, name };
    sink.name(id, name);
    preview = new JsonPreview(sink, current);
    calls++;
  }

  /** The call's body is complete: its JSON read into arguments, and the call told. */
  function endCall(end: number, offset: number): void {
    let json = joinPieces(body);
    if (late !== null) json = stripFence(json.slice(late.json));
    const args = readArgumentsBody(json, limits.maxDepth);
    if (!args.ok) {
      fail(args.code, args.message, offset);
      return;
    }
    const open = current as PreviewedCall;
    if (args.repaired !== undefined) sink.warn('repaired-json', args.repaired, offset, open.id);
    closed = { id: open.id, name: open.name ?? '', args: args.arguments, end };
    current = null;
    preview = null;
    late = null;
    body = createPieces();
    state = State.Between;
  }

  function stepBetween(s: string, i: number, offset: number, final: boolean): number {
    const open = s.indexOf(tokens.open, i);
    const close = s.indexOf(wrapper.close, i);
    if (close !== -1 && (open === -1 || close < open)) {
      if (calls === 0) {
        fail('missing-tool-name', `the ${wrapper.open} block holds no call`, offset + close);
        return close;
      }
      // The last call's text runs to the block's end.
      endClosed(offset + close + wrapper.close.length);
      state = State.Done;
      return close + wrapper.close.length;
    }
    if (open !== -1) {
      endClosed();
      state = State.Header;
      header = '';
      headerStart = offset + open;
      return open + tokens.open.length;
    }
    if (final) return endOfInput(s.length, offset);
    return Math.min(partialSuffixStart(s, i, tokens.open), partialSuffixStart(s, i, wrapper.close));
  }

  function stepHeader(s: string, i: number, offset: number, final: boolean): number {
    const sep = s.indexOf(tokens.separator, i);
    const end = sep === -1 ? (final ? s.length : partialSuffixStart(s, i, tokens.separator)) : sep;
    header += s.slice(i, end);
    if (header.length > MAX_HEADER) {
      fail('missing-tool-name', `no ${tokens.separator} after the call's name`, headerStart);
      return end;
    }
    if (sep === -1) return final ? endOfInput(end, offset) : end;
    const name = form.nameOf(header.trim());
    if (form.nameAfterSeparator === undefined || name !== '') {
      if (name === '') {
        fail('missing-tool-name', `write the tool's name before ${tokens.separator}`, headerStart);
        return sep;
      }
      beginCall(name);
    }
    state = State.Body;
    return sep + tokens.separator.length;
  }

  function stepBody(s: string, i: number, offset: number, final: boolean): number {
    const close = s.indexOf(tokens.close, i);
    const end = close === -1 ? (final ? s.length : partialSuffixStart(s, i, tokens.close)) : close;
    const text = s.slice(i, end);
    pushPiece(body, text);
    if (current === null && form.nameAfterSeparator !== undefined) {
      const sofar = joinPieces(body);
      if (sofar.length > MAX_HEADER) {
        fail('missing-tool-name', `no name on the line after ${tokens.separator}`, headerStart);
        return end;
      }
      late = form.nameAfterSeparator(header.trim(), sofar);
      if (late !== null) {
        beginCall(late.name);
        preview?.write(joinPieces(body).slice(late.json));
      }
    } else preview?.write(text);
    if (close === -1) return final ? endOfInput(end, offset) : end;
    if (current === null) {
      fail('missing-tool-name', `write the tool's name before ${tokens.close}`, headerStart);
      return close;
    }
    endCall(offset + close + tokens.close.length, offset + close);
    return close + tokens.close.length;
  }

  function over(): boolean {
    return state === State.Done || state === State.Failed;
  }

  function endOfInput(at: number, offset: number): number {
    if (state === State.Between && calls > 0) {
      sink.warn(
        'unclosed-element',
        `the block was not closed with ${wrapper.close}; it ends with the input`,
        offset + at,
      );
      endClosed(offset + at);
      state = State.Done;
    } else
      fail(
        'incomplete-tool-call',
        `the ${wrapper.open} block was not closed before the input ended`,
        offset + at,
      );
    return at;
  }

  return {
    run(s, from, offset, final) {
      let i = from;
      if (state === State.Start) {
        i += wrapper.open.length;
        state = State.Between;
      }
      for (;;) {
        let next: number;
        switch (state) {
          case State.Between:
            next = stepBetween(s, i, offset, final);
            break;
          case State.Header:
            next = stepHeader(s, i, offset, final);
            break;
          case State.Body:
            next = stepBody(s, i, offset, final);
            break;
          default:
            return i;
        }
        // Nothing read and the block goes on: the rest waits for more input.
        if (next === i && !over()) return i;
        i = next;
      }
    },
    streamValue(chunk) {
      // Inside a body, a chunk without the start of a special token is JSON text.
      if (state !== State.Body || current === null || chunk.indexOf('<') !== -1) return false;
      pushPiece(body, chunk);
      preview?.write(chunk);
      return true;
    },
    get status() {
      if (state === State.Done) return BlockStatus.Done;
      return state === State.Failed ? BlockStatus.Failed : BlockStatus.Open;
    },
    stop(code, message, offset) {
      if (failed === null) fail(code, message, offset);
      return failed as BlockFailure;
    },
  };
}

/** JSON written in a Markdown fence (```json … ```), as DeepSeek R1 writes its arguments. */
function stripFence(text: string): string {
  return text.replace(/^\s*```[a-z]*[ \t]*\r?\n/, '').replace(/\r?\n?[ \t]*```\s*$/, '');
}
