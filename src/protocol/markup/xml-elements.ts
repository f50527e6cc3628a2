import { CDATA_OPEN, unwrapCdata } from '../cdata.js';
import { Char, isHighSurrogate, isWhitespace } from '../chars.js';
import { decodeEntities } from '../entities.js';
import { readJsonCall } from '../json-call.js';
import { createPieces, joinPieces, type Pieces, pushPiece } from '../pieces.js';
import { isTagFor, readTag, startsWithAt, type Tag, TagKind } from '../tag.js';
import { FrameKind } from './arguments-tree.js';
import { confirmsCallClose, confirmsElementClose } from './confirm.js';
import type { MarkupCore } from './core.js';
import { XML_FORM_KINDS } from './form.js';
import { JsonFormBody, JsonFormEnd } from './json-form.js';
import { type MarkupShape, type OpenCall, State, TEXT, wait } from './shape.js';
import { unreadableAt } from './unreadable.js';

/**
 * A call written as XML elements (`MarkupForm.tags` 'xml'): tags read by name, the fields that
 * name the call (`MarkupForm.fields`), the arguments as elements in their container, nested
 * as objects and lists, text with entities and CDATA, and the deprecated JSON form of a call.
 * A close inside a value counts as the form's confirmation rules say (markup/confirm.ts).
 */
export class XmlElements implements MarkupShape {
  readonly kinds = XML_FORM_KINDS;
  readonly entities = true;
  readonly #core: MarkupCore;
  readonly #tag: Tag = { kind: TagKind.None, name: '', length: 0 };
  /** The arguments' container was opened explicitly (not implied by an argument outside it). */
  #containerOpen = false;
  /** Only the first thing in the call can open the JSON form, however the text is chunked. */
  #sawChild = false;
  #outsideWarned = false;
  /** Arguments were written outside their container, which they imply: its close may follow. */
  #implied = false;
  /** The field being read (`MarkupForm.fields`), where it began, and its text so far. */
  #field = '';
  #fieldAt = 0;
  #fieldText: Pieces = createPieces();
  readonly #json: JsonFormBody;

  constructor(core: MarkupCore) {
    this.#core = core;
    this.#json = new JsonFormBody(core.form.call.close);
  }

  clearCall(): void {
    this.#containerOpen = false;
    this.#sawChild = false;
    this.#outsideWarned = false;
    this.#implied = false;
    this.#fieldText = createPieces();
  }

