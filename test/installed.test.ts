// The package as a user gets it: packed, installed into a new project without tagcall's
// devDependencies, and run from there.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
let base: string;
let app: string;
let tarball: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'tagcall-installed-'));
  // The dist/ that `npm test` built, packed with scripts off: a `prepack` build here would
  // replace dist/ under the tests and the linked `tagcall` that use it meanwhile (#45).
  const packed = execFileSync(
    'npm',
    ['pack', '--silent', '--ignore-scripts', '--pack-destination', base],
    { cwd: ROOT, encoding: 'utf8' },
  )
    .trim()
    .split('\n')
    .pop() as string;
  tarball = join(base, packed);
  app = join(base, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{"name": "app", "private": true}\n');
  execFileSync(
    'npm',
    ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', tarball],
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
    // #45 item 8: the answer claimed the sum was checked; the nameless call had no header.
    expect(run.stderr).toContain('✖ everything/get-sum');
    expect(run.stdout).not.toContain('= 42');
    expect(run.stdout).toContain('The sum 19 + 23 is not checked');
    expect(run.stderr).toContain('▶ a call, its tool not named yet\n    path: notes/parser.md\n');
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

  const node = (args: string[], cwd = app) =>
    spawnSync(process.execPath, args, { cwd, encoding: 'utf8', timeout: 60_000 });

  // #28 item 11: gpt-tokenizer (30 MB, for exact() only) and the MCP SDK (with express, hono,
  // cors) were hard dependencies: `npm i tagcall` added 103 packages and 62 MB.
  it('installs neither gpt-tokenizer nor the MCP SDK: they are optional peers', () => {
    const manifest = JSON.parse(
      readFileSync(join(app, 'node_modules/tagcall/package.json'), 'utf8'),
    ) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional: boolean }>;
    };
    for (const peer of ['gpt-tokenizer', '@modelcontextprotocol/sdk', 'libsql']) {
      expect(manifest.dependencies, peer).not.toHaveProperty(peer);
      expect(manifest.peerDependenciesMeta[peer], peer).toEqual({ optional: true });
      expect(existsSync(join(app, 'node_modules', peer)), peer).toBe(false);
    }
    for (const heavy of ['express', 'hono', 'cors'])
      expect(existsSync(join(app, 'node_modules', heavy)), heavy).toBe(false);
  });

  it('a missing optional peer is named with the command that installs it', () => {
    const script = `
      import { exact, createToolbox } from 'tagcall';
      import { createSqliteStore } from 'tagcall/memory';
      try { await exact(); } catch (e) { console.log(e.message); }
      const toolbox = createToolbox({ mcpServers: { everything: { command: 'true' } } });
      try { await toolbox.listTools(); } catch (e) { console.log(e.message); }
      try { await createSqliteStore({ path: 'x.db' }).list(); } catch (e) { console.log(e.message); }`;
    const run = node(['--input-type=module', '-e', script]);
    expect(run.stderr).toBe('');
    const [tokenizer, mcp, sqlite] = run.stdout.trim().split('\n');
    expect(sqlite).toBe(
      'the SQLite store uses libsql, an optional peer dependency that is not installed: npm i libsql',
    );
    expect(tokenizer).toBe(
      'exact() counts with gpt-tokenizer, an optional peer dependency that is not installed: npm i gpt-tokenizer',
    );
    expect(mcp).toBe(
      'MCP server "everything": MCP servers are reached through @modelcontextprotocol/sdk, an optional peer dependency that is not installed: npm i @modelcontextprotocol/sdk',
    );
    // The CLI says the same in one line.
    writeFileSync(join(base, 'mcp.json'), '{"mcpServers": {"x": {"command": "true"}}}');
    const cli = node([
      join(app, 'node_modules/tagcall/dist/cli/main.js'),
      'grammar',
      '--mcp',
      join(base, 'mcp.json'),
    ]);
    expect(cli.status).toBe(1);
    expect(cli.stderr).toMatch(/^tagcall: MCP server "x": .* npm i @modelcontextprotocol\/sdk\n$/);
  });

  it('an optional peer, once installed, is used', () => {
    const linked = join(app, 'node_modules/gpt-tokenizer');
    symlinkSync(join(ROOT, 'node_modules/gpt-tokenizer'), linked, 'dir');
    try {
      const script = `import { exact } from 'tagcall'; console.log((await exact()).count('hello world'));`;
      const run = node(['--input-type=module', '-e', script]);
      expect(run.stderr).toBe('');
      expect(run.stdout.trim()).toBe('2');
    } finally {
      rmSync(linked);
    }
  });

  it('require() works from CommonJS (Node 20.19+ loads ES modules), and import() as before', () => {
    const run = node([
      '-e',
      "const t = require('tagcall'); const p = require('tagcall/protocol'); console.log(typeof t.runAgent, p.parse('<tool>\\n<tool_name>a</tool_name>\\n</tool>\\n').calls.length)",
    ]);
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('function 1');
  });

  // #45 item 9: the tarball's README linked to docs/*.md that the package did not ship.
  it('ships every page its README and docs link to', () => {
    const root = join(app, 'node_modules/tagcall');
    const pages = ['README.md', ...readdirSync(join(root, 'docs')).map((f) => `docs/${f}`)];
    expect(pages.length).toBeGreaterThan(5);
    for (const page of pages) {
      const text = readFileSync(join(root, page), 'utf8')
        .replace(/^```[\s\S]*?^```/gm, '')
        .replace(/`[^`\n]*`/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)[^)]*\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        expect(existsSync(join(root, page, '..', target)), `${page} -> ${target}`).toBe(true);
      }
    }
  });

  it('ships a LICENSE, keywords and no source map that points at sources it does not ship', () => {
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
    expect(files).toContain('package/LICENSE');
    const maps = files.filter((f) => f.endsWith('.map'));
    for (const map of maps) {
      const { sources } = JSON.parse(
        readFileSync(join(app, 'node_modules/tagcall', map.slice('package/'.length)), 'utf8'),
      ) as { sources: string[] };
      const dir = join(app, 'node_modules/tagcall', map.slice('package/'.length), '..');
      for (const source of sources) expect(existsSync(join(dir, source)), source).toBe(true);
    }
    const manifest = JSON.parse(
      readFileSync(join(app, 'node_modules/tagcall/package.json'), 'utf8'),
    ) as { keywords?: string[]; license: string };
    expect(manifest.license).toBe('MIT');
    expect(manifest.keywords).toEqual(expect.arrayContaining(['llm', 'tool-calling', 'mcp']));
  });
});

// #45 item 3: after `npm i -g ./tagcall-*.tgz`, `npm i libsql` in a project changes nothing (a
// global tagcall imports from its own prefix): the advice names the command that works there.
describe('installed globally (npm i -g --prefix into a temporary prefix)', () => {
  let prefix: string;
  let install: { status: number | null; stderr: string };
  const tagcall = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(join(prefix, 'bin/tagcall'), args, {
      cwd: base,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, ...env },
    });
  beforeAll(() => {
    prefix = join(base, 'global prefix');
    install = spawnSync(
      'npm',
      ['i', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', tarball],
      { cwd: base, encoding: 'utf8' },
    );
  }, 300_000);

  it('installs without a warning about install scripts, and its bin is executable', () => {
    expect(install.status).toBe(0);
    // npm 11 warned "tagcall@0.1.0 (prepare: npm run build)" not covered by allowScripts.
    expect(install.stderr).not.toMatch(/install.scripts|prepare/);
    const run = tagcall(['--version']);
    expect(run.error).toBeUndefined();
    expect(run.stdout).toBe('tagcall 0.1.0\n');
  });

  it('a missing optional peer names the npm i -g command for that prefix, and that command works', () => {
    const store = [
      'run',
      'note',
      '--base-url',
      'http://127.0.0.1:1/v1',
      '--model',
      'm',
      '--thread',
      't',
      '--store',
      `sqlite:${join(base, 'threads.db')}`,
    ];
    const quoted = `'${prefix}'`;
    const missing = tagcall(store);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain(
      `the SQLite store uses libsql, an optional peer dependency that is not installed: npm i -g --prefix ${quoted} libsql\n`,
    );
    // Where the prefix is npm's own global one, the plain command.
    const asNpmSees = tagcall(store, { npm_config_prefix: prefix });
    expect(asNpmSees.stderr).toContain('is not installed: npm i -g libsql\n');
    writeFileSync(join(base, 'mcp.json'), '{"mcpServers": {"x": {"command": "true"}}}');
    const mcp = tagcall(['grammar', '--mcp', join(base, 'mcp.json')]);
    expect(mcp.stderr).toContain(
      `not installed: npm i -g --prefix ${quoted} @modelcontextprotocol/sdk\n`,
    );
    // The advice, run as given, makes the store open: the run now gets as far as the model.
    const advised = spawnSync(
      'npm',
      ['i', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', 'libsql'],
      { cwd: base, encoding: 'utf8' },
    );
    expect(advised.status).toBe(0);
    const after = tagcall(store);
    expect(after.stderr).not.toContain('libsql');
    expect(after.stderr).toContain('turn 1');
  }, 300_000);
});
