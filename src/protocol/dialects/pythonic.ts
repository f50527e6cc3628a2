import { jsonrepair } from 'jsonrepair';
import { type BlockSink, keyPath } from './block.js';
import { type BodyPreview, JsonPreview, type PreviewedCall } from './json-preview.js';

/**
 * Python calls as Llama 4, LFM2 and OLMo 3 write them — a list, `[search(query="a", n=5),
 * now()]`, or one call a line (OLMo 3) — as the JSON list of calls they mean
 * (`[{"name": "search", "arguments": {"query": "a", "n": 5}}, …]`), or null when the text is
 * no such calls. Values are Python literals (strings in either quote, numbers,
 * True/False/None, and JSON's true/false/null, lists, dicts), read through jsonrepair; one
 * pass over the text, strings skipped, brackets counted.
 */
export function pythonicToJson(text: string): string | null {
  if (!/^\s*\[?\s*[A-Za-z_][\w.-]*\s*\(/.test(text)) return null;
  let body = text.trim();
  if (body.startsWith('[') && body.endsWith(']')) body = body.slice(1, -1);
  const calls: string[] = [];
  let at = 0;
  const end = body.length;
  for (;;) {
    // Calls are separated by commas (a list) or by newlines (OLMo 3).
    while (at < end && (/\s/.test(body[at]) || body[at] === ',')) at++;
    if (at >= end) break;
    const name = /[A-Za-z_][\w.-]*/y;
    name.lastIndex = at;
    const match = name.exec(body);
    if (match === null) return null;
    at = skipSpace(body, name.lastIndex, end);
    if (body[at] !== '(') return null;
    const close = matching(body, at, end);
    if (close === -1) return null;
    const args = keywordArguments(body.slice(at + 1, close));
    if (args === null) return null;
    calls.push(`{"name": ${JSON.stringify(match[0])}, "arguments": ${args}}`);
    at = close + 1;
  }
  return calls.length === 0 ? null : `[${calls.join(', ')}]`;
}

const skipSpace = (s: string, at: number, end: number) => {
  while (at < end && /\s/.test(s[at])) at++;
  return at;
};

/** The index of the bracket that closes the one at `open` (strings skipped), or -1. */
function matching(s: string, open: number, end: number): number {
  let depth = 0;
  for (let i = open; i < end; i++) {
    const c = s[i];
    if (c === '"' || c === "'") {
      i = stringEnd(s, i, end);
      if (i === -1) return -1;
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if ((c === ')' || c === ']' || c === '}') && --depth === 0) return i;
  }
  return -1;
}

/** The index of the quote that closes the string opening at `at`, or -1. */
function stringEnd(s: string, at: number, end: number): number {
  const quote = s[at];
  for (let i = at + 1; i < end; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === quote) return i;
  }
  return -1;
}

/** `a=1, b="x"` as a JSON object's text, or null. */
function keywordArguments(text: string): string | null {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'") {
      i = stringEnd(text, i, text.length);
      if (i === -1) return null;
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if ((c === ',' && depth === 0) || i === text.length) {
      if (text.slice(from, i).trim() !== '') parts.push(text.slice(from, i));
      from = i + 1;
    }
  }
  const entries: string[] = [];
  for (const part of parts) {
    const eq = /^\s*([A-Za-z_]\w*)\s*=([\s\S]*)$/.exec(part);
    if (eq === null) return null;
    let value: string;
    try {
      value = JSON.stringify(JSON.parse(jsonrepair(eq[2].trim())));
    } catch {
      return null;
    }
    entries.push(`${JSON.stringify(eq[1])}: ${value}`);
  }
  return `{${entries.join(', ')}}`;
}

/** Where a Python-calls preview stands. */
enum At {
  /** Between calls: blanks, `[`, `,`, `]`. */
  Between = 0,
  Name = 1,
  /** After a name, before its `(`. */
  AfterName = 2,
  /** Before an argument's name, or the call's `)`. */
  Key = 3,
  /** After a key, before its `=`. */
  AfterKey = 4,
  Value = 5,
  /** In a quoted string value: its text streams. */
  String = 6,
  /** In a list, dict or call value (brackets counted, strings skipped). */
  Nested = 7,
  /** In a number or a name (True, None). */
  Scalar = 8,
  /** After a value, before `,` or `)`. */
  AfterValue = 9,
}

const PYTHON_ESCAPES: Record<string, string> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
  '/': '/',
};
/** How many hex digits follow `\x` and `\u`. */
const HEX_ESCAPES: Record<string, number> = { x: 2, u: 4 };
const NAME_CHAR = /[\w.-]/;

/**
 * Tells Python calls while they are written (`[search(query="a", n=5), now()]`, or one a
 * line): a call starts and is named at its `(`, and the text of each quoted string argument
 * streams as it is decoded. A preview: the parse of the whole body decides (see
 * pythonicToJson), and it stops at what it does not know (an escape other than `\n`, `\t`,
 * `\r`, `\\` and quotes). A body that is a JSON list of calls (llama.cpp's LFM2 template)
 * is previewed as JSON.
 */
