import type { ArgumentPath, JsonValue, ToolArguments } from '../events.js';
import { sharedName } from '../names.js';
import { createPieces, joinPieces, type Pieces, pushPiece } from '../pieces.js';

/**
 * The part of a JSON Schema the parser reads to shape arguments while they stream: `string`
 * keeps inner markup as text, `array` makes even a single element a list (a dialect's text
 * parameter stays the list's written text). Validation and
 * coercion of everything else belong to dispatch.
 */
export interface ArgumentSchema {
  type?: string | readonly string[];
  properties?: Readonly<Record<string, ArgumentSchema>>;
  items?: ArgumentSchema;
}

export enum FrameKind {
  /** Nothing but whitespace yet: it may still become a string or an object. */
  Undecided = 0,
  Object = 1,
  String = 2,
}

export interface Frame {
  readonly name: string;
  /** Its index among same-name siblings. */
  readonly index: number;
  /** Built from the open elements the first time a delta needs it: opening stays O(1). */
  path: ArgumentPath | null;
  kind: FrameKind;
  readonly schema: ArgumentSchema | undefined;
  /** Whitespace seen while undecided: the value if the element holds nothing else. */
  pendingWhitespace: string;
  pieces: Pieces;
  object: ToolArguments | null;
  /** Keys of `object` whose value is a list (repeated elements, or the schema says array). */
  lists: Set<string> | null;
  /** A repeated element that replaces the one before it (the schema says it is no list). */
  replaces: boolean;
}

/** What opening an element did to a name given before in the same parent. */
export enum Repeat {
  /** The first of its name. */
  None = 0,
  /** One more of a list. */
  List = 1,
  /** It will replace the one before it: the schema says the property is no list. */
  Replace = 2,
}

function hasType(schema: ArgumentSchema | undefined, type: string): boolean {
  const t = schema?.type;
  return t === type || (Array.isArray(t) && t.includes(type));
}

const ROOT_PATH: ArgumentPath = { names: [], indices: [] };

/** Stack depth below which a closing tag's element is found by walking the stack. */
const SHALLOW = 16;

/**
 * How many children called `name` opened in `parent` before: siblings open one after the
 * other, so all of them are closed and stored, one value or (repeated, or an array by the
 * schema) a list of them.
 */
function siblingsBefore(parent: Frame, name: string): number {
  const target = parent.object as ToolArguments;
  if (!Object.hasOwn(target, name)) return 0;
  return parent.lists?.has(name) ? (target[name] as JsonValue[]).length : 1;
}

export function createObject(): ToolArguments {
  return Object.create(null) as ToolArguments;
}

function frame(
  name: string,
  index: number,
  kind: FrameKind,
  schema: ArgumentSchema | undefined,
): Frame {
  return {
    name,
    index,
    path: null,
    kind,
    schema,
    pendingWhitespace: '',
    pieces: createPieces(),
    object: null,
    lists: null,
    replaces: false,
  };
}

/**
 * Builds an arguments tree from element events: `open`, `text`, `close`. Same-name siblings
 * become a list; an element with child elements is an object; one with text is a string.
 * `onDelta` receives string content as it arrives, with its path. One tree serves every call
 * of a parse (`reset` per call).
 */
export class ArgumentsTree {
  #root: Frame = frame('', 0, FrameKind.Object, undefined);
  readonly #stack: Frame[] = [this.#root];
  /**
   * Stack positions (from `SHALLOW` on) of the open elements of each name, ascending: finding
   * the element a closing tag belongs to is a lookup, not a walk down the stack (which is
   * quadratic when thousands of elements are open). The shallow part is walked: a map entry
   * per element cost more than the walk in the arguments models write, a few levels deep.
   */
  #openByName: Map<string, number[]> | null = null;
  #replaceRepeats = false;

  constructor(private readonly onDelta: (path: ArgumentPath, text: string) => void) {}

  /**
   * Starts a new, empty arguments object, shaped by the tool's schema when there is one.
   * With `keepLast`, a repeated element replaces the one before it when the schema says the
   * property is no list (a parameter given twice by mistake); otherwise repeats make a list.
   */
  reset(rootSchema: ArgumentSchema | undefined, keepLast = false): void {
    this.#replaceRepeats = keepLast;
    const root = frame('', 0, FrameKind.Object, rootSchema);
    root.path = ROOT_PATH;
    root.object = createObject();
    this.#root = root;
    // Popped, not cut with `length = 0` (a call into V8's runtime, 1.7% of a one-tool reply).
    // The root is never popped: the stack holds one frame at least.
    const stack = this.#stack;
    while (stack.length > 1) stack.pop();
    stack[0] = root;
    this.#openByName?.clear();
  }

  /** Whether the arguments hold `name`, given before or still open. */
  has(name: string): boolean {
    return Object.hasOwn(this.#root.object as ToolArguments, name) || this.depthOf(name) !== -1;
  }

  get top(): Frame {
    return this.#stack[this.#stack.length - 1];
  }

  get depth(): number {
    return this.#stack.length - 1;
  }

  /**
   * Depth of the innermost open element called `name` (1 is a child of the root) that is
   * shallower than `below` (default: any open element), or -1.
   */
  depthOf(name: string, below = this.#stack.length): number {
    const stack = this.#stack;
    const positions = below > SHALLOW ? this.#openByName?.get(name) : undefined;
    if (positions !== undefined) {
      // The last position under `below`: a binary search over the ascending positions.
      let lo = 0;
      let hi = positions.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (positions[mid] < below) lo = mid + 1;
        else hi = mid;
      }
      if (lo > 0) return positions[lo - 1];
    }
    for (let k = Math.min(below, SHALLOW) - 1; k >= 1; k--) if (stack[k].name === name) return k;
    return -1;
  }

