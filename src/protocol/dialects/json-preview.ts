import { type BlockSink, keyPath } from './block.js';

/** What a string being read is, by where it stands. */
enum Role {
  Other = 0,
  /** A key of a call object or of its arguments. */
  Key = 1,
  /** The value of a call's `"name"`. */
  Name = 2,
  /** A top-level string value of the arguments: its text streams. */
  Argument = 3,
}

/** The index of `c` in `text` from `from`, or the text's length. */
function nextOrEnd(text: string, c: string, from: number): number {
  const at = text.indexOf(c, from);
  return at === -1 ? text.length : at;
}

const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** One started call as the preview saw it. */
export interface PreviewedCall {
  id: string;
  /** The name told, if one was. */
  name?: string;
}

/**
 * What tells a gathered body's calls while it is written (each call's start, its name, the
 * text of its string arguments), before the body can be parsed whole.
 */
export interface BodyPreview {
  /** The calls started so far, in order. */
  readonly calls: readonly PreviewedCall[];
  write(text: string): void;
  /**
   * `text` lies inside the JSON string being read and holds no quote or backslash (the
   * gathered stream knows): told as that string's text without reading it character by
   * character. Optional: without it, `write`.
   */
  writeInString?(text: string): void;
}

/** The longest head a named preview waits through for its name. */
const MAX_HEAD = 300;

/**
 * The preview of a body that names its one call before its JSON arguments (functionary's
 * `name>{…}` and `name\n{…}`): once `head` (anchored; group 1 the name, ending before the
 * `{`) matches the body's start, the call starts and is named, and its arguments preview as
 * DeepSeek's do.
 */
export class NamedJsonPreview implements BodyPreview {
  #head = '';
  #inner: JsonPreview | null = null;

  constructor(
    private readonly sink: BlockSink,
    private readonly head: RegExp,
  ) {}

  get calls(): readonly PreviewedCall[] {
    return this.#inner?.calls ?? [];
  }

