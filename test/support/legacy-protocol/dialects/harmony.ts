import { readArgumentsBody } from '../json-call.js';
import { createPieces, joinPieces, pushPiece } from '../pieces.js';
import { partialSuffixStart } from '../tag.js';
import {
  type BlockFailure,
  type BlockLimits,
  type BlockReader,
  type BlockSink,
  BlockStatus,
  type BlockStream,
  callFailure,
} from './block.js';
import { JsonPreview, type PreviewedCall } from './json-preview.js';

const START = '<|start|>';
const MESSAGE = '<|message|>';
/** What ends a message: its own end, a call's, the reply's; or the next message's start. */
const ENDS = ['<|end|>', '<|call|>', '<|return|>', START] as const;
/** The longest header (role, channel, recipient, content type) read before `<|message|>`. */
const MAX_HEADER = 512;

enum State {
  Header = 0,
  Thinking = 1,
  Call = 2,
  Done = 3,
  Failed = 4,
}

/** The earliest of `ENDS` in `s` from `i`, with its length; null when none is there yet. */
function findEnd(s: string, i: number): { at: number; length: number; start: boolean } | null {
  let best: { at: number; length: number; start: boolean } | null = null;
  for (const end of ENDS) {
    const at = s.indexOf(end, i);
    if (at !== -1 && (best === null || at < best.at))
      best = { at, length: end === START ? 0 : end.length, start: end === START };
  }
  return best;
}

/** Where a partial end marker may begin at the end of `s`. */
const partialEnd = (s: string, from: number) =>
  Math.min(...ENDS.map((end) => partialSuffixStart(s, from, end)));

/**
 * One message of OpenAI's harmony format (gpt-oss): a header up to `<|message|>`, then a body
 * up to `<|end|>`, `<|call|>` or `<|return|>`. A message to `functions.NAME` (the recipient
 * written as `to=` in the header) is a call whose body is its JSON arguments; one on the
 * `analysis` channel is thinking; any other (`final`, `commentary` without a recipient) is
 * text, its header and markers included, as written.
 */
function createHarmonyStream(sink: BlockSink, limits: BlockLimits): BlockStream {
  let state = State.Header;
  let blockStart = 0;
  let call: PreviewedCall | null = null;
  let preview: JsonPreview | null = null;
  const body = createPieces();
  let failed: BlockFailure | null = null;

  function fail(code: BlockFailure['code'], message: string, offset: number): void {
    failed = callFailure(code, message, offset, call);
    state = State.Failed;
  }

  function readHeader(s: string, from: number, offset: number, final: boolean): number {
    blockStart = offset + from;
    const message = s.indexOf(MESSAGE, from);
    if (message === -1 || message - from > MAX_HEADER) {
      if (s.length - from > MAX_HEADER || final || message !== -1)
        fail('incomplete-tool-call', `a harmony header ends with ${MESSAGE}`, blockStart);
      return from;
    }
    const header = s.slice(from, message);
    const after = message + MESSAGE.length;
    const recipient = /\bto=functions\.([^\s<]+)/.exec(header);
    if (recipient !== null) {
      const id = sink.start();
      call = { id, name: recipient[1] };
      sink.name(id, recipient[1]);
      preview = new JsonPreview(sink, call);
      state = State.Call;
    } else if (/<\|channel\|>\s*analysis\b/.test(header)) {
      sink.thinkingStart();
      state = State.Thinking;
    } else {
      // The final answer, or a message to no function: text as written.
      sink.text(offset + after);
      state = State.Done;
    }
    return after;
  }

  function readThinking(s: string, i: number, offset: number, final: boolean): number {
    const end = findEnd(s, i);
    const stop = end !== null ? end.at : final ? s.length : partialEnd(s, i);
    sink.thinking(s.slice(i, stop));
    if (end === null && !final) return stop;
    const close = end === null ? s.length : end.at + end.length;
    sink.thinkingEnd(offset + close);
    state = State.Done;
    return close;
  }

  function readCall(s: string, i: number, offset: number, final: boolean): number {
    const end = findEnd(s, i);
    const stop = end !== null ? end.at : final ? s.length : partialEnd(s, i);
    const text = s.slice(i, stop);
    pushPiece(body, text);
    preview?.write(text);
    if (end === null) {
      if (final) fail('incomplete-tool-call', 'the call was not ended with <|call|>', blockStart);
      return stop;
    }
    const open = call as PreviewedCall;
    const args = readArgumentsBody(joinPieces(body), limits.maxDepth);
    if (!args.ok) {
      fail(args.code, args.message, blockStart);
      return end.at;
    }
    if (args.repaired !== undefined) sink.warn('repaired-json', args.repaired, blockStart, open.id);
    sink.end(open.id, open.name ?? '', args.arguments, 'gpt-oss', offset + end.at + end.length);
    state = State.Done;
    return end.at + end.length;
  }

  return {
    run(s, from, offset, final) {
      let i = from;
      if (state === State.Header) {
        i = readHeader(s, from, offset, final);
        if (state === State.Header || state === State.Failed || state === State.Done) return i;
      }
      if (state === State.Thinking) return readThinking(s, i, offset, final);
      if (state === State.Call) return readCall(s, i, offset, final);
      return i;
    },
    streamValue(chunk) {
      if (chunk.indexOf('<') !== -1) return false;
      if (state === State.Thinking) sink.thinking(chunk);
      else if (state === State.Call) {
        pushPiece(body, chunk);
        preview?.write(chunk);
      } else return false;
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

/**
 * OpenAI gpt-oss's harmony format: `<|channel|>analysis<|message|>…<|end|>` is thinking,
 * `<|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}
 * <|call|>` (or with `to=` before the channel) is a call, other messages are text. Both
 * openings are special tokens: they open a message anywhere in a line.
 */
export const harmonyStart: BlockReader = {
  open: START,
  anywhere: true,
  stream: (sink, limits) => createHarmonyStream(sink, limits),
};
export const harmonyChannel: BlockReader = {
  open: '<|channel|>',
  anywhere: true,
  stream: (sink, limits) => createHarmonyStream(sink, limits),
};
