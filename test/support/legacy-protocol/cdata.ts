export const CDATA_OPEN = '<![CDATA[';
const CDATA_CLOSE = ']]>';

/**
 * The text of a name field with its CDATA sections unwrapped, in one pass: a regular
 * expression retried at each of thousands of unclosed `<![CDATA[` is quadratic.
 */
export function unwrapCdata(raw: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const open = raw.indexOf(CDATA_OPEN, at);
    if (open === -1) break;
    const close = raw.indexOf(CDATA_CLOSE, open + CDATA_OPEN.length);
    if (close === -1) break;
    out += raw.slice(at, open) + raw.slice(open + CDATA_OPEN.length, close);
    at = close + CDATA_CLOSE.length;
  }
  return out + raw.slice(at);
}
