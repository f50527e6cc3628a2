// `npm run build`: compiles src/ into dist/.
// tsc writes into a fresh folder beside dist/, which is then swapped in, so that a linked
// `tagcall`, or tests running meanwhile, never find dist/ missing or half-written (a build
// takes 10-40 s), and no file of a deleted source stays behind. tsc writes files without
// the execute bit, so the bin gets it here (npm link and a tarball run it directly).
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const NEXT = 'dist.next';
const OLD = 'dist.old';
const BIN = 'cli/main.js';

rmSync(NEXT, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', NEXT], {
  stdio: 'inherit',
});
chmodSync(`${NEXT}/${BIN}`, 0o755);
rmSync(OLD, { recursive: true, force: true });
if (existsSync('dist')) renameSync('dist', OLD);
renameSync(NEXT, 'dist');
rmSync(OLD, { recursive: true, force: true });
