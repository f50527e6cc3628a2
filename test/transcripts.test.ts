import { spawnSync } from 'node:child_process';
import {
  closeSync,
  ftruncateSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assistant,
  createJsonlStore,
  type Finding,
  recordMessages,
  type ScanOptions,
  scanTranscript,
  system,
  toolResult,
  user,
} from './support/all.js';
import { cutsArbitrary, splitAt } from './support/chunk.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIR = 'fixtures/transcripts';

function tagcall(args: string[], input = '') {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: ROOT,
    input,
    encoding: 'utf8',
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const records = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const short = (r: Record<string, unknown>) =>
  [
    r.type,
    String(r.source).replace(`${DIR}/`, ''),
    r.line ?? null,
    r.message_index ?? null,
    r.offset,
    r.tool_name ?? r.code,
    r.format ?? null,
  ].join(' ');

async function scan(chunks: readonly string[], options: ScanOptions = {}) {
  const findings: Finding[] = [];
  let thinking = 0;
  async function* source() {
    yield* chunks;
  }
  await scanTranscript(source(), 'input', options, {
    finding: (f) => findings.push(f),
    assistant: (_text, k) => {
      thinking += k;
    },
  });
  return { findings, thinking };
}

describe('transcript formats', () => {
  it('tells the record shapes apart', () => {
    const openai = recordMessages({
      messages: [
        { role: 'system', content: 's' },
        { role: 'assistant', content: 'a' },
      ],
    });
    expect(openai?.format).toBe('openai');
    const anthropic = recordMessages({
      system: 's',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'u' }] }],
    });
    expect(anthropic?.format).toBe('anthropic');
    expect(
      recordMessages({ choices: [{ message: { role: 'assistant', content: 'x' } }] })?.messages[0]
        .role,
    ).toBe('assistant');
    expect(
      recordMessages({ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'x' }] })
        ?.format,
    ).toBe('anthropic');
    expect(
      recordMessages({ id: 'e', timestamp: 't', message: { role: 'user', parts: [] } })?.format,
    ).toBe('audit-log');
    expect(recordMessages([{ role: 'user', content: 'hi' }])?.format).toBe('openai');
    expect(recordMessages({ unrelated: true })).toBeNull();
  });

  it('finds each call with its source; quoted calls and structured ones are told apart', () => {
    const { code, stdout } = tagcall(['parse', DIR, '--jobs', '1']);
    expect(code).toBe(0);
    expect(records(stdout).map(short)).toEqual([
      'call anthropic-messages.jsonl 1 2 12 read_file xml',
      'call anthropic-messages.jsonl 1 4 8 write_to_file xml',
      'call anthropic-messages.jsonl 1 4 180 run_tests structured',
      'call audit-log.jsonl 2 0 7 get-sum structured',
      'call audit-log.jsonl 4 0 0 task_completion structured',
      'call messages-array.json  1 6 task_completion xml',
      'quoted openai-chat.jsonl 1 1 51 read_file xml',
      'call openai-chat.jsonl 1 2 36 read_file xml',
      'quoted openai-chat.jsonl 1 3 26 echo xml',
      'call openai-chat.jsonl 1 4 15 list_files xml',
      'call openai-chat.jsonl 1 4 139 read_file xml',
      'error openai-chat.jsonl 2 1 8 incomplete-tool-call ',
      'warning openai-chat.jsonl 3 1 7 deprecated-json-format ',
      'call openai-chat.jsonl 3 1 0 read_file json',
      'call openai-chat.jsonl 3 2 0 create_issue structured',
      'call openai-response.json  0 33 get_weather xml',
      'call reply.txt 3  33 list_files xml',
      'call torn.jsonl 1 0 0 read_file xml',
      'error torn.jsonl 2  0 invalid-record ',
    ]);
  });

  it('gives the same records with worker threads (in another order across files)', () => {
    const one = records(tagcall(['parse', DIR, '--jobs', '1']).stdout).map((r) =>
      JSON.stringify(r),
    );
    const two = records(tagcall(['parse', DIR, '--jobs', '2']).stdout).map((r) =>
      JSON.stringify(r),
    );
    expect([...two].sort()).toEqual([...one].sort());
  });

  it('reads JSONL from standard input, and --input forces the format', () => {
    const text = readFileSync(`${ROOT}/${DIR}/openai-chat.jsonl`, 'utf8');
    const piped = records(tagcall(['parse', '-', '--format', 'ndjson'], text).stdout);
    expect(piped.filter((r) => r.type === 'call')).toHaveLength(5);
    expect(piped[0].source).toBe('<stdin>');
    // Read as plain text, the same file is lines of JSON: its calls are inside escaped strings,
    // not at line starts, so there are none.
    const asText = tagcall(['parse', '-', '--format', 'ndjson', '--input', 'text'], text);
    expect(asText.code).toBe(0);
    expect(asText.stdout).toBe('');
  });

  it('tagcall stats counts calls, malformed ones, quotes, thinking and the slowest calls', () => {
    const { code, stdout } = tagcall(['stats', DIR, '--json']);
    expect(code).toBe(0);
    const stats = JSON.parse(stdout);
    expect(stats).toMatchObject({
      files: 8,
      calls: 14,
      quoted: 2,
      errorsByCode: { 'incomplete-tool-call': 1, 'invalid-record': 1 },
      byFormat: { xml: 9, json: 1, structured: 4 },
      byServer: { local: 11, everything: 1, github: 1, weather: 1 },
      deprecatedJsonCalls: 1,
    });
    expect(
      stats.slowest.map((c: { toolName: string; durationMs: number }) => [
        c.toolName,
        c.durationMs,
      ]),
    ).toEqual([
      ['get-sum', 250],
      ['task_completion', 2],
    ]);
    expect(stats.thinkingShare).toBeGreaterThan(0);
    expect(stats.malformedRate).toBeCloseTo(2 / 16);
    const table = tagcall(['stats', DIR]).stdout;
    expect(table).toContain('14 calls, 2 malformed (12.5%), 2 quoted');
    expect(table).toMatch(/read_file\s+5\s+35\.7%/);
  });

  it('scans the same whatever the chunking (JSONL records split anywhere)', async () => {
    const text =
      readFileSync(`${ROOT}/${DIR}/openai-chat.jsonl`, 'utf8') +
      readFileSync(`${ROOT}/${DIR}/anthropic-messages.jsonl`, 'utf8');
    const whole = await scan([text]);
    expect(whole.findings.filter((f) => f.type === 'call')).toHaveLength(8);
    await fc.assert(
      fc.asyncProperty(cutsArbitrary, async (cuts) => {
        expect(await scan(splitAt(text, cuts))).toEqual(whole);
      }),
      { numRuns: 200 },
    );
  });

  it('reads a JSONL file whose first record is megabytes long as JSONL', async () => {
    const content = 'x'.repeat(3 * 1024 * 1024);
    const reply = `<tool>\n<tool_name>write_to_file</tool_name>\n<arguments><path>big.txt</path><content>${content}</content></arguments>\n</tool>`;
    const text = `${JSON.stringify({ messages: [{ role: 'assistant', content: reply }] })}\n${JSON.stringify({ messages: [{ role: 'assistant', content: 'no calls' }] })}\n`;
    const chunks = Array.from({ length: Math.ceil(text.length / 65536) }, (_, i) =>
      text.slice(i * 65536, (i + 1) * 65536),
    );
    const { findings } = await scan(chunks);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      type: 'call',
      line: 1,
      messageIndex: 0,
      toolName: 'write_to_file',
    });
  });

  it('skips a JSONL record over the limit with an error, and reads on', async () => {
    const good = JSON.stringify({
      messages: [{ role: 'assistant', content: '<tool>\n<tool_name>ok</tool_name>\n</tool>' }],
    });
    const huge = JSON.stringify({ messages: [{ role: 'assistant', content: 'y'.repeat(5000) }] });
    const text = `${good}\n${huge}\n${good}\n`;
    const chunks = Array.from({ length: Math.ceil(text.length / 100) }, (_, i) =>
      text.slice(i * 100, (i + 1) * 100),
    );
    const { findings } = await scan(chunks, { maxDocumentChars: 1000 });
    expect(
      findings.map((f) => [
        f.type,
        f.line,
        f.type === 'error' ? f.code : f.type === 'call' ? f.toolName : '',
      ]),
    ).toEqual([
      ['call', 1, 'ok'],
      ['error', 2, 'document-too-large'],
      ['call', 3, 'ok'],
    ]);
  });
});

