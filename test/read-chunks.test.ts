/**
 * readChunks reads a file that was small when listed with blocking reads of its listed size
 * (a folder of 10 KB transcripts cost 6× the CPU through a stream): still every byte, in
 * pieces of that size, when the file has grown since, and characters split between reads
 * whole.
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readChunks } from '../src/cli/read-chunks.js';
import { cleanupsAfterEach } from './support/cleanups.js';

const cleanups = cleanupsAfterEach();

async function read(path: string, expectedBytes?: number) {
  const chunks: string[] = [];
  let bytes = 0;
  for await (const chunk of readChunks(path, (n) => (bytes += n), undefined, expectedBytes))
    chunks.push(chunk);
  return { text: chunks.join(''), chunks, bytes };
}

describe('readChunks', () => {
  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'tagcall-read-chunks-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };

  it('reads a small file that grew after it was listed to its end, a piece at a time', async () => {
    const path = join(folder(), 'grown.jsonl');
    writeFileSync(path, 'x'.repeat(100));
    appendFileSync(path, `${'é€😀'.repeat(20_000)}\n`);
    // Listed at 100 bytes: reads of 16 KiB (the least), so the grown file takes many.
    const { text, chunks, bytes } = await read(path, 100);
    expect(text).toBe(`${'x'.repeat(100)}${'é€😀'.repeat(20_000)}\n`);
    expect(bytes).toBe(100 + 9 * 20_000 + 1);
    expect(chunks.length).toBeGreaterThan(10);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(16 << 10);
  });

  it('reads a small file and a large one the same', async () => {
    const dir = folder();
    const text = `${'{"a":"<&>😀"}\n'.repeat(3_000)}`;
    const path = join(dir, 'log.jsonl');
    writeFileSync(path, text);
    expect((await read(path, Buffer.byteLength(text))).text).toBe(text);
    expect((await read(path)).text).toBe(text);
  });

  it('reads an empty file as nothing and a missing one as an error', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'empty'), '');
    expect((await read(join(dir, 'empty'), 0)).chunks).toEqual([]);
    await expect(read(join(dir, 'missing'), 10)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
