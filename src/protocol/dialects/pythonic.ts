import { jsonrepair } from 'jsonrepair';

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