describe('a first JSONL record over the limit is skipped, and the lines after it are read (issue 44.8)', () => {
  const good = JSON.stringify({
    messages: [{ role: 'assistant', content: '<tool>\n<tool_name>ok</tool_name>\n</tool>' }],
  });
  const huge = JSON.stringify({ messages: [{ role: 'assistant', content: 'y'.repeat(5000) }] });
  const text = `${huge}\n${good}\n${good}\n`;
  const found = (findings: Finding[]) =>
    findings.map((f) => [
      f.type,
      f.line,
      f.type === 'error' ? f.code : f.type === 'call' ? f.toolName : '',
    ]);

  it('in any chunking, told from content or with --input openai', async () => {
    for (const options of [{}, { input: 'openai' }] as ScanOptions[])
      for (const size of [1, 7, 100, 999, 1000, 1001, 5040, text.length]) {
        const chunks = Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
          text.slice(i * size, (i + 1) * size),
        );
        const { findings } = await scan(chunks, { ...options, maxDocumentChars: 1000 });
        expect(found(findings), `${size} ${JSON.stringify(options)}`).toEqual([
          ['error', 1, 'document-too-large'],
          ['call', 2, 'ok'],
          ['call', 3, 'ok'],
        ]);
      }
  });

  it('a file of one JSON document over the limit is still refused, and one a line is read', async () => {
    const one = await scan([huge], { maxDocumentChars: 1000 });
    expect(found(one.findings)).toEqual([['error', 1, 'document-too-large']]);
    const pretty = JSON.stringify(
      { messages: [{ role: 'user', content: 'y'.repeat(2000) }] },
      null,
      2,
    );
    const document = await scan([pretty], { maxDocumentChars: 1000 });
    expect(found(document.findings)).toEqual([['error', undefined, 'document-too-large']]);
  });

  it('tagcall parse, the real limit (256 MiB): a first line of 257 MiB and of 514 MiB, in the same memory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tagcall-long-first-'));
    try {
      const peak = (mib: number) => {
        // Sparse: the line's bytes are a hole (NULs inside its string), no disk is written.
        const path = join(dir, `${mib}.jsonl`);
        const fd = openSync(path, 'w');
        writeSync(fd, '{"messages": [{"role": "assistant", "content": "');
        ftruncateSync(fd, mib * 1024 * 1024);
        writeSync(fd, `"}]}\n${good}\n${good}\n`, mib * 1024 * 1024);
        closeSync(fd);
        const run = spawnSync(
          process.execPath,
          [
            '--import',
            'tsx',
            '--import',
            './test/support/report-max-rss.mjs',
            'src/cli/main.ts',
            'parse',
            path,
          ],
          { cwd: ROOT, encoding: 'utf8' },
        );
        rmSync(path);
        expect(run.status, run.stderr).toBe(0);
        expect(records(run.stdout).map((r) => [r.type, r.line, r.code ?? r.tool_name])).toEqual([
          ['error', 1, 'document-too-large'],
          ['call', 2, 'ok'],
          ['call', 3, 'ok'],
        ]);
        return Number(/max-rss (\d+)\n$/.exec(run.stderr)?.[1]);
      };
      const once = peak(257);
      const twice = peak(514);
      // Holding the line (as before: 1.1 GB, or out of memory) would grow with it.
      expect(twice).toBeLessThan(once * 1.25);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});

