/**
 * `--store`, `--base-url` and `--upstream` as a user mistypes them, and stores that cannot be
 * reached (issue 44 items 12 and 14, issue 45 item 4): the CLI as a child process, against a
 * port nothing listens on, real SQLite files and a real PostgreSQL server.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore, createSqliteStore, StoreError } from '../src/memory/index.js';
import { redactUrl, redactUrlsIn } from '../src/messages/redact-url.js';
import { runTagcall } from './support/cli-child.js';
import { freePort } from './support/free-port.js';
import { type PostgresServer, postgresBin, startPostgres } from './support/postgres-server.js';

/** A `run` that needs its store before the model: the model's URL answers nothing. */
const runWithStore = (store: string) =>
  runTagcall([
    'run',
    'hi',
    '--base-url',
    'http://127.0.0.1:9/v1',
    '--model',
    'm',
    '--thread',
    't',
    '--store',
    store,
  ]);

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tagcall-store-flag-'));
  dirs.push(dir);
  return dir;
}

describe('redactUrl: a user or password is never shown', () => {
  it.each([
    ['pg://user:SECRET@host/db', 'pg://***@host/db'],
    ['postgres://u:p@SECRET/x@h:5/db', 'postgres://***@h:5/db'],
    ['postgres:u:SECRET@h', 'postgres:***@h'],
    ['http://h/v1?api_key=SECRET&x=1', 'http://h/v1?api_key=***&x=1'],
    ['https://TOKEN@github.com/x', 'https://***@github.com/x'],
    ['http://host/a@b', 'http://host/a@b'],
    ['sqlite:/tmp/a.db', 'sqlite:/tmp/a.db'],
  ])('%s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  it('in text, every URL', () => {
    expect(redactUrlsIn('a http://u:SECRET@h/v1 and postgres://v:SECRET2@g/db.')).toBe(
      'a http://***@h/v1 and postgres://***@g/db.',
    );
  });
});

describe('tagcall run --store: a value it cannot use is a usage error naming the flag, its password hidden', () => {
  for (const store of [
    'pg://user:SECRET@host/db',
    'postgress://user:SECRET@host/db',
    'mysql://user:SECRET@host/db',
    'postgres:',
    'postgres:user:SECRET@host',
    'postgresql:/db',
    'postgres://user:SEC RET@[::1/db',
  ])
    it(store, async () => {
      const run = await runWithStore(store);
      expect(run.status).toBe(2);
      expect(run.stderr).not.toContain('SECRET');
      expect(run.stderr).not.toContain('SEC RET');
      expect(run.stderr).toMatch(/^tagcall: --store \S+/);
      expect(run.stderr).toMatch(/postgres(ql)?:\/\/USER@HOST:PORT\/DATABASE/);
      expect(run.stderr).not.toContain('ECONNREFUSED');
    });
});

describe('--base-url and --upstream: a URL with credentials, or no http URL, is a usage error without the password', () => {
  for (const [args, flag] of [
    [['run', 'hi', '--model', 'm', '--base-url', 'http://u:SECRET@127.0.0.1:9/v1'], '--base-url'],
    [['run', 'hi', '--model', 'm', '--base-url', 'not a url'], '--base-url'],
    [['serve', '--upstream', 'ftp://u:SECRET@127.0.0.1:9/v1'], '--upstream'],
    [['serve', '--upstream', 'http://u:SECRET@127.0.0.1:9/v1'], '--upstream'],
  ] as const)
    it(args.join(' '), async () => {
      const run = await runTagcall([...args]);
      expect(run.status).toBe(2);
      expect(run.stderr.startsWith(`tagcall: ${flag} `)).toBe(true);
      expect(run.stderr).not.toContain('SECRET');
    });
});

describe('a store that cannot be opened says --store, the cause and what to try (exit 1)', () => {
  it('PostgreSQL where nothing listens: connection refused, host and port, no password', async () => {
    const port = await freePort();
    const run = await runWithStore(`postgres://tagcall:SECRET@127.0.0.1:${port}/db`);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      `tagcall: --store: PostgreSQL at postgres://***@127.0.0.1:${port}/db: connection refused: nothing listens at 127.0.0.1:${port}; start PostgreSQL there, or correct the host and port\n`,
    );
  });

  it('SQLite in a folder that does not exist', async () => {
    const path = join(tempDir(), 'missing', 'x.db');
    const run = await runWithStore(`sqlite:${path}`);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      `tagcall: --store: SQLite file ${path}: the folder ${join(path, '..')} does not exist; create it first\n`,
    );
  });

  it('SQLite on a file that is no database', async () => {
    const path = join(tempDir(), 'notes.txt');
    writeFileSync(path, 'these are notes, not a database\n'.repeat(200));
    const run = await runWithStore(`sqlite:${path}`);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`--store: SQLite file ${path}: ${path} is not a SQLite database`);
  });

  it('the library: a StoreError with the driver error as its cause', async () => {
    const store = createSqliteStore({ path: join(tempDir(), 'no', 'such', 'x.db') });
    const error = await store.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toMatch(/does not exist; create it first$/);
    expect((error as Error).cause).toBeInstanceOf(Error);
    await store.close();
  });
});

const missing = postgresBin() === null;
describe.skipIf(missing)('a real PostgreSQL server: what it refuses, said in words', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(() => server?.stop());
  const at = (user: string, database: string) =>
    server.connectionString
      .replace('tagcall@', `${user}:SECRET@`)
      .replace(/\/postgres$/, `/${database}`);

  it('a database that does not exist', async () => {
    const url = at('tagcall', 'nowhere');
    const run = await runWithStore(url);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      `tagcall: --store: PostgreSQL at ${redactUrl(url)}: database "nowhere" does not exist; create it (createdb) or name another database in the URL\n`,
    );
  });

  it('a role that does not exist', async () => {
    const store = createPostgresStore({ connectionString: at('nobody', 'postgres') });
    const error = await store.list().catch((e: unknown) => e);
    await store.close();
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toBe(
      `PostgreSQL at ${redactUrl(at('nobody', 'postgres'))}: role "nobody" does not exist; check the user name and the server's pg_hba.conf`,
    );
  });
});