  write(text: string): void {
    if (this.#inner !== null) {
      this.#inner.write(text);
      return;
    }
    if (this.#head.length > MAX_HEAD) return;
    this.#head += text;
    const match = this.head.exec(this.#head);
    if (match === null) return;
    const call: PreviewedCall = { id: this.sink.start(), name: match[1] };
    this.sink.name(call.id, match[1]);
    this.#inner = new JsonPreview(this.sink, call);
    this.#inner.write(this.#head.slice(match[0].length));
    this.#head = '';
  }
}

/**
 * Tells a JSON body's calls while it is written, before it can be parsed: a call starts at
 * its object's `{` (the body's, or each one's in a list), its name is told when the string
 * after `"name"` ends, and the text of each string argument (a string value directly in
 * `"arguments"` or `"parameters"`) streams as it is decoded, once the name is known. This is
 * a preview: the parse of the whole body decides the calls, and the parser reconciles the two
 * (see the gathered stream). Strict JSON only: anything else (single quotes, comments) is
 * simply not previewed.
 */
export class JsonPreview implements BodyPreview {
  readonly calls: PreviewedCall[] = [];
  /** Open containers: `{` or `[`. */
  #stack: string[] = [];
  /** The depth at which call objects stand: 1 for a body object, 2 in a list; 0 undecided. */
  #callDepth = 0;
  #expectKey = false;
  /** The key of the value being read, per depth of the call object and its arguments. */
  #callKey = '';
  #argumentsDepth = -1;
  #argumentKey = '';
  #argumentCounts = new Map<string, number>();
  #inString = false;
  #role = Role.Other;
  #string = '';
  #escape = '';
  #stopped = false;

  /**
   * With `call`, the body is that call's arguments alone (the name was written before it, as
   * DeepSeek's and Kimi's forms do): its top-level string values stream.
   */
  constructor(
    private readonly sink: BlockSink,
    call?: PreviewedCall,
  ) {
    if (call !== undefined) {
      this.calls.push(call);
      this.#callDepth = -1;
    }
  }

  write(text: string): void {
    if (this.#stopped) return;
    this.#read(text);
    this.#flushDelta();
  }

  writeInString(text: string): void {
    if (!this.#inString || this.#escape !== '') this.write(text);
    else if (!this.#stopped && this.#role !== Role.Other) {
      this.#stringText(text);
      this.#flushDelta();
    }
  }

  /** Decoded argument text read but not yet told: one delta per write and string. */
  #delta = '';

  #flushDelta(): void {
    if (this.#delta === '') return;
    const call = this.#current as PreviewedCall;
    const index = (this.#argumentCounts.get(this.#argumentKey) ?? 1) - 1;
    this.sink.delta(call.id, keyPath(this.#argumentKey, index), this.#delta);
    this.#delta = '';
  }

  #read(text: string): void {
    const n = text.length;
    // The next quote and backslash, each found once and kept until passed: a run of plain
    // characters ends at the nearer (a search per run would rescan to the string's end).
    let quote = -1;
    let backslash = -1;
    for (let k = 0; k < n; k++) {
      const c = text[k];
      if (this.#inString) {
        if (this.#escape !== '') this.#readEscape(c);
        else if (c === '\\') {
          const next = text[k + 1];
          // The common escape, whole in this text: decoded at once.
          if (next !== undefined && next !== 'u' && ESCAPES[next] !== undefined) {
            this.#stringText(ESCAPES[next]);
            k++;
          } else this.#escape = '\\';
        } else if (c === '"') this.#endString();
        else {
          if (quote < k) quote = nextOrEnd(text, '"', k);
          if (backslash < k) backslash = nextOrEnd(text, '\\', k);
          const end = quote < backslash ? quote : backslash;
          this.#stringText(text.slice(k, end));
          k = end - 1;
        }
        continue;
      }
      switch (c) {
        case '"':
          this.#beginString();
          break;
        case '{':
        case '[':
          this.#open(c);
          break;
        case '}':
        case ']':
          this.#stack.pop();
          if (this.#stack.length < this.#argumentsDepth) this.#argumentsDepth = -1;
          break;
        case ',':
          this.#expectKey = this.#stack[this.#stack.length - 1] === '{';
          break;
        case ':':
          this.#expectKey = false;
          break;
        case ' ':
        case '\n':
        case '\r':
        case '\t':
          break;
        default:
          // A number, true, false, null: nothing to preview. Anything else is no strict JSON.
          if (!/[-+.\deEtrufalsn]/.test(c)) this.#stopped = true;
      }
      if (this.#stopped) return;
    }
  }

  get #current(): PreviewedCall | undefined {
    return this.calls[this.calls.length - 1];
  }

  #open(c: string): void {
    const depth = this.#stack.length + 1;
    if (this.#callDepth === 0) this.#callDepth = c === '[' ? 2 : 1;
    if (this.#callDepth === -1) {
      if (c === '{' && depth === 1) this.#argumentsDepth = 1;
    } else if (c === '{' && depth === this.#callDepth) {
      this.calls.push({ id: this.sink.start() });
      this.#callKey = '';
      this.#argumentsDepth = -1;
      this.#argumentCounts = new Map();
    } else if (
      c === '{' &&
      depth === this.#callDepth + 1 &&
      (this.#callKey === 'arguments' || this.#callKey === 'parameters') &&
      this.#stack[this.#stack.length - 1] === '{'
    )
      this.#argumentsDepth = depth;
    this.#stack.push(c);
    this.#expectKey = c === '{';
  }

  #beginString(): void {
    const depth = this.#stack.length;
    this.#inString = true;
    this.#string = '';
    this.#role = Role.Other;
    if (this.#expectKey && (depth === this.#callDepth || depth === this.#argumentsDepth))
      this.#role = Role.Key;
    else if (
      !this.#expectKey &&
      depth === this.#callDepth &&
      (this.#callKey === 'name' || this.#callKey === 'tool_name')
    )
      this.#role = Role.Name;
    else if (
      !this.#expectKey &&
      depth === this.#argumentsDepth &&
      this.#current?.name !== undefined
    )
      this.#role = Role.Argument;
  }

  #stringText(text: string): void {
    // Gathered: a JSON string of code is a run between every two escapes, and a delta per
    // run was a fifth of a whole Hermes reply's time.
    if (this.#role === Role.Argument) this.#delta += text;
    else if (this.#role !== Role.Other) this.#string += text;
  }

  #readEscape(c: string): void {
    this.#escape += c;
    if (this.#escape.length === 2) {
      if (c === 'u') return;
      const decoded = ESCAPES[c];
      this.#escape = '';
      if (decoded === undefined) this.#stopped = true;
      else this.#stringText(decoded);
    } else if (this.#escape.length === 6) {
      const hex = this.#escape.slice(2);
      this.#escape = '';
      if (!/^[\da-fA-F]{4}$/.test(hex)) this.#stopped = true;
      else this.#stringText(String.fromCharCode(Number.parseInt(hex, 16)));
    }
  }

  #endString(): void {
    this.#flushDelta();
    this.#inString = false;
    const depth = this.#stack.length;
    if (this.#role === Role.Key) {
      if (depth === this.#callDepth) this.#callKey = this.#string;
      else {
        this.#argumentKey = this.#string;
        this.#argumentCounts.set(this.#string, (this.#argumentCounts.get(this.#string) ?? 0) + 1);
      }
    } else if (this.#role === Role.Name) {
      const call = this.#current as PreviewedCall;
      if (call.name === undefined) {
        call.name = this.#string.trim();
        this.sink.name(call.id, call.name);
      }
    }
  }
}