export class PythonCallsPreview implements BodyPreview {
  readonly #calls: PreviewedCall[] = [];
  #at = At.Between;
  #word = '';
  #key = '';
  #quote = '';
  #escaped = false;
  /** An escape being read in a string value, backslash dropped (`u00e9` so far). */
  #escape = '';
  /** Brackets open in a nested value, and the quote of a string inside it. */
  #depth = 0;
  #nestedQuote = '';
  #json: JsonPreview | null = null;
  #seen = '';
  #stopped = false;

  constructor(private readonly sink: BlockSink) {}

  /** The calls started: a JSON list's, once the body showed it is one. */
  get calls(): readonly PreviewedCall[] {
    return this.#json?.calls ?? this.#calls;
  }

  write(text: string): void {
    if (this.#json !== null) {
      this.#json.write(text);
      return;
    }
    for (let k = 0; k < text.length && !this.#stopped; k++) {
      const c = text[k];
      if (this.#at === At.String) {
        if (this.#escaped) {
          this.#readEscape(c);
          continue;
        }
        if (c === '\\') this.#escaped = true;
        else if (c === this.#quote) this.#at = At.AfterValue;
        else {
          let end = k + 1;
          while (end < text.length && text[end] !== this.#quote && text[end] !== '\\') end++;
          this.#delta(text.slice(k, end));
          k = end - 1;
        }
        continue;
      }
      if (this.#calls.length === 0 && this.#at === At.Between && c === '{') {
        this.#json = new JsonPreview(this.sink);
        this.#json.write(this.#seen + text.slice(k));
        return;
      }
      if (this.#calls.length === 0 && this.#at === At.Between) this.#seen += c;
      this.#step(c);
    }
  }

  #step(c: string): void {
    const blank = c === ' ' || c === '\n' || c === '\r' || c === '\t';
    switch (this.#at) {
      case At.Between:
        if (blank || c === '[' || c === ',' || c === ']') return;
        this.#word = '';
        this.#at = At.Name;
        this.#step(c);
        return;
      case At.Name:
      case At.Key:
        if (NAME_CHAR.test(c)) this.#word += c;
        else if (this.#at === At.Key && this.#word === '' && (blank || c === ',')) return;
        else if (this.#at === At.Key && this.#word === '' && c === ')') this.#at = At.Between;
        else {
          this.#at = this.#at === At.Name ? At.AfterName : At.AfterKey;
          this.#step(c);
        }
        return;
      case At.AfterName:
        if (blank) return;
        if (c !== '(' || this.#word === '') {
          this.#stopped = true;
          return;
        }
        this.#calls.push({ id: this.sink.start(), name: this.#word });
        this.sink.name(this.#current.id, this.#word);
        this.#word = '';
        this.#at = At.Key;
        return;
      case At.AfterKey:
        if (blank) return;
        if (c !== '=' || this.#word === '') {
          this.#stopped = true;
          return;
        }
        this.#key = this.#word;
        this.#word = '';
        this.#at = At.Value;
        return;
      case At.Value:
        if (blank) return;
        if (c === '"' || c === "'") {
          this.#quote = c;
          this.#at = At.String;
        } else if (c === '[' || c === '{' || c === '(') {
          this.#depth = 1;
          this.#at = At.Nested;
        } else this.#at = At.Scalar;
        return;
      case At.Nested:
        if (this.#nestedQuote !== '') {
          if (this.#escaped) this.#escaped = false;
          else if (c === '\\') this.#escaped = true;
          else if (c === this.#nestedQuote) this.#nestedQuote = '';
        } else if (c === '"' || c === "'") this.#nestedQuote = c;
        else if (c === '[' || c === '{' || c === '(') this.#depth++;
        else if ((c === ']' || c === '}' || c === ')') && --this.#depth === 0)
          this.#at = At.AfterValue;
        return;
      case At.Scalar:
      case At.AfterValue:
        if (c === ',') this.#at = At.Key;
        else if (c === ')') this.#at = At.Between;
        else if (this.#at === At.AfterValue && !blank) this.#stopped = true;
        return;
    }
  }

  #readEscape(c: string): void {
    this.#escape += c;
    const hex = HEX_ESCAPES[this.#escape[0]];
    if (hex === undefined) {
      this.#escaped = false;
      this.#escape = '';
      const decoded = PYTHON_ESCAPES[c];
      if (decoded === undefined) this.#stopped = true;
      else this.#delta(decoded);
    } else if (this.#escape.length === hex + 1) {
      const digits = this.#escape.slice(1);
      this.#escaped = false;
      this.#escape = '';
      if (!/^[\da-fA-F]+$/.test(digits)) this.#stopped = true;
      else this.#delta(String.fromCharCode(Number.parseInt(digits, 16)));
    }
  }

  get #current(): PreviewedCall {
    return this.#calls[this.#calls.length - 1];
  }

  /** Text of the string argument being read. */
  #delta(text: string): void {
    this.sink.delta(this.#current.id, keyPath(this.#key, 0), text);
  }
}
