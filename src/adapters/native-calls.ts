import { randomUUID } from 'node:crypto';
import { functionName } from '../messages/index.js';
import {
  createParser,
  type ParserEvent,
  type ParserOptions,
  type ToolCall,
} from '../protocol/index.js';
import { coerceArguments, type JsonSchema } from '../tools/index.js';
import { ArgumentsJsonWriter } from './arguments-json.js';

/** A tool as native tool-calling APIs declare it: a name and a JSON Schema, no server. */
export interface NativeTool {
  name: string;
  description?: string;
  inputSchema: JsonSchema;
}

/** What a reply written in the text protocol is, told the way native tool calling tells it. */
export type NativeEvent =
  | { type: 'text'; text: string }
  | { type: 'reasoning-start' }
  | { type: 'reasoning'; text: string }
  | { type: 'reasoning-end' }
  | { type: 'call-start'; id: string; name: string }
  /** A fragment of the arguments' JSON; the fragments of a call concatenate to its JSON. */
  | { type: 'call-delta'; id: string; json: string }
  /** `json` is the last fragment; `argumentsJson` the whole, for non-streaming answers. */
  | { type: 'call-end'; id: string; name: string; json: string; argumentsJson: string }
  /** The call could not be read; `json` closes its arguments, its text comes back as text. */
  | { type: 'call-failed'; id: string; name: string; json: string; message: string };

export interface NativeCallsOptions {
  tools: readonly NativeTool[];
  /** Call ids are `${idPrefix}${n}`; default `call_` and eight random hex digits and `_`. */
  idPrefix?: string;
  /** Split thinking out as reasoning (default); false drops it. */
  reasoning?: boolean;
  parser?: Omit<ParserOptions, 'onEvent'>;
  /**
   * Only calls of the tools in `tools` are calls: a call of any other tool (or of any tool,
   * with an empty list: `tool_choice: "none"`) comes back as its text, as written, and is
   * never offered for execution. Default false (every call is told).
   */
  onlyListed?: boolean;
  /**
   * At most this many calls are told (`parallel_tool_calls: false`: 1); a call after them
   * comes back as its text, as written, and is never offered for execution. Default: no limit.
   */
  maxCalls?: number;
}

export interface NativeCalls {
  feed(text: string): void;
  /**
   * The reply is over. `cutShort`: the model was stopped by its token limit (`finish_reason:
   * "length"`), so a call left unclosed at the end is no call: the parser reads one whose
   * content looks complete as a call (servers strip stop tokens), but a reply cut by the limit
   * may have been cut between two arguments. It fails, and its text comes back as text.
   */
  end(options?: { cutShort?: boolean }): void;
  /** How many calls ended well so far (a reply with calls finishes with `tool_calls`). */
  readonly calls: number;
}

/**
 * Reads a reply in the text protocol as it streams and tells it as native tool calling does:
 * text, reasoning, and calls by name with their arguments as streamed JSON (coerced to each
 * tool's schema at the end). A tool the model calls on a server other than `local` is named
 * `server__tool` unless the list has a tool of that bare name.
 */
export function createNativeCalls(
  options: NativeCallsOptions,
  emit: (event: NativeEvent) => void,
): NativeCalls {
  const schemas = new Map(options.tools.map((t) => [t.name, t.inputSchema]));
  const prefix = options.idPrefix ?? `call_${randomUUID().slice(0, 8)}_`;
  const reasoning = options.reasoning ?? true;
  const open = new Map<string, { id: string; name: string; writer: ArgumentsJsonWriter }>();
  /** Parser ids of calls of tools not listed (with `onlyListed`): their text is text. */
  const unlisted = new Set<string>();
  /** Whether the reply was cut by the token limit (told at `end`). */
  let cutShort = false;
  /** Parser ids of calls left unclosed at the end of a reply cut short. */
  const cutOff = new Set<string>();
  let count = 0;

  const nameOf = (serverName: string, toolName: string) =>
    schemas.has(toolName) ? toolName : functionName(serverName, toolName);

  const listed = (parserId: string, name: string) => {
    const overLimit = options.maxCalls !== undefined && native.calls >= options.maxCalls;
    if (!overLimit && (options.onlyListed !== true || schemas.has(name))) return true;
    unlisted.add(parserId);
    return false;
  };

  const start = (parserId: string, name: string) => {
    let call = open.get(parserId);
    if (call === undefined) {
      call = {
        id: `${prefix}${count++}`,
        name,
        writer: new ArgumentsJsonWriter(schemas.get(name)),
      };
      open.set(parserId, call);
      emit({ type: 'call-start', id: call.id, name });
    }
    return call;
  };

  /** The call the parser knows as `parserId` is no call: a told start is closed as failed. */
  const fail = (parserId: string, message: string) => {
    const call = open.get(parserId);
    if (call === undefined) return;
    open.delete(parserId);
    emit({
      type: 'call-failed',
      id: call.id,
      name: call.name,
      json: call.writer.abandon(),
      message,
    });
  };

  const finish = (done: ToolCall) => {
    if (unlisted.delete(done.id)) {
      emit({ type: 'text', text: done.raw });
      return;
    }
    if (cutOff.delete(done.id)) {
      fail(done.id, 'the reply reached its token limit inside the call');
      emit({ type: 'text', text: done.raw });
      return;
    }
    const call = start(done.id, nameOf(done.serverName, done.toolName));
    open.delete(done.id);
    const schema = schemas.get(call.name);
    const final = schema === undefined ? done.arguments : coerceArguments(done.arguments, schema);
    const json = call.writer.finish(final);
    native.calls++;
    emit({
      type: 'call-end',
      id: call.id,
      name: call.name,
      json,
      argumentsJson: JSON.stringify(final),
    });
  };

  const onEvent = (event: ParserEvent) => {
    switch (event.type) {
      case 'text':
        emit({ type: 'text', text: event.text });
        break;
      case 'thinking-start':
        if (reasoning) emit({ type: 'reasoning-start' });
        break;
      case 'thinking-delta':
        if (reasoning) emit({ type: 'reasoning', text: event.text });
        break;
      case 'thinking-end':
        if (reasoning) emit({ type: 'reasoning-end' });
        break;
      case 'tool-name': {
        if (unlisted.has(event.id)) break;
        const name = nameOf(event.serverName, event.toolName);
        if (open.has(event.id) || listed(event.id, name)) start(event.id, name);
        break;
      }
      case 'argument-delta': {
        const call = open.get(event.id);
        const json = call?.writer.delta(event.path, event.text) ?? '';
        if (call !== undefined && json !== '') emit({ type: 'call-delta', id: call.id, json });
        break;
      }
      case 'warning':
        if (cutShort && event.code === 'unclosed-call-at-end' && event.callId !== undefined)
          cutOff.add(event.callId);
        break;
      case 'tool-end':
        finish(event.call);
        break;
      case 'error':
        if (event.callId !== undefined) {
          unlisted.delete(event.callId);
          fail(event.callId, event.message);
        }
        break;
      default:
        break;
    }
  };

  const parser = createParser({ ...options.parser, onEvent });
  // A plain count, not a getter: a getter in a literal is a new closure each time, so each
  // reply's object got a hidden class of its own, which (living in the old generation) kept
  // the reply's parser alive past every minor collection: 19 µs a short reply, now 5.
  const native = {
    feed: (text: string) => parser.feed(text),
    end: (endOptions?: { cutShort?: boolean }) => {
      cutShort = endOptions?.cutShort === true;
      parser.end();
    },
    calls: 0,
  };
  return native;
}
