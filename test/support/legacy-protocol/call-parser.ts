import {
  type ArgumentSchema,
  type ArgumentsTree,
  createArgumentsTree,
  FrameKind,
} from './arguments-tree.js';
import { CDATA_OPEN, unwrapCdata } from './cdata.js';
import {
  Char,
  isHighSurrogate,
  isLineEnd,
  isNameStart,
  isSpaceOrTab,
  isWhitespace,
} from './chars.js';
import { decodeEntities, LITERAL, NEED_MORE, readEntity } from './entities.js';
import type {
  ArgumentPath,
  CallFormat,
  ParseErrorCode,
  ParserEvent,
  ParseWarningCode,
  ToolArguments,
} from './events.js';
import { readJsonCall } from './json-call.js';
import { JsonFormBody, JsonFormEnd } from './json-form.js';
import { createPieces, joinPieces, pushPiece } from './pieces.js';
import { readTag, startsWithAt, type Tag, TagKind } from './tag.js';

export enum CallStatus {
  Open = 0,
  /** The block closed and reads as a call. */
  Done = 1,
  /** The block closed (or hit a limit) but is no call: see `failure`. */
  Failed = 2,
  /** A new `<tool>` opened where the current block expected its children: it never closed. */
  Restart = 3,
}

enum State {
  ToolLevel = 0,
  NameField = 1,
  Arguments = 2,
  Cdata = 3,
  Json = 4,
  JsonTail = 5,
}

/** `closeTarget` results besides an element's depth (0 is `</arguments>`). */
const CLOSES_TOOL = -1;
const NOT_OPEN = -2;

/** Which open element a closing tag inside a string value would close. */
function closeTarget(t: ArgumentsTree, name: string): number {
  const depth = t.depthOf(name);
  if (depth > 0) return depth;
  if (name === 'arguments') return 0;
  return name === 'tool' ? CLOSES_TOOL : NOT_OPEN;
}

/**
 * Whether every `<` in `chunk` is text whatever follows the chunk: the character after it,
 * in the chunk, can begin no tag, CDATA or closing tag (`a < b`, `i<=n`, `x<3`). Code in a
 * value is full of them; each sent the chunk through the full state machine.
 */
function literalAngles(chunk: string): boolean {
  for (let k = chunk.indexOf('<'); k !== -1; k = chunk.indexOf('<', k + 1)) {
    if (k + 1 >= chunk.length) return false;
    const next = chunk.charCodeAt(k + 1);
    if (isNameStart(next) || next === Char.Slash || next === Char.Bang) return false;
  }
  return true;
}

/** How far past a candidate closing tag the parser looks for what confirms it. */
const MAX_CONFIRM_WHITESPACE = 256;
const TOOL_CLOSE = '</tool>';

export interface CallParserOptions {
  maxDepth: number;
  schemas: Readonly<Record<string, ArgumentSchema>> | undefined;
}

export interface CallFailure {
  code: ParseErrorCode;
  message: string;
  /** Absolute offset the failure points at. */
  offset: number;
}

/**
 * Reads one tool block, from just after `<tool>` to its end, as a state machine over the
 * parser's buffer. `run` consumes what it can and returns where it stopped; the caller keeps
 * the rest for the next chunk, so the outcome never depends on how the input was split.
 */
