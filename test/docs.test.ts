// Every `sh` and `ts` block of README.md and docs/ runs as written, with `tagcall` on the PATH
// (the built CLI) and the package importable by its name; only the recipes' ports (8080 for a
// model server, 4000 for tagcall serve) become free ones, so a llama-server of the person
// running the tests is neither disturbed nor in the way. Blocks fenced as `console` are not
// run: other programs' commands (llama-server, vLLM, Hadoop), installing, and the two commands
// CI itself runs (.ci/run); nor are `json` and plain blocks, which show data.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Inside the repository, so bare imports ('tagcall', 'openai') resolve as for a user of it.
const WORK = join(ROOT, 'test', '.snippets');
rmSync(WORK, { recursive: true, force: true });
mkdirSync(join(WORK, 'bin'), { recursive: true });
writeFileSync(
  join(WORK, 'bin', 'tagcall'),
  `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'dist/cli/main.js')}" "$@"\n`,
);
chmodSync(join(WORK, 'bin', 'tagcall'), 0o755);
afterAll(() => rmSync(WORK, { recursive: true, force: true }));

interface Block {
  file: string;
  line: number;
  lang: 'sh' | 'ts';
  code: string;
}

function blocksOf(file: string): Block[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]);
    if (open === null) continue;
    const end = lines.indexOf('```', i + 1);
    if (open[1] === 'sh' || open[1] === 'ts')
      blocks.push({
        file,
        line: i + 1,
        lang: open[1],
        code: withFreePorts(lines.slice(i + 1, end).join('\n')),
      });
    i = end;
  }
  return blocks;
}

/** A port nothing listens on now. */
function freePort(): number {
  const out = spawnSync(
    process.execPath,
    [
      '-e',
      "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })",
    ],
    { encoding: 'utf8' },
  );
  return Number(out.stdout.trim());
}
const PORTS: Record<string, string> = { '8080': String(freePort()), '4000': String(freePort()) };
const withFreePorts = (code: string) => code.replace(/\b(8080|4000)\b/g, (port) => PORTS[port]);

const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)];
const blocks = files.flatMap(blocksOf);

describe('README is a front page', () => {
  // #45 item 9: it had grown to 280 lines; the reference lives in docs/.
  it('stays under 260 lines', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThan(260);
  });
});

describe('README and docs/: every command and snippet runs as written', () => {
  it('finds the snippets', () => {
    expect(blocks.filter((b) => b.lang === 'sh').length).toBeGreaterThanOrEqual(6);
    expect(blocks.filter((b) => b.lang === 'ts').length).toBeGreaterThanOrEqual(6);
  });

  for (const block of blocks) {
    it(`${block.file}:${block.line} (${block.lang})`, () => {
      const dir = join(WORK, `${block.file.replace(/\W/g, '-')}-${block.line}`);
      mkdirSync(dir);
      // Shell recipes may run from the repository: its fixtures are there.
      symlinkSync(join(ROOT, 'fixtures'), join(dir, 'fixtures'));
      const run =
        block.lang === 'sh'
          ? spawnSync(
              'bash',
              [
                '-c',
                `set -eo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n${block.code}`,
              ],
              {
                cwd: dir,
                encoding: 'utf8',
                timeout: 60_000,
                env: {
                  ...process.env,
                  PATH: `${join(WORK, 'bin')}:${process.env.PATH}`,
                  NO_COLOR: '1',
                },
              },
            )
          : (() => {
              writeFileSync(join(dir, 'snippet.ts'), block.code);
              return spawnSync(process.execPath, ['--import', 'tsx', 'snippet.ts'], {
                cwd: dir,
                encoding: 'utf8',
                timeout: 60_000,
              });
            })();
      expect(run.error, run.stderr).toBeUndefined();
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    });
  }
});