  argumentsClosed(): boolean {
    const core = this.#core;
    return core.form.container === undefined || (core.treeOpen && !this.#containerOpen);
  }

  step(i: number): number {
    switch (this.#core.state) {
      case State.Field:
        return this.#stepField(i);
      case State.Children:
        return this.#stepChildren(i);
      case State.Cdata:
        return this.#stepCdata(i);
      case State.Json:
        return this.#stepJson(i);
      default:
        return this.#stepJsonTail(i);
    }
  }

  /**
   * Whether the `<` at `lt` may start a tag, CDATA or a closing tag, or is the text's last
   * character: `a < b`, `i<=n`, `x<3` start none.
   */
  mayEndValue(s: string, lt: number): boolean {
    if (lt + 1 >= s.length) return true;
    const next = s.charCodeAt(lt + 1);
    return next === Char.Slash || next === Char.Bang || isTagStart(next);
  }

  // --- Between a call's children: fields, the arguments, the call's close. ---

  inCall(k: number): number {
    const core = this.#core;
    const s = core.s;
    if (s.charCodeAt(k) === Char.Lt) return this.#tagInCall(k);
    if (core.form.jsonForm && !this.#sawChild && s.charCodeAt(k) === Char.OpenBrace) {
      core.format = 'json';
      this.#json.begin(core.offset + k);
      core.state = State.Json;
      return k;
    }
    this.#sawChild = true;
    return unreadableAt(core, k);
  }

  #tagInCall(lt: number): number {
    const core = this.#core;
    const tag = readTag(core.s, lt, core.final, this.#tag);
    if (tag.kind === TagKind.NeedMore) return this.#waitTag(lt);
    const form = core.form;
    const at = core.offset + lt;
    this.#sawChild = true;
    if (tag.kind === TagKind.None) return unreadableAt(core, lt);
    if (tag.kind === TagKind.Close) {
      // The arguments' close after arguments written outside them closes what they implied.
      if (tag.name === form.container && this.#implied) {
        this.#endArguments(at);
        return lt + tag.length;
      }
      if (!isTagFor(form.call.close, tag.name, true))
        core.recover('mismatched-call-close', at, { name: tag.name, close: form.call.close });
      core.closeCall(at + tag.length);
      return lt + tag.length;
    }
    const empty = tag.kind === TagKind.Empty;
    if (form.call.reopenFails && isTagFor(form.call.start, tag.name, false)) {
      this.#failReopened();
      return lt;
    }
    const fields = form.fields;
    if (fields !== undefined && (tag.name === fields.tool || tag.name === fields.server)) {
      this.#field = tag.name;
      this.#fieldAt = at;
      if (empty) this.#finishField();
      else core.state = State.Field;
      return lt + tag.length;
    }
    if (tag.name === form.container) {
      core.startTree();
      if (!empty) {
        this.#containerOpen = true;
        core.state = State.Children;
      }
      return lt + tag.length;
    }
    // One mistake, one warning: the arguments after it were written the same way.
    if (!this.#outsideWarned)
      core.recover('argument-outside-arguments', at, {
        name: tag.name,
        container: form.container as string,
      });
    this.#outsideWarned = true;
    this.#implied = true;
    core.startTree();
    if (!this.#openElement(tag.name, empty, at)) return lt;
    return lt + tag.length;
  }

  /** The call's own opening inside it: this call never closed, and a new block opens there. */
  #failReopened(): void {
    const core = this.#core;
    const { start, close } = core.form.call;
    const failed = core.fail(
      'incomplete-tool-call',
      `a new ${start} began before this one was closed with ${close}`,
      core.blockStart,
    );
    failed.reopen = true;
  }

  // --- Fields that name the call. ---

  #stepField(i: number): number {
    const core = this.#core;
    const s = core.s;
    const n = s.length;
    while (i < n) {
      const lt = s.indexOf('<', i);
      const end = lt === -1 ? n : lt;
      if (end > i) pushPiece(this.#fieldText, s.slice(i, end));
      i = end;
      if (i >= n) return core.final ? core.endOfInput(n) : wait(n);
      const tag = readTag(s, i, core.final, this.#tag);
      if (tag.kind === TagKind.NeedMore) return this.#waitTag(i);
      if (tag.kind === TagKind.Close && tag.name === this.#field) {
        this.#finishField();
        core.state = State.InCall;
        return i + tag.length;
      }
      pushPiece(this.#fieldText, '<');
      i++;
    }
    return core.final ? core.endOfInput(n) : wait(n);
  }

  #finishField(): void {
    const core = this.#core;
    const raw = joinPieces(this.#fieldText);
    this.#fieldText = createPieces();
    const value = decodeEntities(raw.indexOf('<') === -1 ? raw : unwrapCdata(raw)).trim();
    const call = core.call as OpenCall;
    const fields = core.form.fields as { tool: string; server: string };
    const isTool = this.#field === fields.tool;
    if ((isTool ? call.name : call.server) !== (isTool ? '' : undefined))
      core.recover('duplicate-field', this.#fieldAt, { field: this.#field });
    if (isTool) call.name = value;
    else call.server = value;
    if (call.name !== '') core.sink.name(call.id, call.name, call.server ?? 'local');
  }

  // --- Arguments: elements that hold elements (or may), and their closes. ---

  #openElement(name: string, empty: boolean, at: number): boolean {
    const core = this.#core;
    const tree = core.tree;
    if (tree.depth >= core.limits.maxDepth) {
      core.fail(
        'max-depth-exceeded',
        `arguments nest deeper than ${core.limits.maxDepth} elements; flatten the arguments`,
        at,
      );
      return false;
    }
    tree.open(name);
    if (empty) tree.close();
    core.state = this.#valueState();
    return true;
  }

  /** The state for the innermost element: its text, or its children. */
  #valueState(): State {
    const core = this.#core;
    if (!core.treeOpen) return State.InCall;
    const tree = core.tree;
    if (tree.depth === 0) return this.#containerOpen ? State.Children : State.InCall;
    return tree.top.kind === FrameKind.String ? State.Value : State.Children;
  }

  /** Ends the arguments (their container's close, the call's): inner open elements close with a warning. */
  #endArguments(at: number): void {
    const core = this.#core;
    if (core.treeOpen) core.closeTo(0, at, core.form.call.close);
    this.#containerOpen = false;
    this.#implied = false;
  }

  /** In the arguments, or in an element whose content is not yet known or is elements. */
  #stepChildren(i: number): number {
    const core = this.#core;
    const s = core.s;
    const n = s.length;
    const tree = core.tree;
    const top = tree.top;
    const start = i;
    while (i < n && isWhitespace(s.charCodeAt(i))) i++;
    if (i > start && top.kind === FrameKind.Undecided) tree.whitespace(s.slice(start, i));
    if (i >= n) return core.final ? core.endOfInput(n) : wait(i);
    if (s.charCodeAt(i) !== Char.Lt) {
      if (top.kind === FrameKind.Undecided) {
        tree.text('');
        core.state = State.Value;
        return i;
      }
      return unreadableAt(core, i);
    }
    const cdata = startsWithAt(s, i, CDATA_OPEN);
    if (cdata === null && !core.final) return this.#waitCdata(i);
    if (cdata === true) {
      // CDATA among elements holds text no argument is: the call cannot read it.
      if (top.kind !== FrameKind.Undecided) return unreadableAt(core, i);
      tree.text('');
      core.state = State.Cdata;
      return i + CDATA_OPEN.length;
    }
    const tag = readTag(s, i, core.final, this.#tag);
    switch (tag.kind) {
      case TagKind.NeedMore:
        return this.#waitTag(i);
      case TagKind.Open:
      case TagKind.Empty:
        if (!this.#openElement(tag.name, tag.kind === TagKind.Empty, core.offset + i)) return i;
        return i + tag.length;
      case TagKind.Close:
        return this.#closeInChildren(i, tag);
      default:
        if (top.kind !== FrameKind.Undecided) return unreadableAt(core, i);
        tree.text('<');
        core.state = State.Value;
        return i + 1;
    }
  }

  /** A closing tag among elements: the element's own, an enclosing one's, or a mistake. */
  #closeInChildren(i: number, tag: Tag): number {
    const core = this.#core;
    const tree = core.tree;
    const at = core.offset + i;
    const end = i + tag.length;
    const form = core.form;
    if (tree.depth > 0 && tag.name === tree.top.name) {
      tree.close();
      core.state = this.#valueState();
      return end;
    }
    if (isTagFor(form.call.close, tag.name, true)) {
      if (this.#containerOpen)
        core.recover('unclosed-arguments', at, {
          container: form.container as string,
          close: form.call.close,
        });
      this.#endArguments(at);
      core.closeCall(at + tag.length);
      return end;
    }
    const depth = tree.depthOf(tag.name);
    if (depth > 0) {
      core.closeTo(depth, at, `</${tag.name}>`);
      core.state = this.#valueState();
      return end;
    }
    if (tag.name === form.container || tree.depth === 0) {
      if (tag.name !== form.container)
        core.recover('mismatched-arguments-close', at, {
          name: tag.name,
          container: form.container as string,
        });
      this.#endArguments(at);
      core.state = State.InCall;
      return end;
    }
    if (tree.top.kind === FrameKind.Undecided) {
      tree.text(core.s.slice(i, end));
      core.state = State.Value;
      return end;
    }
    core.recover('stray-close', at, { name: tag.name });
    return end;
  }

  /** The tag at `lt` needs more input: where only more of its name decides it, that is the wait. */
  #waitTag(lt: number): number {
    this.#core.pending.tagName(this.#core.s, lt);
    return wait(lt);
  }

  /** The text from `at` on is a proper prefix of `<![CDATA[`. */
  #waitCdata(at: number): number {
    const core = this.#core;
    core.pending.literal(CDATA_OPEN, core.s.length - at);
    return wait(at);
  }

  // --- A value's text: CDATA, and the closing tags that may end it. ---

  valueEnd(lt: number, from: number): number {
    const core = this.#core;
    const s = core.s;
    const final = core.final;
    const cdata = startsWithAt(s, lt, CDATA_OPEN);
    if (cdata === null && !final) {
      const waiting = core.valueWait(from, lt);
      this.#waitCdata(lt);
      return waiting;
    }
    if (cdata === true) {
      core.writeValue(s.slice(from, lt));
      core.state = State.Cdata;
      return lt + CDATA_OPEN.length;
    }
    const tag = readTag(s, lt, final, this.#tag);
    if (tag.kind === TagKind.NeedMore) {
      const waiting = core.valueWait(from, lt);
      this.#waitTag(lt);
      return waiting;
    }
    if (tag.kind !== TagKind.Close) return TEXT;
    const form = core.form;
    const tree = core.tree;
    const end = lt + tag.length;
    // An open element of the name closes first; then the arguments, then the call.
    let depth = tree.depthOf(tag.name);
    if (depth < 0 && tag.name === form.container) depth = 0;
    if (depth < 0) {
      if (!isTagFor(form.call.close, tag.name, true)) return TEXT;
      const confirmed = confirmsCallClose(s, end, final, form, true);
      if (confirmed === null) return core.valueWait(from, lt);
      if (!confirmed) return TEXT;
      core.writeValue(s.slice(from, lt));
      this.#endArguments(core.offset + lt);
      core.closeCall(core.offset + end);
      return end;
    }
    const confirmed = confirmsElementClose(s, end, final, form, tree, depth, core.pending);
    if (confirmed === null) return core.valueWait(from, lt);
    if (!confirmed) {
      if (depth === tree.depth) core.unreadableCall.ownClose(core.offset + end);
      return TEXT;
    }
    core.writeValue(s.slice(from, lt));
    if (depth === 0) {
      this.#endArguments(core.offset + lt);
      core.state = State.InCall;
    } else {
      core.closeTo(depth, core.offset + lt, `</${tag.name}>`);
      core.state = this.#valueState();
    }
    return end;
  }

  #stepCdata(i: number): number {
    const core = this.#core;
    const s = core.s;
    const close = s.indexOf(']]>', i);
    if (close !== -1) {
      core.writeValue(s.slice(i, close));
      // Back to what holds it: a string's text, or (stray CDATA) the elements around it.
      core.state = this.#valueState();
      return close + 3;
    }
    if (core.final) {
      core.writeValue(s.slice(i));
      return core.endOfInput(s.length);
    }
    // Hold back a possible `]]` or `]` that the next chunk may complete into `]]>`.
    let end = s.length;
    if (end > i && s.charCodeAt(end - 1) === Char.CloseBracket) end--;
    if (end > i && s.charCodeAt(end - 1) === Char.CloseBracket) end--;
    if (end > i && isHighSurrogate(s.charCodeAt(end - 1))) end--;
    core.writeValue(s.slice(i, end));
    return wait(end);
  }

  // --- The deprecated JSON form: the call as one JSON object. ---

  #stepJson(i: number): number {
    const core = this.#core;
    const json = this.#json;
    const next = json.run(core.s, i, core.final);
    if (json.ended === JsonFormEnd.Object) core.state = State.JsonTail;
    else if (json.ended === JsonFormEnd.CallClose) {
      this.#finishJson(core.offset + next);
      return next + core.form.call.close.length;
    } else return core.final ? core.endOfInput(next) : wait(next);
    return next;
  }