  /**
   * Opens a child element of the innermost one. `asText`: its content is text whatever it
   * holds (a parameter of a dialect whose values are never elements). Says whether the name
   * came before in the same parent.
   */
  open(written: string, asText = false): Repeat {
    // The frame's name is the property key its value is stored under.
    const name = sharedName(written);
    const stack = this.#stack;
    const parent = stack[stack.length - 1];
    if (parent.kind !== FrameKind.Object) toObject(parent);
    const index = siblingsBefore(parent, name);
    let schema = parent.schema?.properties?.[name];
    const array = hasType(schema, 'array');
    // A text parameter holds the whole list as it is written (JSON, for dispatch to read); only
    // a repeated one makes a list of its values. Elements make a list of even one.
    if (array && !asText) {
      if (parent.lists === null) parent.lists = new Set();
      parent.lists.add(name);
      schema = schema?.items;
    }
    if (stack.length >= SHALLOW) {
      this.#openByName ??= new Map();
      const positions = this.#openByName.get(name);
      if (positions === undefined) this.#openByName.set(name, [stack.length]);
      else positions.push(stack.length);
    }
    const child = frame(
      name,
      index,
      asText || hasType(schema, 'string') ? FrameKind.String : FrameKind.Undecided,
      schema,
    );
    stack.push(child);
    if (index === 0) return Repeat.None;
    if (this.#replaceRepeats && !array && schema?.type !== undefined) {
      child.replaces = true;
      return Repeat.Replace;
    }
    return Repeat.List;
  }

  /** Whitespace in an undecided element: kept aside until the element shows what it is. */
  whitespace(s: string): void {
    const f = this.top;
    if (f.kind === FrameKind.Undecided) f.pendingWhitespace += s;
    else if (f.kind === FrameKind.String) this.text(s);
  }

  /** Text content: makes an undecided element a string. Ignored in objects (the caller warns). */
  text(s: string): void {
    const at = this.#stack.length - 1;
    const f = this.#stack[at];
    if (f.kind === FrameKind.Object) return;
    if (f.kind === FrameKind.Undecided) {
      f.kind = FrameKind.String;
      if (f.pendingWhitespace !== '') {
        pushPiece(f.pieces, f.pendingWhitespace);
        this.onDelta(this.#pathOf(at), f.pendingWhitespace);
        f.pendingWhitespace = '';
      }
    }
    if (s === '') return;
    pushPiece(f.pieces, s);
    this.onDelta(this.#pathOf(at), s);
  }

  /**
   * Appends `s` to the innermost element, which the caller knows is a string, without a
   * delta: the streaming fast path reported its chunks itself, one event each.
   */
  appendString(s: string): void {
    pushPiece(this.top.pieces, s);
  }

  /** The innermost element's path. */
  topPath(): ArgumentPath {
    return this.#pathOf(this.#stack.length - 1);
  }

  /** Closes the innermost element and stores its value in its parent. */
  close(): void {
    const stack = this.#stack;
    if (stack.length < 2) throw new Error('arguments tree: close without open');
    const f = stack[stack.length - 1];
    let value: JsonValue;
    if (f.kind === FrameKind.Object && f.object !== null) value = f.object;
    else if (f.kind === FrameKind.String) value = joinPieces(f.pieces);
    else {
      value = f.pendingWhitespace;
      if (value !== '') this.onDelta(this.#pathOf(stack.length - 1), value);
    }
    stack.pop();
    if (stack.length >= SHALLOW) this.#openByName?.get(f.name)?.pop();
    const parent = stack[stack.length - 1];
    const target = parent.object as ToolArguments;
    if (f.replaces) {
      target[f.name] = value;
    } else if (parent.lists?.has(f.name)) {
      const list = Object.hasOwn(target, f.name) ? (target[f.name] as JsonValue[]) : [];
      list.push(value);
      target[f.name] = list;
    } else if (Object.hasOwn(target, f.name)) {
      if (parent.lists === null) parent.lists = new Set();
      parent.lists.add(f.name);
      target[f.name] = [target[f.name], value];
    } else {
      target[f.name] = value;
    }
  }

  /** Closes every open element (lenient end of a call) and returns the root object. */
  finish(): ToolArguments {
    while (this.#stack.length > 1) this.close();
    return this.#root.object as ToolArguments;
  }

  /** The arguments parsed so far, without closing anything (for errors on failed calls). */
  snapshot(): ToolArguments {
    return this.#root.object as ToolArguments;
  }

  /** The path of `stack[at]`, whose ancestors are the frames below it. */
  #pathOf(at: number): ArgumentPath {
    const stack = this.#stack;
    const f = stack[at];
    if (f.path === null) {
      const names: string[] = new Array(at);
      const indices: number[] = new Array(at);
      for (let i = 1; i <= at; i++) {
        names[i - 1] = stack[i].name;
        indices[i - 1] = stack[i].index;
      }
      f.path = { names, indices };
    }
    return f.path;
  }
}

function toObject(f: Frame): void {
  f.kind = FrameKind.Object;
  f.pendingWhitespace = '';
  f.object = createObject();
}
