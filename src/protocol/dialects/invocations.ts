import { createObject } from '../arguments-tree.js';
import type { CallFormat, JsonValue } from '../events.js';
import { type BlockCall, type BlockResult, type BlockWarning, failure } from './block.js';

/** An element that carries its name in its opening tag: `<invoke name="x">`, `<function=x>`. */
export interface NamedTag {
  /** What its opening tag starts with, to find candidates. */
  start: string;
  /** A sticky pattern for the whole opening tag, the name in group 1 (or 2). */
  pattern: RegExp;
  close: string;
}

export interface InvocationForm {
  format: CallFormat;
  open: string;
  close: string;
  call: NamedTag & { unnamed: string; unclosed: string };
  parameter: NamedTag & { unclosed: string };
  /** The parameter's name and value as the form wants them read. */
  key: (name: string) => string;
  value: (text: string) => string;
  /** The message when the block holds no call. */
  empty: string;
}

const nameOf = (match: RegExpExecArray) => match[1] ?? match[2];

const isBlank = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** The index of the first non-blank character at or after `at` (or `end`). */
function skipBlanks(s: string, at: number, end: number): number {
  while (at < end && isBlank(s.charCodeAt(at))) at++;
  return at;
}

/** Whether `at` begins a line (only spaces and tabs before it since the last newline). */
function atLineStart(s: string, at: number, from: number): boolean {
  for (let i = at - 1; i >= from; i--) {
    const c = s.charCodeAt(i);
    if (c === 0x0a) return true;
    if (c !== 0x20 && c !== 0x09) return false;
  }
  return true;
}

/**
 * The first `close` at or after `from` (before `end`) that is followed, blanks and newlines
 * allowed, by one of `next` or by `end` (itself a confirmed close): a closing tag is decided by
 * what follows it, so a value may hold its own format's closing tags. -1 when there is none.
 */
function confirmedClose(
  find: Finder,
  s: string,
  close: string,
  from: number,
  end: number,
  next: readonly string[],
): number {
  for (let at = find(from); at !== -1 && at < end; at = find(at + 1)) {
    const after = skipBlanks(s, at + close.length, end);
    if (after >= end || next.some((n) => s.startsWith(n, after))) return at;
  }
  return -1;
}

/** `s.indexOf(needle, from)`, remembering its last answer. */
type Finder = (from: number) => number;

/**
 * An `indexOf` for queries that mostly move forward: the last answer serves every query up to
 * it (and "none" serves every later query), so a block with thousands of unclosed parameters
 * is searched once, not once per parameter.
 */
function finder(s: string, needle: string): Finder {
  let lastFrom = Number.POSITIVE_INFINITY;
  let lastAt = -1;
  return (from) => {
    if (from >= lastFrom && (lastAt === -1 || lastAt >= from)) return lastAt;
    lastFrom = from;
    lastAt = s.indexOf(needle, from);
    return lastAt;
  };
}

/**
 * Reads a block of calls whose opening tags carry the tool's name, each holding parameters
 * whose opening tags carry theirs (Anthropic's `<invoke>` / `<parameter>`, Qwen3-Coder's
 * `<function=…>` / `<parameter=…>`).
 *
 * A parameter's closing tag counts when what follows it (blanks allowed) is the next
 * parameter, the call's or the block's close, or the end; otherwise it is part of the value.
 * What models get wrong is read with a warning: a parameter left open ends at the next
 * parameter that begins a line, or at the call's close (`unclosed-element`); a call left open
 * ends at the block's close (`unclosed-element`); a parameter given twice makes a list
 * (`duplicate-field`); a self-closing call (`<function=name/>`) has no arguments. Each call's
 * text ends after its closing tag, the last call's at the block's end.
 */
export function readInvocations(block: string, form: InvocationForm): BlockResult {
  const { call, parameter } = form;
  const calls: BlockCall[] = [];
  const warnings: BlockWarning[] = [];
  const bodyEnd = block.length - form.close.length;
  const warn = (code: BlockWarning['code'], message: string, position: number) =>
    warnings.push({ code, message, position, call: calls.length });
  const callCloses = finder(block, call.close);
  const parameterCloses = finder(block, parameter.close);
  const parameterStarts = finder(block, parameter.start);
  let at = form.open.length;
  for (;;) {
    const next = block.indexOf(call.start, at);
    if (next === -1 || next >= bodyEnd) break;
    call.pattern.lastIndex = next;
    const opening = call.pattern.exec(block);
    if (opening === null) return failure('missing-tool-name', call.unnamed, next);
    const name = nameOf(opening).trim();
    const openEnd = call.pattern.lastIndex;
    if (name.endsWith('/')) {
      // `<function=get_time/>`: a call without arguments and without a closing tag.
      at = openEnd;
      calls.push({
        serverName: 'local',
        toolName: name.slice(0, -1).trim(),
        arguments: createObject(),
        end: at,
      });
      continue;
    }
    let close = confirmedClose(callCloses, block, call.close, openEnd, bodyEnd, [
      call.start,
      form.close,
    ]);
    if (close === -1) {
      if (form.close === '') return failure('incomplete-tool-call', call.unclosed, next);
      warn('unclosed-element', `${call.unclosed}; it ends at ${form.close}`, bodyEnd);
      close = bodyEnd;
    }
    const args = createObject();
    const seen = new Set<string>();
    const lists = new Set<string>();
    let p = openEnd;
    for (;;) {
      const start = parameterStarts(p);
      if (start === -1 || start >= close) break;
      parameter.pattern.lastIndex = start;
      const named = parameter.pattern.exec(block);
      if (named === null) {
        p = start + 1;
        continue;
      }
      const valueStart = parameter.pattern.lastIndex;
      // Followed by the next parameter, or by the call's own (confirmed) close at `close`.
      const confirmed = confirmedClose(parameterCloses, block, parameter.close, valueStart, close, [
        parameter.start,
      ]);
      // The next parameter that begins a line, if it comes first, means this one was left open.
      let following = parameterStarts(valueStart);
      while (following !== -1 && following < close && !atLineStart(block, following, valueStart))
        following = parameterStarts(following + 1);
      if (following >= close) following = -1;
      let valueEnd: number;
      if (confirmed !== -1 && (following === -1 || confirmed < following)) {
        valueEnd = confirmed;
        p = confirmed + parameter.close.length;
      } else {
        valueEnd = following === -1 ? close : following;
        p = valueEnd;
        warn(
          'unclosed-element',
          `${parameter.unclosed}; it ends at the next ${following === -1 ? call.close : parameter.start}`,
          start,
        );
      }
      const key = form.key(nameOf(named));
      const value = form.value(block.slice(valueStart, valueEnd));
      if (seen.has(key)) {
        // Appended in place: copying the list for each repeat is quadratic.
        if (lists.has(key)) (args[key] as JsonValue[]).push(value);
        else {
          args[key] = [args[key] as JsonValue, value];
          lists.add(key);
        }
        warn(
          'duplicate-field',
          `parameter ${JSON.stringify(key)} is given more than once; its values make a list`,
          start,
        );
      } else {
        args[key] = value;
        seen.add(key);
      }
    }
    at = close === bodyEnd ? bodyEnd : close + call.close.length;
    calls.push({ serverName: 'local', toolName: name, arguments: args, end: at });
  }
  if (calls.length === 0) return failure('missing-tool-name', form.empty, 0);
  calls[calls.length - 1].end = block.length;
  return { ok: true, format: form.format, calls, warnings };
}