  #stepJsonTail(i: number): number {
    const core = this.#core;
    const s = core.s;
    const n = s.length;
    while (i < n && isWhitespace(s.charCodeAt(i))) i++;
    if (i >= n) return core.final ? core.endOfInput(n) : wait(i);
    const close = core.form.call.close;
    const closes = startsWithAt(s, i, close);
    if (closes === null && !core.final) return wait(i);
    if (closes === true) {
      this.#finishJson(core.offset + i);
      return i + close.length;
    }
    return unreadableAt(core, i);
  }

  #finishJson(closeAt: number): void {
    const core = this.#core;
    const { start, close } = core.form.call;
    const json = this.#json.take();
    const at = this.#json.start;
    const { tool, server } = core.form.fields as { tool: string; server: string };
    const keys = { tool, server, arguments: core.form.container as string };
    const result = readJsonCall(json, core.limits.maxDepth, keys);
    if (!result.ok) {
      core.fail(
        result.code,
        `the JSON inside ${start} is invalid (${result.message}); write the call as XML elements`,
        at + Math.min(result.position, json.length),
      );
      return;
    }
    const call = core.call as OpenCall;
    call.name = result.toolName ?? '';
    call.server = result.serverName;
    core.args = result.arguments;
    if (call.name !== '') core.sink.name(call.id, call.name, call.server ?? 'local');
    core.recover('deprecated-json-form', at, { start });
    for (const repair of result.warnings)
      core.warnAs(core.rows[repair.kind], at + repair.at, repair.values);
    core.closeCall(closeAt + close.length);
  }
}

/** A character that can begin a tag's name (ASCII letters, `_`, `:`, or beyond ASCII). */
function isTagStart(c: number): boolean {
  return (
    c > 0x7f || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x3a
  );
}
