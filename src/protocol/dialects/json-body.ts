import type { CallFormat } from '../events.js';
import { closingQuote, endsInEscape, parseModelJson, readJsonArguments } from '../json-call.js';
import { createPieces, joinPieces, pushPiece } from '../pieces.js';
import { partialSuffixStart } from '../tag.js';
import {
  type BlockCall,
  type BlockFailure,
  type BlockLimits,
  type BlockReader,
  type BlockResult,
  type BlockSink,
  BlockStatus,
  type BlockStream,
  callFailure,
  failure,
  keyPath,
} from './block.js';
import { GemmaCallPreview, gemmaCallToJson } from './gemma.js';
import { JsonValueEnd } from './json-end.js';
import { type BodyPreview, JsonPreview, NamedJsonPreview } from './json-preview.js';
import { PythonCallsPreview, pythonicToJson } from './pythonic.js';

/**
 * A dialect whose block is JSON between two markers: a call object, or a list of them, each
 * `{"name": …, "arguments": {…}}` (Command R7B: `tool_name`, `parameters`).
 */
export interface JsonBodyForm {
  format: CallFormat;
  open: string;
  /** The opening is the body's own first characters (`{"name"`), not a marker before it. */
  openIsBody?: boolean;
  /** '' when the block ends with its JSON value (Mistral writes no closing marker). */
  close: string;
  /**
   * The body in another syntax than JSON (a list of Python calls, `[f(a=1)]`; Gemma 4's
   * `call:f{…}`): the JSON list of calls it means, or null when it is not in that syntax.
   */
  toJson?: (body: string) => string | null;
  /**
   * What opens a string in the body, inside which the close is not looked for: `"` when the
   * body is JSON (the default then), `'"` for Python calls; '' when the close is a special
   * token no string can hide.
   */
  quotes?: string;
  /**
   * What previews the body while it is written; by default, for a JSON body, the strict
   * JSON preview (see JsonPreview). Without one, calls are told when the body is read.
   */
  preview?: (sink: BlockSink) => BodyPreview;
}

const HERMES: JsonBodyForm = { format: 'hermes', open: '<tool_call>', close: '</tool_call>' };

/** Per quotes and close: what matters outside a string (a quote, the close's first character). */
const outsideScanners = new Map<string, RegExp>();
function outsideScanner(quotes: string, close: string): RegExp {
  const key = `${quotes}${close[0]}`;
  let scanner = outsideScanners.get(key);
  if (scanner === undefined) {
    scanner = new RegExp(`[${key.replace(/[\\\]^-]/g, '\\$&')}]`, 'g');
    outsideScanners.set(key, scanner);
  }
  return scanner;
}

/** Reads a whole block (both markers included) into its calls. */
function readJsonBody(form: JsonBodyForm, block: string, limits: BlockLimits): BlockResult {
  const start = form.openIsBody ? 0 : form.open.length;
  let json = block.slice(start, block.length - form.close.length);
  if (form.toJson !== undefined) json = form.toJson(json) ?? json;
  const read = parseModelJson(json, limits.maxDepth);
  if (!read.ok)
    return failure(read.code, `the call is not valid JSON: ${read.message}`, start + read.position);
  const parsed = read.value;
  const items = Array.isArray(parsed) ? parsed : [parsed];
  const calls: BlockCall[] = [];
  for (const item of items) {
    const fields = (item ?? {}) as {
      name?: unknown;
      tool_name?: unknown;
      arguments?: unknown;
      parameters?: unknown;
    };
    const name = fields.name ?? fields.tool_name;
    // A bare object is a call only with its arguments: `{"name": "Ada", "age": 3}` is data.
    if (form.openIsBody && fields.parameters === undefined && fields.arguments === undefined)
      return failure(
        'missing-tool-name',
        'a call written as bare JSON needs "parameters": {"name": "tool", "parameters": {…}}',
        start,
      );
    if (typeof name !== 'string' || name.trim() === '')
      return failure(
        'missing-tool-name',
        'each call needs "name": {"name": "tool", "arguments": {…}}',
        start,
      );
    const args = readJsonArguments(fields.arguments ?? fields.parameters, limits.maxDepth);
    if (!args.ok) return failure(args.code, args.message, start);
    calls.push({
      serverName: 'local',
      toolName: name.trim(),
      arguments: args.arguments,
      end: block.length,
    });
  }
  if (calls.length === 0)
    return failure('missing-tool-name', `the ${form.open} block holds an empty list`, start);
  // One block, several calls: each but the last owns nothing of the text but its place.
  calls.forEach((call, i) => {
    call.end = i === calls.length - 1 ? block.length : start;
  });
  const warnings = read.repaired
    ? [
        {
          code: 'repaired-json' as const,
          message: read.repaired,
          position: start + (read.position ?? 0),
          call: 0,
        },
      ]
    : [];
  return { ok: true, format: form.format, calls, warnings };
}

