import { partialSuffixStart, startsWithAt } from '../tag.js';
import { type BlockSink, keyPath } from './block.js';
import type { BodyPreview, PreviewedCall } from './json-preview.js';

const QUOTE = '<|"|>';
/** `call:NAME` before the arguments' `{`. */
const CALL_HEAD = /^\s*call:([A-Za-z_][\w.-]*)\s*(?=\{)/;
/** A bare key before its `:`. */
const TOP_KEY = /[A-Za-z_][\w.-]*(?=\s*:)/y;

/**
 * Gemma 4's call, `call:get_weather{city:<|"|>Paris<|"|>,days:3}`, as the JSON list of calls
 * it means (`[{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]`), or null
 * when it is no such call. Strings stand between `<|"|>` tokens (their text as written), keys
 * are bare names, everything else is JSON. One pass.
 */
export function gemmaCallToJson(body: string): string | null {
  const head = CALL_HEAD.exec(body);
  if (head === null) return null;
  const text = body.slice(head[0].length).trimEnd();
  let out = '';
  const key = /[A-Za-z_][\w.-]*(?=\s*:)/y;
  for (let i = 0; i < text.length; ) {
    if (text.startsWith(QUOTE, i)) {
      const end = text.indexOf(QUOTE, i + QUOTE.length);
      if (end === -1) return null;
      out += JSON.stringify(text.slice(i + QUOTE.length, end));
      i = end + QUOTE.length;
      continue;
    }
    key.lastIndex = i;
    const name = key.exec(text);
    if (name !== null) {
      out += JSON.stringify(name[0]);
      i = key.lastIndex;
      continue;
    }
    out += text[i];
    i++;
  }
  return `[{"name": ${JSON.stringify(head[1])}, "arguments": ${out}}]`;
}

/**
 * Tells Gemma 4's call while it is written: it starts and is named at the `{` after
 * `call:NAME`, and the text of each top-level string argument (between `<|"|>` tokens)
 * streams as written. A preview: the parse of the whole body decides (see gemmaCallToJson).
 */
export class GemmaCallPreview implements BodyPreview {
  readonly calls: PreviewedCall[] = [];
  /** Text not yet read: a head without its `{`, or what may be the start of `<|"|>`. */
  #held = '';
  #key = '';
  /** Brackets open in the arguments (1: at the top level). */
  #depth = 0;
  #inString = false;
  #stopped = false;

  constructor(private readonly sink: BlockSink) {}

  write(text: string): void {
    if (this.#stopped) return;
    let s = this.#held + text;
    this.#held = '';
    if (this.calls.length === 0) {
      const head = CALL_HEAD.exec(s);
      if (head === null) {
        if (s.length > 300 || !/^\s*(c(a(l(l(:[\w.-]*\s*)?)?)?)?)?$/.test(s)) this.#stopped = true;
        else this.#held = s;
        return;
      }
      this.calls.push({ id: this.sink.start(), name: head[1] });
      this.sink.name(this.calls[0].id, head[1]);
      this.#depth = 1;
      s = s.slice(head[0].length + 1);
    }
    const id = this.calls[0].id;
    let i = 0;
    while (i < s.length && this.#depth > 0) {
      if (this.#inString) {
        const end = s.indexOf(QUOTE, i);
        // Hold back what may be the start of the closing token.
        const upTo = end !== -1 ? end : partialSuffixStart(s, i, QUOTE);
        if (this.#depth === 1 && upTo > i)
          this.sink.delta(id, keyPath(this.#key, 0), s.slice(i, upTo));
        if (end === -1) {
          this.#held = s.slice(upTo);
          return;
        }
        this.#inString = false;
        i = end + QUOTE.length;
        continue;
      }
      const quote = startsWithAt(s, i, QUOTE);
      if (quote === true) {
        this.#inString = true;
        i += QUOTE.length;
        continue;
      }
      if (quote === null) {
        this.#held = s.slice(i);
        return;
      }
      TOP_KEY.lastIndex = i;
      const name = this.#depth === 1 ? TOP_KEY.exec(s) : null;
      if (name !== null) {
        this.#key = name[0];
        i = TOP_KEY.lastIndex;
        continue;
      }
      // A key at the end of the text may go on: read it with what comes next.
      if (this.#depth === 1 && /^[A-Za-z_][\w.-]*\s*$/.test(s.slice(i))) {
        this.#held = s.slice(i);
        return;
      }
      const c = s[i];
      if (c === '{' || c === '[') this.#depth++;
      else if (c === '}' || c === ']') this.#depth--;
      i++;
    }
  }
}
