import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ENTRIES = [
  'tagcall',
  'tagcall/protocol',
  'tagcall/messages',
  'tagcall/memory',
  'tagcall/tools',
  'tagcall/agent',
  'tagcall/server',
  'tagcall/grammar',
  'tagcall/transcripts',
  'tagcall/ai-sdk',
];

describe('the package', () => {
  it('imports by its own name after npm ci (exports point at the compiled build)', async () => {
    const tagcall = await import('tagcall');
    expect(typeof tagcall.createParser).toBe('function');
    expect(tagcall.parse('<tool>\n<tool_name>ping</tool_name>\n</tool>\n').calls[0].toolName).toBe(
      'ping',
    );
  });

  it('exports the AI SDK middleware as tagcall/ai-sdk', async () => {
    const { tagcallMiddleware } = await import('tagcall/ai-sdk');
    expect(tagcallMiddleware().specificationVersion).toBe('v3');
  });

  // A name added to or dropped from an entry point shows up here, to be decided on purpose.
  it('each entry point exports exactly its public names', async () => {
    const names: Record<string, string[]> = {};
    for (const entry of ENTRIES) names[entry] = Object.keys(await import(entry)).sort();
    expect(names).toMatchSnapshot();
  });

  // #45 item 1: tsc writes dist/cli/main.js without its execute bit, and a rebuild broke an
  // `npm link`ed tagcall (exit 126, Permission denied).
  it('the build leaves the bin executable', () => {
    const bin = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
    expect(statSync(bin).mode & 0o111).toBe(0o111);
  });

  // npm 11 warns on installing a package with any of these that allowScripts does not cover;
  // the build runs before packing (prepack) instead.
  it('has no script that runs when the package is installed', () => {
    const { scripts } = JSON.parse(
      readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
    ) as { scripts: Record<string, string> };
    for (const event of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect(scripts, event).not.toHaveProperty(event);
    expect(scripts.prepack).toBe('npm run build');
  });

  it('tagcall/protocol imports nothing outside itself: no package, no node: module (it runs in a browser)', () => {
    const dir = fileURLToPath(new URL('../dist/protocol/', import.meta.url));
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.js'),
    );
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const code = readFileSync(join(dir, file), 'utf8');
      const specifiers = [
        ...code.matchAll(/\bfrom\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]/g),
      ].map((m) => m[1] ?? m[2]);
      for (const specifier of specifiers) expect(specifier, file).toMatch(/^\.\.?\//);
      expect(code, file).not.toMatch(/\b(process|Buffer|require)\b/);
    }
  });
});
