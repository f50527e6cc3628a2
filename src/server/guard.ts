import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** Why a request is refused before it is read: its status and message. */
export interface Refusal {
  status: 401 | 403;
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
 * when its Host names an IP address, `localhost`, or a name in `allowedHosts`.
 *
 * Key: with `requireKey`, a request must carry `Authorization: Bearer <key>` (compared in
 * constant time).
 */
export function createGuard(options: { allowedHosts?: readonly string[]; requireKey?: string }) {
  const allowed = new Set([
    'localhost',
    ...(options.allowedHosts ?? []).map((h) => h.toLowerCase()),
  ]);
  const key =
    options.requireKey === undefined ? undefined : Buffer.from(`Bearer ${options.requireKey}`);
  return (request: IncomingMessage): Refusal | null => {
    const header = request.headers.host;
    if (header === undefined) return { status: 403, message: 'the request has no Host header' };
    const name = hostName(header);
    if (isIP(name) === 0 && !allowed.has(name)) {
      return {
        status: 403,
        message: `Host ${JSON.stringify(name)} is not allowed; start tagcall serve with --allowed-host ${name} to accept it`,
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
