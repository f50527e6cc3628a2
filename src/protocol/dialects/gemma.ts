const QUOTE = '<|"|>';

/**
 * Gemma 4's call, `call:get_weather{city:<|"|>Paris<|"|>,days:3}`, as the JSON list of calls
 * it means (`[{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]`), or null
 * when it is no such call. Strings stand between `<|"|>` tokens (their text as written), keys
 * are bare names, everything else is JSON. One pass.
 */
export function gemmaCallToJson(body: string): string | null {
  const head = /^\s*call:([A-Za-z_][\w.-]*)\s*(?=\{)/.exec(body);
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