/**
 * A JSON-body block as it streams (Hermes', and every form of calls as a JSON list between
 * markers). The body is gathered up to the closing marker (outside JSON strings when `json`:
 * a `</tool_call>` inside a string value is text; or, without one, to the end of the JSON
 * value) and parsed whole, since
 * a model's JSON may need repair; while it is written a preview tells each call's start, its
 * name and the text of its string arguments (see JsonPreview). At the end the parse decides:
 * the preview's calls get their final names and arguments, calls it did not see are told
 * then, and one it saw that the parse did not find is dropped with an error.
 */
export function createJsonBodyStream(
  form: JsonBodyForm,
  sink: BlockSink,
  limits: BlockLimits,
  json: boolean,
): BlockStream {
  const { open: OPEN, close: CLOSE } = form;
  const valueEnd = CLOSE === '' ? new JsonValueEnd() : null;
  const pieces = createPieces();
  const preview: BodyPreview | null = form.preview?.(sink) ?? (json ? new JsonPreview(sink) : null);
  const quotes = CLOSE === '' ? '' : (form.quotes ?? (json ? '"' : ''));
  const outside = quotes === '' ? null : outsideScanner(quotes, CLOSE);
  let blockStart = -1;
  /** The quote of the string the scan is in ('' outside one). */
  let quote = '';
  let escaped = false;
  let status = BlockStatus.Open;
  let failed: BlockFailure | null = null;

  /**
   * The closing tag at or after `i`, outside the body's strings (see `quotes`); -1 if not
   * yet. It jumps from one character that matters to the next (a quote or backslash in a
   * string, a quote or the close's first character outside): 4× faster than a loop over
   * every character.
   */
  function findClose(s: string, i: number): number {
    if (valueEnd !== null) {
      const end = valueEnd.find(s, i);
      quote = valueEnd.inString ? '"' : '';
      return end;
    }
    if (outside === null) return s.indexOf(CLOSE, i);
    if (escaped && i < s.length) {
      escaped = false;
      i++;
    }
    while (i < s.length) {
      if (quote !== '') {
        const end = closingQuote(s, i, quote);
        if (end === -1) {
          escaped = endsInEscape(s, i);
          return -1;
        }
        quote = '';
        i = end + 1;
        continue;
      }
      outside.lastIndex = i;
      if (!outside.test(s)) return -1;
      const at = outside.lastIndex - 1;
      if (quotes.includes(s[at])) quote = s[at];
      else if (s.startsWith(CLOSE, at)) return at;
      i = at + 1;
    }
    return -1;
  }

  function fail(code: BlockFailure['code'], message: string, offset: number): void {
    const started = preview?.calls ?? [];
    failed = callFailure(code, message, offset, started.at(-1) ?? null);
    for (const call of started.slice(0, -1))
      sink.drop(call.id, code, 'the block this call began in is no call', offset);
    status = BlockStatus.Failed;
  }

  /** The preview has seen none of the block yet (its start and close came in one run). */
  let unpreviewed = true;

  /** To the preview; `inString`: the text lies inside a string and holds no quote or escape. */
  function write(text: string, inString = false): void {
    if (text === '' || preview === null) return;
    unpreviewed = false;
    if (inString && preview.writeInString !== undefined) preview.writeInString(text);
    else preview.write(text);
  }

  /**
   * Ends the block. `body` is given when the preview has seen none of it: a block read in
   * one run is not previewed (that was a fifth of a whole Hermes reply's time); its calls
   * are told from the parse, each string argument in one delta, or, when it fails, the
   * preview reads it first, so the failure says what it would have said streamed.
   */
  function finish(block: string, body: string | null): void {
    const result = readJsonBody(form, block, limits);
    if (!result.ok) {
      if (body !== null) write(body);
      fail(result.code, result.message, blockStart + result.position);
      return;
    }
    if (body !== null && preview !== null) {
      for (const [k, call] of result.calls.entries()) {
        const id = sink.start();
        sink.name(id, call.toolName);
        for (const [key, value] of Object.entries(call.arguments))
          if (typeof value === 'string' && value !== '') sink.delta(id, keyPath(key, 0), value);
        for (const w of result.warnings ?? [])
          if (w.call === k) sink.warn(w.code, w.message, blockStart + w.position, id);
        sink.end(id, call.toolName, call.arguments, result.format, blockStart + call.end);
      }
      status = BlockStatus.Done;
      return;
    }
    const seen = preview?.calls ?? [];
    for (const [k, call] of result.calls.entries()) {
      const id = seen[k]?.id ?? sink.start();
      if (seen[k]?.name !== call.toolName) sink.name(id, call.toolName);
      for (const w of result.warnings ?? [])
        if (w.call === k) sink.warn(w.code, w.message, blockStart + w.position, id);
      sink.end(id, call.toolName, call.arguments, result.format, blockStart + call.end);
    }
    for (const extra of seen.slice(result.calls.length))
      sink.drop(extra.id, 'invalid-json', 'the body holds fewer calls than it began', blockStart);
    status = BlockStatus.Done;
  }

  return {
    run(s, from, offset, final) {
      // The block's text in this run goes into the pieces in one slice, its opening included:
      // a block read in one run is then the input's own slice, where the opening pushed apart
      // made joining copy every block.
      const runStart = from;
      if (blockStart === -1) {
        blockStart = offset + from;
        if (!form.openIsBody) from += OPEN.length;
      }
      const close = findClose(s, from);
      if (close !== -1) {
        const body = s.slice(from, close);
        if (!unpreviewed) write(body);
        const end = close + CLOSE.length;
        pushPiece(pieces, s.slice(runStart, end));
        finish(joinPieces(pieces), unpreviewed ? body : null);
        return end;
      }
      if (final) {
        write(s.slice(from));
        fail(
          'incomplete-tool-call',
          `the ${OPEN} block was not closed with ${CLOSE} before the input ended`,
          blockStart,
        );
        return s.length;
      }
      // Keep a partial closing tag at the end for the next chunk (and scan it again then).
      const keep = quote !== '' ? s.length : partialSuffixStart(s, from, CLOSE);
      write(s.slice(from, keep));
      pushPiece(pieces, s.slice(runStart, keep));
      return keep;
    },
    streamValue(chunk) {
      // Inside a string, a chunk without its quote or a backslash changes no state.
      if (quote === '' || escaped || status !== BlockStatus.Open) return false;
      if (chunk.includes(quote) || chunk.includes('\\')) return false;
      write(chunk, true);
      pushPiece(pieces, chunk);
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
 * Hermes' form (also Qwen2.5, Qwen3, many fine-tunes): `<tool_call>{"name": …, "arguments":
 * {…}}</tool_call>`, one call a block, or a JSON array of them. `arguments` may be a JSON
 * string holding the object.
 */
export const hermes: BlockReader = {
  open: HERMES.open,
  anywhere: true,
  stream: (sink, limits) => createJsonBodyStream(HERMES, sink, limits, true),
};

/** Hermes' `<tool_call>` body in 'auto', once its first character says it is JSON (or not). */
export const hermesStream = (sink: BlockSink, limits: BlockLimits, json: boolean) =>
  createJsonBodyStream(HERMES, sink, limits, json);

const NEMOTRON: JsonBodyForm = { format: 'nemotron', open: '<TOOLCALL>', close: '</TOOLCALL>' };

/** NVIDIA Nemotron's form: `<TOOLCALL>[{"name": …, "arguments": {…}}, …]</TOOLCALL>`. */
export const nemotron: BlockReader = {
  open: NEMOTRON.open,
  anywhere: true,
  stream: (sink, limits) => createJsonBodyStream(NEMOTRON, sink, limits, true),
};

const LFM2: JsonBodyForm = {
  format: 'lfm2',
  open: '<|tool_call_start|>',
  close: '<|tool_call_end|>',
  toJson: pythonicToJson,
  preview: (sink) => new PythonCallsPreview(sink),
};

/**
 * Liquid LFM2's form: `<|tool_call_start|>[get_weather(city="Paris")]<|tool_call_end|>`, the
 * calls as a Python list (its own template), or as a JSON list of calls (llama.cpp's).
 */
export const lfm2: BlockReader = {
  open: LFM2.open,
  anywhere: true,
  // The close is a special token: a Python string in single quotes cannot hide it.
  stream: (sink, limits) => createJsonBodyStream(LFM2, sink, limits, false),
};

const OLMO3: JsonBodyForm = {
  format: 'olmo3',
  open: '<function_calls>',
  close: '</function_calls>',
  toJson: pythonicToJson,
  preview: (sink) => new PythonCallsPreview(sink),
  // Its close is a plain tag: a Python string (in either quote) can hold it.
  quotes: `'"`,
};

/**
 * OLMo 3's form: Python calls, one a line, in `<function_calls>` … `</function_calls>` (the
 * tag Anthropic's form uses: in `auto` a body that starts with a name is OLMo 3's).
 */
export const olmo3: BlockReader = {
  open: OLMO3.open,
  anywhere: true,
  stream: (sink, limits) => createJsonBodyStream(OLMO3, sink, limits, false),
};

/** OLMo 3's body in 'auto', once its first character says it is not Anthropic's. */
export const olmo3Stream = (sink: BlockSink, limits: BlockLimits) =>
  createJsonBodyStream(OLMO3, sink, limits, false);

const GEMMA4: JsonBodyForm = {
  format: 'gemma4',
  open: '<|tool_call>',
  close: '<tool_call|>',
  toJson: gemmaCallToJson,
  preview: (sink) => new GemmaCallPreview(sink),
};

/**
 * Google Gemma 4's form, as its chat template writes it: `<|tool_call>call:NAME{key:…}
 * <tool_call|>`, strings between `<|"|>` tokens; one call a block.
 */
export const gemma4: BlockReader = {
  open: GEMMA4.open,
  anywhere: true,
  // Its strings are not JSON strings: the close is found as written (a special token).
  stream: (sink, limits) => createJsonBodyStream(GEMMA4, sink, limits, false),
};

const LLAMA4: JsonBodyForm = {
  format: 'llama4',
  open: '[',
  openIsBody: true,
  close: '',
  toJson: pythonicToJson,
  preview: (sink) => new PythonCallsPreview(sink),
};

/** The longest look past an opening for what confirms it (a name and `(`, `name>{`). */
const MAX_HEAD_LOOK = 300;

/**
 * Whether `head` (a sticky pattern) matches at `after`: true or false, or null while the
 * input may still become a match (it ends within `MAX_HEAD_LOOK` on what `prefix` accepts).
 */
function confirmedBy(head: RegExp, prefix: RegExp) {
  return (s: string, after: number, final: boolean): boolean | null => {
    head.lastIndex = after;
    if (head.test(s)) return true;
    return !final && s.length - after < MAX_HEAD_LOOK && prefix.test(s.slice(after)) ? null : false;
  };
}

/** `[` then a call's name and `(`. */
const pythonCallHead = confirmedBy(/\s*[A-Za-z_][\w.-]*\s*\(/y, /^\s*(?:[A-Za-z_][\w.-]*\s*)?$/);

/**
 * Llama 4's (and other pythonic models') calls: a Python list of calls, `[get_weather(city=
 * "Paris"), now()]`, as a line of its own or right after the reply's text (its template
 * writes the text, then the list). It opens only when a name and `(` follow the `[` (a
 * Markdown link or bracketed thinking does not).
 */
export const llama4: BlockReader = {
  open: '[',
  lineStart: pythonCallHead,
  midLine: pythonCallHead,
  stream: (sink, limits) => createJsonBodyStream(LLAMA4, sink, limits, true),
};

/** `name>{json}` or `name\n{json}` as the JSON list of the one call it is; null otherwise. */
function namedJson(separator: RegExp): (body: string) => string | null {
  return (body) => {
    const match = separator.exec(body);
    return match === null
      ? null
      : `[{"name": ${JSON.stringify(match[1])}, "arguments": ${match[2].trim() || '{}'}}]`;
  };
}

const FUNCTIONARY_TAG: JsonBodyForm = {
  format: 'functionary',
  open: '<function=',
  close: '</function>',
  toJson: namedJson(/^([A-Za-z_][\w.-]*)>([\s\S]*)$/),
  preview: (sink) => new NamedJsonPreview(sink, /^([A-Za-z_][\w.-]*)>\s*(?=\{)/),
};
const FUNCTIONARY_RECIPIENT: JsonBodyForm = {
  format: 'functionary',
  open: '>>>',
  close: '',
  toJson: namedJson(/^([A-Za-z_][\w.-]*)[ \t]*\r?\n([\s\S]*)$/),
  preview: (sink) => new NamedJsonPreview(sink, /^([A-Za-z_][\w.-]*)[ \t]*\r?\n\s*(?=\{)/),
};

/** After `<function=`: a name, `>` and a JSON object (functionary's; Qwen's has tags). */
export const functionJsonHead = confirmedBy(
  /[A-Za-z_][\w.-]*>\s*\{/y,
  /^(?:[A-Za-z_][\w.-]*(?:>\s*)?)?$/,
);
/** After `>>>`: a recipient and a newline (`all` is the model's text, not a call). */
const recipientHead = confirmedBy(
  /(?!all[ \t]*\r?\n)[A-Za-z_][\w.-]*[ \t]*\r?\n/y,
  /^(?:[A-Za-z_][\w.-]*[ \t]*\r?)?$/,
);

/**
 * MeetKai functionary's forms, as its templates write them: v3.1's `<function=name>{json}
 * </function>`, and v3.2's `>>>name` + a newline + a JSON object (`>>>all` is the model's
 * text). Both follow the reply's text or the last call in the same line, so each opens
 * anywhere its head (name, `>` and `{`; name and newline) confirms it.
 */
export const functionaryTag: BlockReader = {
  open: FUNCTIONARY_TAG.open,
  lineStart: functionJsonHead,
  midLine: functionJsonHead,
  stream: (sink, limits) => createJsonBodyStream(FUNCTIONARY_TAG, sink, limits, true),
};
export const functionaryRecipient: BlockReader = {
  open: FUNCTIONARY_RECIPIENT.open,
  lineStart: recipientHead,
  midLine: recipientHead,
  stream: (sink, limits) => createJsonBodyStream(FUNCTIONARY_RECIPIENT, sink, limits, true),
};

const JAMBA: JsonBodyForm = { format: 'jamba', open: '<tool_calls>', close: '</tool_calls>' };

/** AI21 Jamba's form: `<tool_calls>[{"name": …, "arguments": {…}}]</tool_calls>`. */
export const jamba: BlockReader = {
  open: JAMBA.open,
  anywhere: true,
  stream: (sink, limits) => createJsonBodyStream(JAMBA, sink, limits, true),
};

const GRANITE: JsonBodyForm = { format: 'granite', open: '<|tool_call|>', close: '' };

/** IBM Granite's form: `<|tool_call|>[{"name": …, "arguments": {…}}]`, ended by its JSON. */
export const granite: BlockReader = {
  open: GRANITE.open,
  anywhere: true,
  stream: (sink, limits) => createJsonBodyStream(GRANITE, sink, limits, true),
};

const PYTHON_TAG: JsonBodyForm = { format: 'llama3-json', open: '<|python_tag|>', close: '' };
const BARE_JSON: JsonBodyForm = {
  format: 'llama3-json',
  open: '{"name"',
  openIsBody: true,
  close: '',
};

/**
 * Llama 3.1 / 3.2 / 3.3's JSON calls: after `<|python_tag|>` (a special token, anywhere), or
 * a bare `{"name": …, "parameters": {…}}` object at a line start, as their templates ask for
 * (and as Qwen models write when they drop `<tool_call>`). Ended by the JSON value.
 */
export const llama3PythonTag: BlockReader = {
  open: PYTHON_TAG.open,
  anywhere: true,
  stream: (sink, limits) => createJsonBodyStream(PYTHON_TAG, sink, limits, true),
};
export const llama3BareJson: BlockReader = {
  open: BARE_JSON.open,
  stream: (sink, limits) => createJsonBodyStream(BARE_JSON, sink, limits, true),
};

const COMMAND_R7B: JsonBodyForm = {
  format: 'command-r7b',
  open: '<|START_ACTION|>',
  close: '<|END_ACTION|>',
};

/**
 * Cohere Command R7B's form: `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": …,
 * "parameters": {…}}, …]<|END_ACTION|>`.
 */
export const commandR7b: BlockReader = {
  open: COMMAND_R7B.open,
  anywhere: true,
  stream: (sink, limits) => createJsonBodyStream(COMMAND_R7B, sink, limits, true),
};
