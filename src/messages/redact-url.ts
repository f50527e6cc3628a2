/** Query parameters whose values are credentials (`?password=…`, `?api_key=…`). */
const SECRET_PARAMETER =
  /([?&](?:password|passwd|pass|pwd|sslpassword|secret|token|access_token|api_key|apikey|key|auth)=)[^&#\s]*/gi;

const SCHEME = /^[a-z][a-z0-9+.-]*:(?:\/\/)?/i;

/**
 * `url` as it may be shown in a message: a password in it (`postgres://user:SECRET@host/db`,
 * also `user:pa/ss@` or `user:p@ss@` that no URL parser would take) and the values of
 * credential query parameters become `***`. Works on text that is no valid URL too (a
 * mistyped flag is echoed in its usage error): every message that echoes a URL passes it here.
 */
export function redactUrl(url: string): string {
  let shown = url;
  // The user comes after the scheme (and its `//`, which a mistyped URL may lack); the
  // password runs to the last `@` (it may hold `@`, `/`, `?` written raw).
  const scheme = SCHEME.exec(shown);
  const at = shown.lastIndexOf('@');
  if (scheme !== null && at > scheme[0].length) {
    const colon = shown.indexOf(':', scheme[0].length);
    if (colon !== -1 && colon < at) shown = `${shown.slice(0, colon + 1)}***${shown.slice(at)}`;
  }
  return shown.replace(SECRET_PARAMETER, '$1***');
}

const URL_IN_TEXT = /[a-z][a-z0-9+.-]*:\/\/\S+/gi;

/** `text` (a driver's or a runtime's message) with every URL in it passed through `redactUrl`. */
export function redactUrlsIn(text: string): string {
  return text.replace(URL_IN_TEXT, (url) => redactUrl(url));
}
