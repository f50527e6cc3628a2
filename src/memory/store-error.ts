import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { redactUrl, redactUrlsIn } from '../messages/redact-url.js';
import { InvalidThreadIdError, type MessageStore } from './message-store.js';
import { MissingPeerError } from './optional-peer.js';

/**
 * A database store failed: the message says which store (its URL without user and password, or its
 * file), the cause in words (connection refused, host not found, no such database) and what
 * to try; `cause` is the driver's own error.
 */
export class StoreError extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'StoreError';
  }
}

interface DriverError {
  code?: string;
  message?: string;
  address?: string;
  port?: number;
  hostname?: string;
}

/** A PostgreSQL driver's (pg's) error, in words, for the store at `connectionString`. */
export function describePostgresError(
  error: unknown,
  connectionString: string,
  timeoutMs: number,
): StoreError {
  const e = error as DriverError;
  const said = redactUrlsIn(String(e.message ?? error));
  let cause: string;
  switch (e.code) {
    case 'ECONNREFUSED':
      cause = `connection refused: nothing listens at ${e.address}:${e.port}; start PostgreSQL there, or correct the host and port`;
      break;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      cause = `host ${e.hostname ?? ''} not found (DNS); correct the host name`;
      break;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      cause = `${e.address ?? 'the host'} cannot be reached (${e.code}); check the host, the network and any firewall`;
      break;
    case '28P01':
      cause = `${said}; check the user and password`;
      break;
    case '28000':
      cause = `${said}; check the user name and the server's pg_hba.conf`;
      break;
    case '3D000':
      cause = `${said}; create it (createdb) or name another database in the URL`;
      break;
    case '42501':
      cause = `${said}; grant the user the right to create the table, or create it beforehand`;
      break;
    default:
      if (/timeout|timed out/i.test(said))
        cause = `no answer within ${timeoutMs / 1000} s (${said}); check the host and port, or raise timeoutMs`;
      else if (/\bSSL\b|TLS|certificate/i.test(said))
        cause = `TLS failed (${said}); check sslmode in the URL`;
      else if (/terminated|ECONNRESET/i.test(said))
        cause = `the connection was closed (${said}); is it a PostgreSQL server, and is it up?`;
      else cause = said;
  }
  return new StoreError(`PostgreSQL at ${redactUrl(connectionString)}: ${cause}`, error);
}

/** A SQLite driver's (libsql's) error, in words, for the store in the file at `path`. */
export function describeSqliteError(error: unknown, path: string): StoreError {
  const e = error as DriverError;
  const said = String(e.message ?? error);
  const folder = dirname(path);
  let cause: string;
  if (e.code === 'SQLITE_NOTADB') cause = `${path} is not a SQLite database; choose another file`;
  else if (e.code === 'SQLITE_BUSY')
    cause = `the file stayed locked by another process for 10 s (${said}); try again`;
  else if (e.code === 'SQLITE_FULL') cause = `the disk is full (${said})`;
  else if (/ConnectionFailed|unable to open|SQLITE_CANTOPEN/i.test(`${e.code} ${said}`)) {
    if (!existsSync(folder)) cause = `the folder ${folder} does not exist; create it first`;
    else if (!writable(folder))
      cause = `the folder ${folder} cannot be written (permission denied); choose another path`;
    else cause = `the file cannot be opened (${said}); check that it is a file you may write`;
  } else cause = said;
  return new StoreError(`SQLite file ${path}: ${cause}`, error);
}

function writable(folder: string): boolean {
  try {
    accessSync(folder, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** `store` with every method's failure passed through `map` (what it returns is thrown). */
export function mapStoreErrors(
  store: MessageStore,
  map: (error: unknown) => unknown,
): MessageStore {
  const told = (error: unknown): never => {
    throw map(error);
  };
  return {
    append: (threadId, message) => store.append(threadId, message).catch(told),
    load: (threadId) => store.load(threadId).catch(told),
    delete: (threadId) => store.delete(threadId).catch(told),
    list: () => store.list().catch(told),
    close: () => store.close().catch(told),
  };
}

/** `store` whose driver failures are told by `describe`; a thread id it refused is as given. */
export function describingErrors(
  store: MessageStore,
  describe: (error: unknown) => StoreError,
): MessageStore {
  return mapStoreErrors(store, (error) =>
    // A missing driver is no failure of this store's place: its own message says what to install.
    error instanceof InvalidThreadIdError ||
    error instanceof StoreError ||
    error instanceof MissingPeerError
      ? error
      : describe(error),
  );
}
