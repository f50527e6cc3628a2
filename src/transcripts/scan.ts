import type { Message } from '../messages/index.js';
import {
  type CallFormat,
  createParser,
  type Dialect,
  type ParserEvent,
  type ToolArguments,
} from '../protocol/index.js';
import { plainOpenAIMessages, recordMessages, type TranscriptFormat } from './formats.js';

/**
 * How a transcript is laid out, told from its first line: JSONL when that line parses, a JSON
 * document when it only opens one (`{`, `[`, `{"`, `[{`), text otherwise (a reply may begin
 * with `[thinking]` or `{`).
 */
export function layoutOf(firstLine: string): 'text' | 'jsonl' | 'json' {
  const opening = firstLine.trim();
  if (opening[0] !== '{' && opening[0] !== '[') return 'text';
  try {
    JSON.parse(firstLine);
    return 'jsonl';
  } catch {
    return /^(\{|\[)\s*$|^\{\s*"|^\[\s*[{[]/.test(opening) ? 'json' : 'text';
  }
}

export interface ScanOptions {
  dialect?: Dialect | 'auto';
  /** Tool names, for the `cline` dialect (and `auto`). */
  toolNames?: readonly string[];
  /** How records are read; default: told from the content (text, JSON or JSONL, and shape). */
  input?: TranscriptFormat;
  /**
   * A JSON document (not JSONL) is read whole, and a JSONL record a line at a time: larger
   * ones are refused (`document-too-large`), so memory stays bounded. Default 256 MiB.
   */
  maxDocumentChars?: number;
  /**
   * The line number the input's first line has in the file it was cut from (a byte range of
   * a JSONL log, or standard input fed a part of one), so that lines and call ids are the
   * whole file's. Default 1.
   */
  firstLine?: number;
  /** The input is JSONL whatever its first line says (a byte range of a JSONL log). */
  jsonl?: boolean;
}

/**
 * Where a finding is. Text input: `line` and `offset` in the file. JSONL: `line` is the
 * record's line, `messageIndex` the message's index in it, `offset` the place in that
 * message's text. A JSON document: `messageIndex` and `offset`.
 */
export interface Location {
  file: string;
  line?: number;
  messageIndex?: number;
  offset: number;
}

export type Finding =
  | (Location & {
      type: 'call';
      id: string;
      serverName: string;
      toolName: string;
      arguments: ToolArguments;
      /** `structured`: a call the log holds as data (native tool calls, tagcall's audit log). */
      format: CallFormat | 'structured';
      /** Size of the call as written (its raw text, or its arguments' JSON when structured). */
      chars: number;
      durationMs?: number;
    })
  /** `format`: the form a malformed call was written in (parse errors; none for a record's). */
  | (Location & { type: 'error'; code: string; message: string; format?: CallFormat })
  | (Location & { type: 'warning'; code: string; message: string })
  /**
   * A call inside a user message or a tool result (`quoted`: shown, not made), or inside a
   * system message (`example`: the prompt teaching the model how to call).
   */
  | (Location & { type: 'quoted' | 'example'; toolName: string; format: CallFormat });

export interface ScanSink {
  finding(finding: Finding): void;
  /** Characters an assistant wrote, as text (calls included) and as thinking. */
  assistant(textChars: number, thinkingChars: number): void;
  /** An assistant message begins, on `line` of the file (none in a JSON document). */
  message?(line: number | undefined): void;
  /** A tool result marked as an error (a structured log): the call to `toolName` failed. */
  failed?(toolName: string): void;
}

/**
 * `fields` at `offset` of what `location` names, built property by property: an object
 * literal that begins with a spread (`{...location, …}`) took 1.9 µs in V8, this 75 ns, and
 * mining builds one per finding and per message.
 */
function located<T extends object>(
  location: Omit<Location, 'offset'>,
  offset: number,
  fields: T,
): Location & T {
  const found = { file: location.file } as Location & T;
  if (location.line !== undefined) found.line = location.line;
  if (location.messageIndex !== undefined) found.messageIndex = location.messageIndex;
  found.offset = offset;
  return Object.assign(found, fields);
}

const countLines = (s: string): number => {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
};

/**
 * Reads one transcript (a file or standard input, as text chunks) and tells what is in it:
 * every call an assistant made, the malformed ones, the quoted ones, and how much was
 * thinking. Streams: text and JSONL use memory for one line or one record at a time.
 */
export async function scanTranscript(
  chunks: AsyncIterable<string>,
  file: string,
  options: ScanOptions,
  sink: ScanSink,
): Promise<void> {
  // One parser for the whole scan, pointed at the text being read.
  let where: Location = { file, offset: 0 };
  let assistant = true;
  /** Whether the text being read is a system message's (its calls are examples). */
  let system = false;
  let lines = 0;
  let textChars = 0;
  let thinkingChars = 0;
  let callCount = 0;
  // Calls without an id of their own are named `FILE#n` in a reply; in a JSONL record
  // `FILE:LINE#n`, n counted within the record, so a reader of any part of the log names them
  // as a reader of the whole does.
  let idPrefix = file;
  const trackLines = () => where.line !== undefined && where.messageIndex === undefined;
  /** A finding at `offset` of the text being read (in a text file, on the line it is on). */
  const at = <T extends object>(offset: number, fields: T): Location & T => {
    const found = located(where, where.offset + offset, fields);
    if (trackLines()) found.line = (where.line ?? 1) + lines;
    return found;
  };
  const onEvent = (event: ParserEvent) => {
    switch (event.type) {
      case 'text':
        textChars += event.text.length;
        if (trackLines()) lines += countLines(event.text);
        break;
      case 'thinking-delta':
        thinkingChars += event.text.length;
        if (trackLines()) lines += countLines(event.text);
        break;
      case 'tool-end': {
        const call = event.call;
        if (assistant)
          sink.finding(
            at(call.start, {
              type: 'call' as const,
              id: `${idPrefix}#${callCount++}`,
              serverName: call.serverName,
              toolName: call.toolName,
              arguments: call.arguments,
              format: call.format,
              chars: call.raw.length,
            }),
          );
        else
          sink.finding(
            at(call.start, {
              type: system ? ('example' as const) : ('quoted' as const),
              toolName: call.toolName,
              format: call.format,
            }),
          );
        textChars += call.raw.length;
        if (trackLines()) lines += countLines(call.raw);
        break;
      }
      case 'error':
        if (assistant)
          sink.finding(
            at(event.offset, {
              type: event.type,
              code: event.code,
              message: event.message,
              format: event.format,
            }),
          );
        break;
      case 'warning':
        if (assistant)
          sink.finding(
            at(event.offset, { type: event.type, code: event.code, message: event.message }),
          );
        break;
      default:
        break;
    }
  };
  const parser = createParser({
    onEvent,
    dialect: options.dialect,
    toolNames: options.toolNames,
    prefilledThinking: 'never',
  });
  /** Text from `location` on, written by an assistant or not, fed to the parser in chunks. */
  const beginText = (location: Location, role: string) => {
    where = location;
    assistant = role === 'assistant';
    system = role === 'system';
    lines = 0;
  };
  const endText = () => {
    parser.end();
    if (assistant && (textChars > 0 || thinkingChars > 0)) sink.assistant(textChars, thinkingChars);
    textChars = 0;
    thinkingChars = 0;
  };
  /** Text written by `role` (`assistant`, `system`, `user`, `tool`). */
  const scanText = (text: string, location: Location, role: string) => {
    beginText(location, role);
    parser.feed(text);
    endText();
  };
  /** A record or document that cannot be read as messages. */
  const problem = (
    location: Omit<Location, 'offset'>,
    type: 'error' | 'warning',
    code: string,
    message: string,
  ) => sink.finding(located(location, 0, { type, code, message }));

  const scanMessage = (message: Message, location: Omit<Location, 'offset'>) => {
    const byAssistant = message.role === 'assistant';
    if (byAssistant) sink.message?.(location.line);
    let offset = 0;
    for (const part of message.parts) {
      if (part.kind === 'text') {
        scanText(part.text, located(location, offset, {}), message.role);
        offset += part.text.length;
      } else if (part.kind === 'tool-result') {
        if (part.isError) sink.failed?.(part.toolName);
        scanText(part.output, located(location, 0, {}), 'tool');
      } else if (part.kind === 'thinking' && byAssistant) {
        sink.assistant(0, part.text.length);
      } else if (part.kind === 'tool-call' && byAssistant) {
        const json = JSON.stringify(part.arguments);
        const duration =
          part.durationMs ??
          (part.startedAt !== undefined && part.endedAt !== undefined
            ? Date.parse(part.endedAt) - Date.parse(part.startedAt)
            : Number.NaN);
        const call = located(location, offset, {
          type: 'call' as const,
          id: part.id,
          serverName: part.serverName,
          toolName: part.toolName,
          arguments: part.arguments,
          format: 'structured' as const,
          chars: json.length,
        });
        if (Number.isFinite(duration)) (call as { durationMs?: number }).durationMs = duration;
        sink.finding(call);
      }
    }
  };

  const forced = options.input === 'text' ? undefined : options.input;
  const scanRecord = (json: string, location: Omit<Location, 'offset'>) => {
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch (error) {
      problem(location, 'error', 'invalid-record', (error as Error).message);
      return;
    }
    scanValue(value, location);
  };
  const scanValue = (value: unknown, location: Omit<Location, 'offset'>) => {
    const plain = plainOpenAIMessages(value, forced);
    if (plain !== null) {
      // As scanMessage reads the one text part of each (an empty text holds nothing).
      plain.forEach((m, i) => {
        if (m.role === 'assistant') sink.message?.(location.line);
        if (m.text === '') return;
        const at = { file: location.file, line: location.line, messageIndex: i, offset: 0 };
        scanText(m.text, at, m.role);
      });
      return;
    }
    let record: ReturnType<typeof recordMessages>;
    try {
      record = recordMessages(value, forced);
    } catch {
      // A shape close to a format but not of it (a message whose parts are no list): said in
      // the reader's words, not as the error a conversion ran into.
      problem(
        location,
        'error',
        'invalid-record',
        `the record looks like ${forced ?? 'a transcript'} but does not read as one (a field of the wrong type)`,
      );
      return;
    }
    if (record === null) {
      problem(
        location,
        'warning',
        'unrecognized-record',
        'the record holds no messages in a known format (OpenAI, Anthropic, audit log, tagcall thread)',
      );
      return;
    }
    record.messages.forEach((message, i) => {
      scanMessage(message, { file: location.file, line: location.line, messageIndex: i });
    });
  };

  // Decide text, JSON or JSONL from the first line: text as soon as it does not begin with
  // `{` or `[`; else the whole first line (a JSONL record can be long), within the limit.
  const limit = options.maxDocumentChars ?? 256 * 1024 * 1024;
  const head: string[] = [];
  let headLength = 0;
  const iterator = chunks[Symbol.asyncIterator]();
  let ended = false;
  let leadChar: string | undefined;
  for (;;) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    head.push(next.value);
    headLength += next.value.length;
    if (leadChar === undefined) leadChar = next.value.trimStart()[0];
    if (leadChar !== undefined && leadChar !== '{' && leadChar !== '[') break;
    if (next.value.includes('\n') || headLength > limit) break;
  }
  // A first line over the limit cannot be read, and a JSON document that long is not read
  // either: it is a JSONL record, skipped as any other, and the lines after it are read. Its
  // text is dropped as it comes (never joined), so memory stays within the limit.
  const lastChunk = head.at(-1) ?? '';
  const lastNewline = lastChunk.indexOf('\n');
  const firstLineLength =
    lastNewline === -1 ? headLength : headLength - lastChunk.length + lastNewline;
  const firstTooLong =
    options.input !== 'text' && (leadChar === '{' || leadChar === '[') && firstLineLength > limit;
  const start = firstTooLong
    ? lastNewline === -1
      ? ''
      : lastChunk.slice(lastNewline)
    : head.join('');
  head.length = 0;
  const firstLine = start.slice(0, (start.indexOf('\n') + 1 || start.length + 1) - 1);
  const mode =
    options.input === 'text'
      ? 'text'
      : options.jsonl === true || firstTooLong
        ? 'jsonl'
        : layoutOf(firstLine);
  const firstLineNumber = options.firstLine ?? 1;
  async function* rest(): AsyncGenerator<string> {
    if (start !== '') yield start;
    if (!ended)
      for (let n = await iterator.next(); !n.done; n = await iterator.next()) yield n.value;
  }

  if (mode === 'text') {
    sink.message?.(firstLineNumber);
    beginText({ file, line: firstLineNumber, offset: 0 }, 'assistant');
    for await (const chunk of rest()) parser.feed(chunk);
    endText();
    return;
  }
  if (mode === 'json') {
    const pieces: string[] = [];
    let length = 0;
    for await (const chunk of rest()) {
      length += chunk.length;
      if (length > limit) {
        problem(
          { file },
          'error',
          'document-too-large',
          `a JSON document over ${limit} characters is not read whole; write it as JSONL (one record per line)`,
        );
        return;
      }
      pieces.push(chunk);
    }
    const text = pieces.join('');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // It only looked like JSON: it is a reply.
      sink.message?.(1);
      scanText(text, { file, line: 1, offset: 0 }, 'assistant');
      return;
    }
    // An array of conversations is read one by one; anything else is one record.
    const conversations =
      Array.isArray(value) &&
      value.length > 0 &&
      value.every((v) => Array.isArray((v as { messages?: unknown })?.messages))
        ? value
        : [value];
    for (const conversation of conversations) scanValue(conversation, { file });
    return;
  }
  // JSONL: one record a line, a line at a time; a line longer than the limit is skipped.
  let line = firstLineNumber - 1;
  const record = (text: string) => {
    idPrefix = `${file}:${line + 1}`;
    callCount = 0;
    scanRecord(text, { file, line: line + 1 });
  };
  let partial: string[] = [];
  let partialLength = 0;
  const tooLong = () =>
    problem(
      { file, line: line + 1 },
      'error',
      'document-too-large',
      `a record over ${limit} characters is skipped`,
    );
  // The rest of an over-long first line (or none: its newline) is what comes first.
  let skipping = firstTooLong;
  if (skipping) tooLong();
  for await (const chunk of rest()) {
    let from = 0;
    for (let nl = chunk.indexOf('\n'); nl !== -1; nl = chunk.indexOf('\n', from)) {
      if (!skipping) {
        partial.push(chunk.slice(from, nl));
        const text = partial.length === 1 ? partial[0] : partial.join('');
        if (text.length > limit) tooLong();
        else if (text.trim() !== '') record(text);
      }
      partial = [];
      partialLength = 0;
      skipping = false;
      line++;
      from = nl + 1;
    }
    if (from < chunk.length && !skipping) {
      partial.push(chunk.slice(from));
      partialLength += chunk.length - from;
      if (partialLength > limit) {
        tooLong();
        skipping = true;
        partial = [];
        partialLength = 0;
      }
    }
  }
  const last = partial.join('');
  if (!skipping && last.trim() !== '') record(last);
}
