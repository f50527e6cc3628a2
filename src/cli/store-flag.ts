import { resolve } from 'node:path';
import {
  createJsonlStore,
  createPostgresStore,
  createSqliteStore,
  type MessageStore,
  StoreError,
} from '../memory/index.js';
import { mapStoreErrors } from '../memory/store-error.js';
import { redactUrl } from '../messages/redact-url.js';
import { CliError, UsageError } from './command.js';

const FORMS =
  'sqlite:PATH (a SQLite file), postgres://USER@HOST:PORT/DATABASE (a PostgreSQL database) or jsonl:DIR (a folder of JSONL threads)';

/**
 * `--store sqlite:PATH`, `postgres://…` (or `postgresql://…`) or `jsonl:DIR`: where `--thread`
 * persists. Anything else is a usage error that names the flag and its forms and shows the
 * value without its user and password; a store's failure later says `--store` and its cause.
 */
export function storeFlag(
  value: string | undefined,
  thread: string | undefined,
  usage: string,
): (() => MessageStore) | undefined {
  if (value === undefined) return undefined;
  if (thread === undefined) throw new UsageError('--store keeps a --thread: give one', usage);
  const shown = redactUrl(value);
  const colon = value.indexOf(':');
  const kind = value.slice(0, colon).toLowerCase();
  const where = value.slice(colon + 1);
  if (colon > 0 && where !== '' && kind === 'sqlite')
    return () => naming(createSqliteStore({ path: resolve(where) }));
  if (colon > 0 && where !== '' && kind === 'jsonl')
    return () => createJsonlStore({ dir: resolve(where) });
  if (kind === 'postgres' || kind === 'postgresql') {
    // `postgres:` alone, or `postgres:host/db`: pg would quietly connect to 127.0.0.1:5432.
    if (!where.startsWith('//'))
      throw new UsageError(
        `--store ${shown}: a PostgreSQL store is a URL: ${kind}://USER@HOST:PORT/DATABASE`,
        usage,
      );
    if (!URL.canParse(value))
      throw new UsageError(
        `--store ${shown}: not a valid URL (a character in the password such as @, / or a space must be percent-encoded: %40, %2F, %20); expected ${kind}://USER@HOST:PORT/DATABASE`,
        usage,
      );
    return () => naming(createPostgresStore({ connectionString: value }));
  }
  throw new UsageError(`--store ${shown}: expected ${FORMS}`, usage);
}

/** The store's failures, said as the flag's (`--store: PostgreSQL at …: connection refused …`). */
const naming = (store: MessageStore) =>
  mapStoreErrors(store, (error) =>
    error instanceof StoreError ? new CliError(`--store: ${error.message}`) : error,
  );
