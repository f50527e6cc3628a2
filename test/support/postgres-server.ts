// A throwaway PostgreSQL server for tests: a cluster in a temporary folder, listening on
// 127.0.0.1 at a free port, stopped by PID. initdb refuses root, so as root it runs as the
// `postgres` user.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/** The folder of PostgreSQL's programs, or null when it is not installed. */
export function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  for (const version of readdirSync(root).sort().reverse()) {
    const bin = join(root, version, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin;
  }
  return null;
}

export interface PostgresServer {
  connectionString: string;
  /** The postmaster's PID (it changes on restart). */
  pid(): number;
  /** SIGKILL the server, as a crash would, and wait for its processes to go. */
  crash(): Promise<void>;
  start(): void;
  stop(): void;
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBin();
  if (bin === null) throw new Error('PostgreSQL is not installed (/usr/lib/postgresql/*/bin)');
  const dir = mkdtempSync(join(tmpdir(), 'tagcall-pg-'));
  chmodSync(dir, 0o755);
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? Number(execFileSync('id', ['-u', 'postgres']).toString()) : undefined;
  if (owner !== undefined)
    chownSync(dir, owner, Number(execFileSync('id', ['-g', 'postgres']).toString()));
  const run = (program: string, args: string[]) =>
    execFileSync(
      asRoot ? 'runuser' : join(bin, program),
      asRoot ? ['-u', 'postgres', '--', join(bin, program), ...args] : args,
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 },
    );
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'tagcall', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const start = () => {
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'log'),
      '-o',
      `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir}`,
      '-w',
      'start',
    ]);
  };
  const pid = () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  start();
  return {
    connectionString: `postgres://tagcall@127.0.0.1:${port}/postgres`,
    pid,
    start,
    async crash() {
      const postmaster = pid();
      const children = execFileSync('pgrep', ['-P', String(postmaster)])
        .toString()
        .trim()
        .split('\n')
        .filter(Boolean)
        .map(Number);
      for (const p of [postmaster, ...children]) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {}
      }
      const alive = (p: number) => {
        try {
          process.kill(p, 0);
          return true;
        } catch {
          return false;
        }
      };
      for (let i = 0; i < 100 && [postmaster, ...children].some(alive); i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
    },
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } catch {
        try {
          process.kill(pid(), 'SIGKILL');
        } catch {}
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