describe('the progress bar', () => {
  it('draws bytes of the total, calls and rate on a terminal, and nothing elsewhere', async () => {
    const { createProgress } = await import('../src/cli/progress.js');
    const written: string[] = [];
    const terminal = { isTTY: true, write: (text: string) => written.push(text) };
    const bar = createProgress(true, 4_000_000, terminal);
    bar.calls(3);
    bar.read(2_000_000);
    bar.end();
    expect(written.at(-2)).toMatch(/^\r\[#{12}\.{12}\] 2\.0\/4\.0 MB {2}3 calls {2}\d+ MB\/s $/);
    expect(written.at(-1)).toBe('\n');
    const piped: string[] = [];
    const quiet = createProgress(true, 10, {
      isTTY: false,
      write: (text: string) => piped.push(text),
    });
    quiet.read(5);
    quiet.end();
    expect(piped).toEqual([]);
  });
});

describe('when the reader of the output goes away (| head)', () => {
  it('stops quietly with exit 0, with and without workers', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { spawn } = await import('node:child_process');
    const dir = mkdtempSync(`${tmpdir()}/tagcall-epipe-`);
    const line = `${JSON.stringify({ messages: [{ role: 'assistant', content: '<tool>\n<tool_name>ping</tool_name>\n</tool>' }] })}\n`;
    for (const name of ['a.jsonl', 'b.jsonl', 'c.jsonl'])
      writeFileSync(`${dir}/${name}`, line.repeat(20_000));
    try {
      for (const jobs of ['1', '2']) {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', 'src/cli/main.ts', 'parse', dir, '--jobs', jobs, '--no-progress'],
          { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => {
          stderr += d;
        });
        child.stdout.once('data', () => child.stdout.destroy());
        const code = await new Promise((resolve) => child.on('exit', resolve));
        expect({ jobs, code, stderr }).toEqual({ jobs, code: 0, stderr: '' });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// #28 item 7: `tagcall parse .tagcall/threads/demo.jsonl` printed an internal TypeError as an
// invalid-record finding, and `stats` called the file 100% malformed.
describe('tagcall reads its own thread files', () => {
  it('parse finds the calls of a thread the store wrote; stats finds nothing malformed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tagcall-thread-'));
    try {
      const store = createJsonlStore({ dir });
      store.append('demo', user('Read a.'));
      store.append(
        'demo',
        assistant('Reading.', { id: 'c1', toolName: 'read_file', arguments: { path: 'a.txt' } }),
      );
      store.append('demo', toolResult('c1', 'read_file', 'hello'));
      const file = join(dir, 'demo.jsonl');
      const parsed = tagcall(['parse', file, '--format', 'ndjson']);
      expect(parsed.code).toBe(0);
      const findings = parsed.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(findings).toEqual([
        expect.objectContaining({
          type: 'call',
          tool_name: 'read_file',
          arguments: { path: 'a.txt' },
        }),
      ]);
      const stats = tagcall(['stats', file]);
      expect(stats.stdout).toContain('1 call, 0 malformed');
      // A record near a format but broken is said in plain words, not as a TypeError.
      expect(recordMessages({ role: 'user', parts: [{ kind: 'text', text: 'x' }] })?.format).toBe(
        'thread',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // #45 item 8: the system prompt's example calls were counted as "quoted (in user messages
  // or tool results)".
  it("a system prompt's example calls are examples, not quoted calls", () => {
    const dir = mkdtempSync(join(tmpdir(), 'tagcall-thread-'));
    try {
      const store = createJsonlStore({ dir });
      const example = (name: string) => `<tool>\n<tool_name>${name}</tool_name>\n</tool>\n`;
      store.append('t', system(`Call tools so:\n${example('read_file')}${example('list_files')}`));
      store.append('t', user(`Here is one I saw:\n${example('rm')}`));
      const file = join(dir, 't.jsonl');
      const findings = tagcall(['parse', file, '--format', 'ndjson'])
        .stdout.trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(findings.map((f) => [f.type, f.tool_name, f.line])).toEqual([
        ['example', 'read_file', 1],
        ['example', 'list_files', 1],
        ['quoted', 'rm', 2],
      ]);
      expect(tagcall(['stats', file]).stdout).toContain(
        '0 calls, 0 malformed (0.0%), 1 quoted (in user messages or tool results), 2 examples (in system prompts); neither counted as calls',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
