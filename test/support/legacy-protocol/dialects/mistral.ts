import { readArgumentsBody } from '../json-call.js';
import { createPieces, joinPieces, pushPiece } from '../pieces.js';
import {
  type BlockFailure,
  type BlockLimits,
  type BlockReader,
  type BlockSink,
  BlockStatus,
  type BlockStream,
  byFirstCharacter,
  callFailure,
} from './block.js';
import { createJsonBodyStream, type JsonBodyForm } from './json-body.js';
import { JsonValueEnd } from './json-end.js';
import { JsonPreview, type PreviewedCall } from './json-preview.js';

const OPEN = '[TOOL_CALLS]';
const ARGS = '[ARGS]';
const CALL_ID = '[CALL_ID]';
/** The longest name (and call id) read before `[ARGS]`. */
const MAX_HEADER = 512;

/** Mistral 7B v0.3, Nemo, Small 3.0/3.1: `[TOOL_CALLS][{"name": …, "arguments": {…}}, …]`. */
const LIST: JsonBodyForm = { format: 'mistral', open: OPEN, close: '' };

/**
 * Mistral Small 3.2, Devstral, Magistral: `[TOOL_CALLS]name[ARGS]{…}` (or
 * `name[CALL_ID]id[ARGS]{…}`), one call per `[TOOL_CALLS]`, ended by its JSON object.
 */
function createNamedStream(sink: BlockSink, limits: BlockLimits): BlockStream {
  let status = BlockStatus.Open;
  let failed: BlockFailure | null = null;
  let blockStart = -1;
  let header = '';
  let call: PreviewedCall | null = null;
  let preview: JsonPreview | null = null;
  const valueEnd = new JsonValueEnd();
  const body = createPieces();

  function fail(code: BlockFailure['code'], message: string, offset: number): void {
    failed = callFailure(code, message, offset, call);
    status = BlockStatus.Failed;
  }

  function readHeader(s: string, i: number, final: boolean): number {
    const args = s.indexOf(ARGS, i);
    const end = args === -1 ? s.length : args;
    header += s.slice(i, end);
    if (header.length > MAX_HEADER) {
      fail('missing-tool-name', `write ${OPEN}name${ARGS}{…}`, blockStart);
      return end;
    }
    if (args === -1) {
      if (final) fail('incomplete-tool-call', `no ${ARGS} after ${OPEN}`, blockStart);
      // A partial `[ARGS]` may stand at the end: it is read again with more input.
      const keep = Math.max(i, s.length - ARGS.length + 1);
      header = header.slice(0, header.length - (s.length - keep));
      return final ? s.length : keep;
    }
    const name = header.split(CALL_ID)[0].trim();
    if (name === '') {
      fail('missing-tool-name', `write the tool's name after ${OPEN}`, blockStart);
      return args;
    }
    const id = sink.start();
    call = { id, name };
    sink.name(id, name);
    preview = new JsonPreview(sink, call);
    return args + ARGS.length;
  }

  return {
    run(s, from, offset, final) {
      let i = from;
      if (blockStart === -1) {
        blockStart = offset + from;
        i += OPEN.length;
      }
      if (call === null) {
        i = readHeader(s, i, final);
        if (call === null) return i;
      }
      const end = valueEnd.find(s, i);
      const text = s.slice(i, end === -1 ? s.length : end);
      pushPiece(body, text);
      preview?.write(text);
      if (end === -1) {
        if (final) fail('incomplete-tool-call', `the call's arguments were not closed`, blockStart);
        return s.length;
      }
      const open = call as PreviewedCall;
      const args = readArgumentsBody(joinPieces(body), limits.maxDepth);
      if (!args.ok) {
        fail(args.code, args.message, blockStart);
        return end;
      }
      if (args.repaired !== undefined)
        sink.warn('repaired-json', args.repaired, blockStart, open.id);
      sink.end(open.id, open.name ?? '', args.arguments, 'mistral', offset + end);
      status = BlockStatus.Done;
      return end;
    },
    streamValue(chunk) {
      if (call === null || !valueEnd.inString || /["\\]/.test(chunk)) return false;
      pushPiece(body, chunk);
      preview?.write(chunk);
      return true;
    },
    get status() {
      return status;
    },
    stop(code, message, offset) {
      if (failed === null) fail(code, message, offset);
      return failed as BlockFailure;
    },
  };
}

/**
 * Mistral's `[TOOL_CALLS]`, in both shapes its models write: a JSON list of calls, or a name,
 * `[ARGS]` and a JSON object. There is no closing marker: the call ends with its JSON value.
 * `[TOOL_CALLS]` is a special token: it opens a call anywhere in a line.
 */
export const mistral: BlockReader = {
  open: OPEN,
  anywhere: true,
  stream: (sink, limits) =>
    byFirstCharacter(OPEN, (c) =>
      c === '[' || c === '{'
        ? createJsonBodyStream(LIST, sink, limits, true)
        : createNamedStream(sink, limits),
    ),
};
