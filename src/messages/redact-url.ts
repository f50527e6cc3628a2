/** Query parameters whose values are credentials (`?password=…`, `?api_key=…`). */
const SECRET_PARAMETER =
  /([?&](?:password|passwd|pass|pwd|sslpassword|secret|token|access_token|api_key|apikey|key|auth)=)[^&#\s]*/gi;

const SCHEME = /^[a-z][a-z0-9+.-]*:(?:\/\/)?/i;

/**
 * `url` as it may be shown in a message: its user and password (`postgres://user:SECRET@host/db`,
 * also `user:pa/ss@` or `user:p@ss@` that no URL parser would take) and the values of
 * credential query parameters become `***`. Works on text that is no valid URL too (a
 * mistyped flag is echoed in its usage error): every message that echoes a URL passes it here.
 */
export function redactUrl(url: string): string {
  let shown = url;
  // The user and password come after the scheme (and its `//`, which a mistyped URL may
  // lack) and run to the last `@` (a password may hold `@`, `/`, `?` written raw). The user
  // goes too: a token is often written there (`https://TOKEN@host`).
  const scheme = SCHEME.exec(shown);
  const at = shown.lastIndexOf('@');
  if (scheme !== null && at > scheme[0].length) {
    const info = shown.slice(scheme[0].length, at);
    // An `@` in a path after the host (`http://host/a@b`) is no credential.
    const slash = info.indexOf('/');
    if (slash === -1 || (info.indexOf(':') !== -1 && info.indexOf(':') < slash))
      shown = `${shown.slice(0, scheme[0].length)}***${shown.slice(at)}`;
  }
  return shown.replace(SECRET_PARAMETER, '$1***');
}

const URL_IN_TEXT = /[a-z][a-z0-9+.-]*:\/\/\S+/gi;

/** `text` (a driver's or a runtime's message) with every URL in it passed through `redactUrl`. */
export function redactUrlsIn(text: string): string {
  return text.replace(URL_IN_TEXT, (url) => redactUrl(url));
}