export function createCallParser(options: CallParserOptions, emit: (event: ParserEvent) => void) {
  let id = '';
  let state = State.ToolLevel;
  let status = CallStatus.Open;
  let format: CallFormat = 'xml';
  let serverName: string | undefined;
  let toolName: string | undefined;
  /** One tree serves every call of the stream: `tree` is it while the current call has arguments. */
  const sharedTree = createArgumentsTree(onDelta);
  let tree: ArgumentsTree | null = null;
  /** `<arguments>` was opened explicitly (not implied by an argument written outside it). */
  let argumentsOpen = false;
  let sawChild = false;
  let strayWarned = false;
  let failure: CallFailure | null = null;

  let fieldName = '';
  /** The name field's text so far, gathered as a value is (a hostile one can be megabytes). */
  let fieldText = createPieces();
  const jsonBody = new JsonFormBody();
  let jsonArguments: ToolArguments | null = null;
  let jsonEndOffset = 0;
  let fieldOffset = 0;

  // Argument deltas are merged per path until something else is emitted: one event per run
  // per argument, instead of one per text run between entities.
  let deltaPath: ArgumentPath | null = null;
  let deltaText = '';

  const tag: Tag = { kind: TagKind.None, name: '', length: 0 };
  /** The tag after a candidate closing tag, read to confirm it (`tag` still holds the close). */
  const nextTag: Tag = { kind: TagKind.None, name: '', length: 0 };
  /** Absolute offset of `nextTag` when it was read whole, else -1: the next step reads it. */
  let nextTagAt = -1;
  const decoded = { text: '' };

  /** Resets every field for the block that starts now (one parser per stream, not per call). */
  function begin(callId: string): void {
    id = callId;
    state = State.ToolLevel;
    status = CallStatus.Open;
    format = 'xml';
    serverName = undefined;
    toolName = undefined;
    tree = null;
    argumentsOpen = false;
    sawChild = false;
    strayWarned = false;
    failure = null;
    fieldText = createPieces();
    nextTagAt = -1;
    jsonArguments = null;
    deltaPath = null;
    deltaText = '';
  }

  /** Changes when the innermost element opens, closes or shows its kind: that is progress. */
  function shape(): number {
    return tree === null ? -1 : tree.version;
  }

  function flushDelta(): void {
    if (deltaPath !== null && deltaText !== '') {
      emit({ type: 'argument-delta', id, path: deltaPath, text: deltaText });
    }
    deltaPath = null;
    deltaText = '';
  }

  function onDelta(path: ArgumentPath, text: string): void {
    if (path !== deltaPath) {
      flushDelta();
      deltaPath = path;
    }
    deltaText += text;
  }

  function warn(code: ParseWarningCode, message: string, offset: number): void {
    flushDelta();
    emit({ type: 'warning', code, message, offset, callId: id });
  }

  function fail(code: ParseErrorCode, message: string, offset: number): void {
    flushDelta();
    status = CallStatus.Failed;
    failure = { code, message, offset };
  }

  function ensureTree(): ArgumentsTree {
    if (tree === null) {
      sharedTree.reset(toolName === undefined ? undefined : options.schemas?.[toolName]);
      tree = sharedTree;
    }
    return tree;
  }

  function strayText(offset: number): void {
    if (strayWarned) return;
    strayWarned = true;
    warn('stray-text', 'text between the elements of a tool block is ignored', offset);
  }

  function openElement(t: ArgumentsTree, name: string, empty: boolean, offset: number): boolean {
    if (t.depth >= options.maxDepth) {
      fail(
        'max-depth-exceeded',
        `arguments nest deeper than ${options.maxDepth} elements; flatten the arguments`,
        offset,
      );
      return false;
    }
    t.open(name);
    if (empty) t.close();
    return true;
  }

  /** Closes open elements down to and including the one at `depth`, warning for inner ones. */
  function closeTo(t: ArgumentsTree, depth: number, offset: number): void {
    while (t.depth > depth) {
      warn(
        'unclosed-element',
        `<${t.top.name}> was not closed before an enclosing closing tag`,
        offset,
      );
      t.close();
    }
    if (depth > 0) t.close();
  }

  /** Ends the arguments at `</arguments>` or `</tool>`: inner open elements close with a warning. */
  function endArguments(t: ArgumentsTree, offset: number): void {
    closeTo(t, 0, offset);
    argumentsOpen = false;
  }

  function finishNameField(): void {
    const raw = joinPieces(fieldText);
    fieldText = createPieces();
    const unwrapped = raw.indexOf('<') === -1 ? raw : unwrapCdata(raw);
    const value = decodeEntities(unwrapped).trim();
    const previous = fieldName === 'tool_name' ? toolName : serverName;
    if (previous !== undefined) {
      warn('duplicate-field', `<${fieldName}> is given twice; the last one counts`, fieldOffset);
    }
    if (fieldName === 'tool_name') toolName = value;
    else serverName = value;
    if (toolName !== undefined) {
      flushDelta();
      emit({ type: 'tool-name', id, serverName: serverName ?? 'local', toolName });
    }
  }

  /**
   * Decides whether the closing tag at `at` (already read into `tag`, `targetDepth` is the
   * element it would close, 0 for `</arguments>`, `CLOSES_TOOL` for `</tool>`) ends the element, or is
   * text inside a string value (`</content>` inside code). It ends it when what follows is a
   * sibling's opening tag, an enclosing element's closing tag, or the end of the input.
   * Returns 1 (ends), 0 (text) or -1 (input ended before deciding).
   */
  function confirmClose(
    buf: string,
    at: number,
    length: number,
    targetDepth: number,
    offset: number,
    final: boolean,
  ): number {
    const t = tree as ArgumentsTree;
    let k = at + length;
    const n = buf.length;
    const limit = k + MAX_CONFIRM_WHITESPACE;
    if (targetDepth === CLOSES_TOOL) {
      while (k < n && k < limit && isSpaceOrTab(buf.charCodeAt(k))) k++;
      if (k >= limit) return 0;
      if (k >= n) return final ? 1 : -1;
      const c = buf.charCodeAt(k);
      return isLineEnd(c) ? 1 : 0;
    }
    while (k < n && k < limit && isWhitespace(buf.charCodeAt(k))) k++;
    if (k >= limit) return 0;
    if (k >= n) return final ? 1 : -1;
    if (buf.charCodeAt(k) !== Char.Lt) return 0;
    const next = readTag(buf, k, final, nextTag);
    nextTagAt = next.kind === TagKind.NeedMore ? -1 : offset + k;
    if (next.kind === TagKind.NeedMore) return -1;
    if (next.kind === TagKind.Open || next.kind === TagKind.Empty) return 1;
    if (next.kind !== TagKind.Close) return 0;
    if (next.name === 'tool' || next.name === 'arguments') return 1;
    return t.depthOf(next.name, targetDepth) > 0 ? 1 : 0;
  }

  /** In a string value: runs of text, references, CDATA, and candidate closing tags. */
  function runString(
    t: ArgumentsTree,
    buf: string,
    i: number,
    offset: number,
    final: boolean,
  ): number {
    const n = buf.length;
    while (i < n) {
      let j = i;
      while (j < n) {
        const c = buf.charCodeAt(j);
        if (c === Char.Lt || c === Char.Amp) break;
        j++;
      }
      // A high surrogate at the end waits for its pair: no delta splits a code point.
      if (j === n && !final && j > i && isHighSurrogate(buf.charCodeAt(j - 1))) j--;
      if (j > i) t.text(buf.slice(i, j));
      i = j;
      if (i >= n) return i;
      if (buf.charCodeAt(i) !== Char.Lt && buf.charCodeAt(i) !== Char.Amp) return i;
      if (buf.charCodeAt(i) === Char.Amp) {
        const length = readEntity(buf, i, final, decoded);
        if (length === NEED_MORE) return i;
        if (length === LITERAL) {
          t.text('&');
          i++;
        } else {
          t.text(decoded.text);
          i += length;
        }
        continue;
      }
      const cdata = startsWithAt(buf, i, CDATA_OPEN);
      if (cdata === null && !final) return i;
      if (cdata === true) {
        state = State.Cdata;
        return i + CDATA_OPEN.length;
      }
      readTag(buf, i, final, tag);
      if (tag.kind === TagKind.NeedMore) return i;
      if (tag.kind === TagKind.Close) {
        const target = closeTarget(t, tag.name);
        if (target !== NOT_OPEN) {
          const decision = confirmClose(buf, i, tag.length, target, offset, final);
          if (decision === -1) return i;
          if (decision === 1) {
            const at = offset + i;
            i += tag.length;
            if (target === CLOSES_TOOL) {
              endArguments(t, at);
              status = CallStatus.Done;
              return i;
            }
            if (target === 0) {
              endArguments(t, at);
              state = State.ToolLevel;
              return i;
            }
            closeTo(t, target, at);
            return i;
          }
        }
      }
      if (tag.kind === TagKind.None) {
        t.text('<');
        i++;
      } else {
        t.text(buf.slice(i, i + tag.length));
        i += tag.length;
      }
    }
    return i;
  }

  /** In an object or undecided element: whitespace, child elements, closing tags. */
  function runElement(
    t: ArgumentsTree,
    buf: string,
    i: number,
    offset: number,
    final: boolean,
  ): number {
    const n = buf.length;
    const f = t.top;
    const start = i;
    while (i < n && isWhitespace(buf.charCodeAt(i))) i++;
    if (i > start && f.kind === FrameKind.Undecided) t.whitespace(buf.slice(start, i));
    if (i >= n) return i;
    const c = buf.charCodeAt(i);
    if (c !== Char.Lt) {
      if (f.kind === FrameKind.Undecided) {
        t.text('');
        return i;
      }
      strayText(offset + i);
      const next = buf.indexOf('<', i);
      return next === -1 ? n : next;
    }
    const cdata = startsWithAt(buf, i, CDATA_OPEN);
    if (cdata === null && !final) return i;
    if (cdata === true) {
      if (f.kind === FrameKind.Undecided) t.text('');
      if (f.kind === FrameKind.Object) strayText(offset + i);
      state = State.Cdata;
      return i + CDATA_OPEN.length;
    }
    if (offset + i === nextTagAt) {
      // Read already, to confirm the closing tag before it.
      tag.kind = nextTag.kind;
      tag.name = nextTag.name;
      tag.length = nextTag.length;
    } else readTag(buf, i, final, tag);
    nextTagAt = -1;
    switch (tag.kind) {
      case TagKind.NeedMore:
        return i;
      case TagKind.Open:
      case TagKind.Empty:
        if (!openElement(t, tag.name, tag.kind === TagKind.Empty, offset + i)) return i;
        return i + tag.length;
      case TagKind.Close: {
        const at = offset + i;
        if (t.depth > 0 && tag.name === f.name) {
          t.close();
          return i + tag.length;
        }
        if (tag.name === 'tool') {
          if (argumentsOpen)
            warn('unclosed-element', '<arguments> was not closed before </tool>', at);
          endArguments(t, at);
          status = CallStatus.Done;
          return i + tag.length;
        }
        const depth = t.depthOf(tag.name);
        if (depth > 0) {
          closeTo(t, depth, at);
          return i + tag.length;
        }
        if (tag.name === 'arguments' || t.depth === 0) {
          if (tag.name !== 'arguments') {
            warn(
              'mismatched-close-tag',
              `</${tag.name}> closes nothing here; read as </arguments>`,
              at,
            );
          }
          endArguments(t, at);
          state = State.ToolLevel;
          return i + tag.length;
        }
        if (f.kind === FrameKind.Undecided) {
          t.text(buf.slice(i, i + tag.length));
          return i + tag.length;
        }
        warn('mismatched-close-tag', `</${tag.name}> closes no open element and is ignored`, at);
        return i + tag.length;
      }
      default:
        if (f.kind === FrameKind.Undecided) {
          t.text('<');
          return i + 1;
        }
        strayText(offset + i);
        return i + 1;
    }
  }

  function runToolLevel(buf: string, i: number, offset: number, final: boolean): number {
    const n = buf.length;
    while (i < n && isWhitespace(buf.charCodeAt(i))) i++;
    if (i >= n) return i;
    const c = buf.charCodeAt(i);
    if (c === Char.OpenBrace && !sawChild && format === 'xml') {
      format = 'json';
      state = State.Json;
      jsonBody.begin(offset + i);
      return i;
    }
    if (c !== Char.Lt) {
      // Only the first thing in the block can open the JSON form, however the text is chunked.
      sawChild = true;
      strayText(offset + i);
      const next = buf.indexOf('<', i);
      return next === -1 ? n : next;
    }
    readTag(buf, i, final, tag);
    if (tag.kind === TagKind.NeedMore) return i;
    const at = offset + i;
    sawChild = true;
    if (tag.kind === TagKind.None) {
      strayText(at);
      return i + 1;
    }
    if (tag.kind === TagKind.Close) {
      if (tag.name !== 'tool') {
        warn('mismatched-close-tag', `</${tag.name}> read as </tool>`, at);
      }
      status = CallStatus.Done;
      return i + tag.length;
    }
    const empty = tag.kind === TagKind.Empty;
    switch (tag.name) {
      case 'tool':
        status = CallStatus.Restart;
        return i;
      case 'server_name':
      case 'tool_name':
        fieldName = tag.name;
        fieldOffset = at;
        if (empty) finishNameField();
        else state = State.NameField;
        return i + tag.length;
      case 'arguments':
        ensureTree();
        if (!empty) {
          argumentsOpen = true;
          state = State.Arguments;
        }
        return i + tag.length;
      default: {
        warn(
          'argument-outside-arguments',
          `<${tag.name}> stands outside <arguments>; read as an argument`,
          at,
        );
        const t = ensureTree();
        if (!openElement(t, tag.name, empty, at)) return i;
        state = State.Arguments;
        return i + tag.length;
      }
    }
  }

  function runNameField(buf: string, i: number, final: boolean): number {
    const n = buf.length;
    while (i < n) {
      const lt = buf.indexOf('<', i);
      const end = lt === -1 ? n : lt;
      if (end > i) pushPiece(fieldText, buf.slice(i, end));
      i = end;
      if (i >= n) return i;
      readTag(buf, i, final, tag);
      if (tag.kind === TagKind.NeedMore) return i;
      if (tag.kind === TagKind.Close && tag.name === fieldName) {
        finishNameField();
        state = State.ToolLevel;
        return i + tag.length;
      }
      pushPiece(fieldText, '<');
      i++;
    }
    return i;
  }

  function runCdata(buf: string, i: number, final: boolean): number {
    const t = tree as ArgumentsTree;
    const close = buf.indexOf(']]>', i);
    if (close !== -1) {
      if (close > i) t.text(buf.slice(i, close));
      state = State.Arguments;
      return close + 3;
    }
    // Hold back a possible `]]` or `]` that the next chunk may complete into `]]>`.
    let end = buf.length;
    if (!final) {
      if (end > i && buf.charCodeAt(end - 1) === Char.CloseBracket) end--;
      if (end > i && buf.charCodeAt(end - 1) === Char.CloseBracket) end--;
      if (end > i && isHighSurrogate(buf.charCodeAt(end - 1))) end--;
    }
    if (end > i) t.text(buf.slice(i, end));
    return end;
  }

  function runJson(buf: string, i: number, offset: number, final: boolean): number {
    const next = jsonBody.run(buf, i, final);
    if (jsonBody.ended === JsonFormEnd.Object) state = State.JsonTail;
    else if (jsonBody.ended === JsonFormEnd.ToolClose) {
      finishJson(offset + next);
      return next + TOOL_CLOSE.length;
    }
    return next;
  }

  function runJsonTail(buf: string, i: number, offset: number, final: boolean): number {
    const n = buf.length;
    while (i < n && isWhitespace(buf.charCodeAt(i))) i++;
    if (i >= n) return i;
    const close = startsWithAt(buf, i, TOOL_CLOSE);
    if (close === null && !final) return i;
    if (close === true) {
      finishJson(offset + i);
      return i + TOOL_CLOSE.length;
    }
    strayText(offset + i);
    const next = buf.indexOf('<', i + 1);
    return next === -1 ? n : next;
  }

  function finishJson(closeOffset: number): void {
    const json = jsonBody.take();
    const jsonStart = jsonBody.start;
    const result = readJsonCall(json, options.maxDepth);
    if (!result.ok) {
      fail(
        result.code,
        `the JSON inside <tool> is invalid (${result.message}); write the call as XML elements`,
        jsonStart + Math.min(result.position, json.length),
      );
      return;
    }
    serverName = result.serverName;
    toolName = result.toolName;
    tree = null;
    jsonArguments = result.arguments;
    if (toolName !== undefined)
      emit({ type: 'tool-name', id, serverName: serverName ?? 'local', toolName });
    warn(
      'deprecated-json-format',
      'the JSON form of <tool> is deprecated; write XML elements',
      jsonStart,
    );
    if (result.repaired !== undefined)
      warn('repaired-json', result.repaired, jsonStart + (result.position ?? 0));
    status = CallStatus.Done;
    jsonEndOffset = closeOffset;
  }

  /**
   * The streaming fast path: a chunk that lies wholly inside a string or CDATA value and holds
   * nothing that could end it (no `<` or `&` in text, no `]]>` or trailing `]` in CDATA, no half
   * surrogate pair) is one delta. Returns
   * false when the chunk needs the full state machine.
   */
  function streamValue(chunk: string): boolean {
    if (tree === null || isHighSurrogate(chunk.charCodeAt(chunk.length - 1))) return false;
    if (state === State.Cdata) {
      // A `]]>` can only span chunks through a trailing `]`, which the full path holds back.
      if (chunk.charCodeAt(chunk.length - 1) === Char.CloseBracket || chunk.indexOf(']]>') !== -1)
        return false;
    } else if (state !== State.Arguments || chunk.indexOf('&') !== -1 || !literalAngles(chunk)) {
      return false;
    }
    // Only a string takes text as it comes: an undecided element is decided, and an object's
    // CDATA is stray text, on the full path.
    if (tree.top.kind !== FrameKind.String) return false;
    // No delta is pending here (every run flushes its own): the chunk is the event.
    emit({ type: 'argument-delta', id, path: tree.appendString(chunk), text: chunk });
    return true;
  }

  return {
    begin,
    streamValue,
    get status(): CallStatus {
      return status;
    },
    get failure(): CallFailure | null {
      return failure;
    },
    /** Consumes `buf` from `pos` (absolute offset of `buf[0]` is `offset`); returns the new position. */
    run(buf: string, pos: number, offset: number, final: boolean): number {
      let i = pos;
      // One shape read per step: the shape after a step is the shape before the next.
      let beforeShape = shape();
      while (status === CallStatus.Open) {
        const before = i;
        const beforeState = state;
        switch (state) {
          case State.ToolLevel:
            i = runToolLevel(buf, i, offset, final);
            break;
          case State.NameField:
            i = runNameField(buf, i, final);
            break;
          case State.Arguments: {
            const t = tree as ArgumentsTree;
            i =
              t.top.kind === FrameKind.String
                ? runString(t, buf, i, offset, final)
                : runElement(t, buf, i, offset, final);
            break;
          }
          case State.Cdata:
            i = runCdata(buf, i, final);
            break;
          case State.Json:
            i = runJson(buf, i, offset, final);
            break;
          case State.JsonTail:
            i = runJsonTail(buf, i, offset, final);
            break;
        }
        // Nothing consumed and nothing changed: the rest waits for more input.
        const afterShape = shape();
        if (i === before && state === beforeState && afterShape === beforeShape) break;
        beforeShape = afterShape;
      }
      flushDelta();
      return i;
    },
    /** At the end of the input: reports what an unclosed block held. */
    incomplete(offset: number): CallFailure {
      flushDelta();
      return {
        code: 'incomplete-tool-call',
        message:
          state === State.Cdata
            ? 'a CDATA section was not closed with ]]> before the input ended'
            : 'the <tool> block was not closed with </tool> before the input ended',
        offset,
      };
    },
    /** The call, once `status` is Done; a missing tool name makes it a failure instead. */
    complete(
      offset: number,
    ):
      | { serverName: string; toolName: string; arguments: ToolArguments; format: CallFormat }
      | CallFailure {
      flushDelta();
      if (toolName === undefined || toolName === '') {
        return {
          code: 'missing-tool-name',
          message: 'the <tool> block has no <tool_name>; name the tool to call',
          offset: format === 'json' ? jsonEndOffset : offset,
        };
      }
      const args =
        format === 'json'
          ? (jsonArguments as ToolArguments)
          : tree === null
            ? ensureTree().finish()
            : tree.finish();
      return { serverName: serverName || 'local', toolName, arguments: args, format };
    },
    partial(): { serverName?: string; toolName?: string; arguments: ToolArguments } {
      const args = jsonArguments ?? (tree === null ? ensureTree().snapshot() : tree.snapshot());
      return { serverName, toolName, arguments: args };
    },
  };
}

export type CallParser = ReturnType<typeof createCallParser>;
