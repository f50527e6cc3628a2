import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** Why a request is refused before it is read: its status and message. */
export interface Refusal {
  status: 401 | 403 | 415;
  message: string;
}

/** The name in a Host header: `[::1]:4000` → `::1`, `Localhost:4000` → `localhost`. */
function hostName(header: string): string {
  const host = header.trim().toLowerCase();
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.lastIndexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

/**
 * Checks what a request says about who it is for and who sends it.
 *
 * Host: DNS rebinding lets a web page reach a server on 127.0.0.1 under a name the attacker
 * controls; the page's requests then carry that name in `Host`. So a request is served only
 * when its Host names an IP address, `localhost`, or a name in `allowedHosts`. A request
 * target in absolute form (`POST http://other.example/v1/…`) names its host itself (RFC 9112
 * §3.2.2: its authority replaces Host), so its authority is checked the same way.
 *
 * Origin: a web page the operator visits can send requests here (a `text/plain` POST needs
 * no preflight) and spend the upstream's key. Browsers say where a request comes from in
 * `Origin`; programs (the OpenAI SDK, curl) send none. A request with an `Origin` not in
 * `allowedOrigins` is refused, and a POST must say `content-type: application/json` (which
 * a page cannot send across origins without a preflight, and the proxy answers none).
 *
 * Key: with `requireKey`, a request must carry `Authorization: Bearer <key>` (compared in
 * constant time).
 */
export function createGuard(options: {
  allowedHosts?: readonly string[];
  allowedOrigins?: readonly string[];
  requireKey?: string;
}) {
  const allowed = new Set([
    'localhost',
    ...(options.allowedHosts ?? []).map((h) => h.toLowerCase()),
  ]);
  const origins = new Set((options.allowedOrigins ?? []).map((o) => o.toLowerCase()));
  const key =
    options.requireKey === undefined ? undefined : Buffer.from(`Bearer ${options.requireKey}`);
  const hostRefused = (name: string, what: string): Refusal | null =>
    isIP(name) !== 0 || allowed.has(name)
      ? null
      : {
          status: 403,
          message: `${what} ${JSON.stringify(name)} is not allowed; start tagcall serve with --allowed-host ${name} to accept it`,
        };
  return (request: IncomingMessage): Refusal | null => {
    const header = request.headers.host;
    if (header === undefined) return { status: 403, message: 'the request has no Host header' };
    const refused =
      hostRefused(hostName(header), 'Host') ??
      absoluteTargetRefused(request.url ?? '', hostRefused);
    if (refused !== null) return refused;
    const origin = request.headers.origin;
    if (origin !== undefined && !origins.has(origin.toLowerCase()))
      return {
        status: 403,
        message: `requests from web pages (Origin ${JSON.stringify(origin)}) are refused; start tagcall serve with --allowed-origin ${origin} to accept them`,
      };
    if (request.method === 'POST') {
      const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (type !== 'application/json')
        return {
          status: 415,
          message: `the body must be sent with content-type: application/json (got ${JSON.stringify(type || 'none')})`,
        };
    }
    if (key !== undefined) {
      const sent = Buffer.from(request.headers.authorization ?? '');
      if (sent.length !== key.length || !timingSafeEqual(sent, key))
        return { status: 401, message: 'a valid "Authorization: Bearer <key>" header is required' };
    }
    return null;
  };
}

/** A request target in absolute form names its host: checked like Host. */
function absoluteTargetRefused(
  target: string,
  hostRefused: (name: string, what: string) => Refusal | null,
): Refusal | null {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) return null;
  let host: string;
  try {
    host = new URL(target).hostname;
  } catch {
    return { status: 403, message: 'the request target is no valid URL' };
  }
  return hostRefused(hostName(host), "the request target's host");
}
