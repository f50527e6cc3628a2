// The package as a user gets it: packed, installed into a new project without tagcall's
// devDependencies, and run from there.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
let base: string;
let app: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'tagcall-installed-'));
  const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', base], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop() as string;
  app = join(base, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{"name": "app", "private": true}\n');
  execFileSync(
    'npm',
    ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', join(base, packed)],
    { cwd: app, stdio: 'ignore' },
  );
}, 300_000);
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('installed from npm pack, without devDependencies', () => {
  it('tagcall demo runs without the MCP server (and says so) and leaves no server or folder behind', () => {
    const temp = join(base, 'tmp');
    mkdirSync(temp);
    const run = spawnSync(
      process.execPath,
      [join(app, 'node_modules/tagcall/dist/cli/main.js'), 'demo'],
      { cwd: app, encoding: 'utf8', env: { ...process.env, TMPDIR: temp }, timeout: 60_000 },
    );
    expect(run.error).toBeUndefined();
    expect(run.stderr).toContain(
      '@modelcontextprotocol/server-everything is not installed, so the MCP step will fail as a tool error',
    );
    expect(run.stderr).toContain('completed after');
    expect(run.status).toBe(0);
    expect(readdirSync(temp)).toEqual([]);
  });

  it('every entry point imports by its name', async () => {
    const script = `for (const e of ['tagcall', 'tagcall/protocol', 'tagcall/server', 'tagcall/transcripts']) await import(e); console.log('ok');`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: app,
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('ok');
  });
});
