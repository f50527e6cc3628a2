/**
 * `tagcall parse --format json|pretty` write as the reply streams (#28 item 1): the JSON is byte
 * for byte `JSON.stringify` of the folded result on any chunking, what waits behind `text` spills
 * to a temporary file that is removed, and a reply larger than the heap goes through the CLI.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createJsonReplyWriter } from '../src/cli/json-reply.js';
import { createPrettyWriter } from '../src/cli/pretty.js';
import type { ReplyWriter } from '../src/cli/reply-writer.js';
import { SPOOL_MEMORY_CHARS } from '../src/cli/spool.js';
import { createParser, type ParseOptions, type ParseResult, parse } from './support/all.js';
import { cutsArbitrary, splitAt } from './support/chunk.js';
import { dialectInputs } from './support/dialect-inputs.js';

/** The documented shape of `--format json`, from the folded result: the oracle. */
function expectedJson(result: ParseResult): string {
  const shape = {
    text: result.text,
    thinking: result.thinking,
    calls: result.calls.map((call) => ({
      server_name: call.serverName,
      tool_name: call.toolName,
      arguments: call.arguments,
      format: call.format,
    })),
    warnings: result.warnings.map((w) => ({ code: w.code, message: w.message, offset: w.offset })),
    errors: result.errors.map((e) => ({ code: e.code, message: e.message, offset: e.offset })),
    ...(result.markers !== undefined && { markers: result.markers }),
  };
  return `${JSON.stringify(shape, null, 2)}\n`;
}

async function written(
  make: (out: NodeJS.WritableStream) => ReplyWriter,
  chunks: readonly string[],
  options: ParseOptions = {},
): Promise<string> {
  const out = new PassThrough();
  const parts: Buffer[] = [];
  out.on('data', (data: Buffer) => parts.push(data));
  const writer = make(out);
  const parser = createParser({ ...options, onEvent: writer.add });
  for (const chunk of chunks) {
    parser.feed(chunk);
    await writer.flush();
  }
  parser.end();
  await writer.end();
  return Buffer.concat(parts).toString('utf8');
}

const spoolDir = mkdtempSync(join(tmpdir(), 'tagcall-spool-test-'));
const savedTmp = process.env.TMPDIR;
afterAll(() => {
  process.env.TMPDIR = savedTmp;
  rmSync(spoolDir, { recursive: true, force: true });
});

describe('--format json streams the folded result, byte for byte', () => {
  const inputs = dialectInputs();

  it('every fixture and rendered template, whole and in random chunks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...inputs), cutsArbitrary, async (input, cuts) => {
        const expected = expectedJson(parse(input.text, input.options));
        expect(await written(createJsonReplyWriter, [input.text], input.options)).toBe(expected);
        expect(await written(createJsonReplyWriter, splitAt(input.text, cuts), input.options)).toBe(
          expected,
        );
      }),
      { numRuns: 300 },
    );
  });

  it('a surrogate pair cut between chunks stays one character; lone halves are escaped', async () => {
    const text =
      '[think 😀] a 😀 b <tool><tool_name>x</tool_name><arguments><v>😀</v></arguments></tool> \ud800!';
    for (let cut = 0; cut <= text.length; cut++) {
      const chunks = [text.slice(0, cut), text.slice(cut)];
      expect(await written(createJsonReplyWriter, chunks)).toBe(expectedJson(parse(text)));
    }
  });

  it('what follows text spills to a temporary file past the memory bound, removed after', async () => {
    process.env.TMPDIR = spoolDir;
    const call = (i: number) =>
      `<tool>\n<tool_name>write_file</tool_name>\n<arguments><path>f${i}.ts</path><content>${'x < y && z; '.repeat(300)}</content></arguments>\n</tool>\n`;
    const calls = Math.ceil((SPOOL_MEMORY_CHARS * 1.5) / call(0).length);
    const text = Array.from({ length: calls }, (_, i) => `step ${i}\n${call(i)}`).join('');
    const seen: string[][] = [];
    const out = await written(
      (o) => {
        const writer = createJsonReplyWriter(o);
        return {
          add: writer.add,
          flush: async () => {
            seen.push(readdirSync(spoolDir));
            await writer.flush();
          },
          end: writer.end,
        };
      },
      splitAt(
        text,
        Array.from({ length: 200 }, (_, i) => i * 40_000),
      ),
    );
    expect(out).toBe(expectedJson(parse(text)));
    expect(seen.some((names) => names.length > 0)).toBe(true);
    expect(readdirSync(spoolDir)).toEqual([]);
  });
});

describe('--format pretty prints as it goes', () => {
  it('thinking, calls, warnings and errors in reading order, the counts last', async () => {
    const text =
      '[\n  first thought  \n\n]\nprose\n<tool>\n<tool_name>a</tool_name>\n<arguments><p>1</p></arguments>\n</tool>\n' +
      '<think>  second\n  line  </think>\n<tool>\n<tool_name>b</tool_name>\n<arguments>';
    const whole = await written((out) => createPrettyWriter('r.txt', out, false), [text]);
    expect(whole.split('\n')).toEqual([
      '# r.txt',
      '  💭 first thought',
      '▶ local/a [call_0 @29]',
      '    p: "1"',
      '  💭 second',
      '  💭   line',
      expect.stringMatching(/^✖ incomplete-tool-call @\d+: /),
      `1 call(s), 2 thinking block(s), 0 warning(s), 1 error(s), ${parse(text).text.length} characters of text`,
      '',
    ]);
    for (let size = 1; size <= 8; size++) {
      const chunks = splitAt(
        text,
        Array.from({ length: Math.ceil(text.length / size) }, (_, i) => i * size),
      );
      expect(await written((out) => createPrettyWriter('r.txt', out, false), chunks)).toBe(whole);
    }
  });
});

describe('the CLI writes a reply larger than its heap', () => {
  const ROOT = fileURLToPath(new URL('..', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'tagcall-big-reply-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const format of ['json', 'pretty'] as const) {
    it(`--format ${format}, 96 MB of replies under a 48 MB heap`, async () => {
      const file = join(dir, 'replies.txt');
      const out = createWriteStream(file);
      const reply = `I will write the file.\n[check the path]\n<tool>\n<tool_name>write_file</tool_name>\n<arguments><path>a.ts</path><content>${'const a = b < c && d;\n'.repeat(40)}</content></arguments>\n</tool>\nDone.\n`;
      for (let written = 0; written < 96e6; written += reply.length * 1000)
        if (!out.write(reply.repeat(1000)))
          await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      await new Promise((resolve) => out.end(resolve));
      const child = spawn(
        process.execPath,
        [
          '--max-old-space-size=48',
          '--import',
          'tsx',
          'src/cli/main.ts',
          'parse',
          file,
          '--format',
          format,
        ],
        { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', TMPDIR: dir } },
      );
      let bytes = 0;
      let tail = '';
      child.stdout.on('data', (data: Buffer) => {
        bytes += data.length;
        tail = (tail + data.toString('latin1')).slice(-200);
      });
      let stderr = '';
      child.stderr.on('data', (data: Buffer) => {
        stderr += data.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(bytes).toBeGreaterThan(format === 'json' ? 96e6 : 10e6);
      expect(tail).toMatch(
        format === 'json' ? /"errors": \[\]\n}\n$/ : /0 error\(s\), \d+ characters of text\n$/,
      );
      expect(readdirSync(dir).filter((name) => name.startsWith('tagcall-'))).toEqual([]);
    }, 120_000);
  }
});
