/**
 * Mining that shards (#29 item 3): byte ranges of a JSONL log read apart give, concatenated in
 * order, the bytes one process writes for the whole; standard input cut from the log and named
 * with --source and --first-line does too; `stats --merge` of the parts is the whole's stats;
 * folders are read in byte order. The CLI runs as a child process.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { generateCorpus } from '../bench/corpus.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tagcall-shards-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tagcall(args: string[], input?: Buffer) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: ROOT,
    input,
    maxBuffer: 256 << 20,
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr.toString() };
}

/** OpenAI request bodies with replies of the corpus, a broken line, a blank line, unicode. */
function writeLog(): string {
  const { messages } = generateCorpus(600_000, 5);
  const lines = messages.map((reply, i) =>
    i % 23 === 7
      ? '{"messages": [ broken'
      : i % 31 === 3
        ? ''
        : JSON.stringify({
            model: 'local',
            messages: [
              { role: 'user', content: `Task ${i}: é 😀 fix it` },
              { role: 'assistant', content: reply },
            ],
          }),
  );
  const path = join(dir, 'log.jsonl');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe('tagcall parse --range', () => {
  const log = writeLog();
  const size = statSync(log).size;
  const whole = tagcall(['parse', log, '--format', 'ndjson', '--jobs', '1']);

  it('the whole log first: findings with lines and per-record ids', () => {
    expect(whole.code).toBe(0);
    const records = whole.stdout
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records.length).toBeGreaterThan(100);
    const call = records.find((r) => r.type === 'call');
    expect(call.id).toBe(`${log}:${call.line}#0`);
  });

  for (const parts of [1, 3, 7]) {
    it(`${parts} ranges at arbitrary offsets, concatenated in order, are the whole's bytes`, () => {
      // Cut points anywhere: inside records, on a newline, on the byte after one.
      const cuts = Array.from({ length: parts - 1 }, (_, i) =>
        Math.floor(((i + 1) * size) / parts + (i % 2 === 0 ? 17 : -3)),
      );
      const bounds = [0, ...cuts, size];
      const outputs = bounds.slice(1).map((end, i) => {
        const run = tagcall(['parse', log, '--range', `${bounds[i]}:${end}`, '--jobs', '1']);
        expect(run.stderr).toBe('');
        expect(run.code).toBe(0);
        return run.stdout;
      });
      expect(Buffer.concat(outputs).equals(whole.stdout)).toBe(true);
    });
  }

  it('a range that starts right after a newline begins with that record', () => {
    const text = readFileSync(log);
    const newline = text.indexOf(0x0a, Math.floor(size / 2));
    const a = tagcall(['parse', log, '--range', `0:${newline + 1}`]);
    const b = tagcall(['parse', log, '--range', `${newline + 1}:${size}`]);
    expect(Buffer.concat([a.stdout, b.stdout]).equals(whole.stdout)).toBe(true);
    const empty = tagcall(['parse', log, '--range', `${size}:${size + 10}`]);
    expect(empty.code).toBe(0);
    expect(empty.stdout.length).toBe(0);
  });

  it('standard input cut from the log, with --source and --first-line, reads as the range', () => {
    const text = readFileSync(log);
    const from = text.indexOf(0x0a, Math.floor(size / 3)) + 1;
    const firstLine = text.subarray(0, from).filter((b) => b === 0x0a).length + 1;
    const piped = tagcall(
      ['parse', '-', '--source', log, '--first-line', String(firstLine), '--format', 'ndjson'],
      text.subarray(from),
    );
    const ranged = tagcall(['parse', log, '--range', `${from}:${size}`]);
    expect(piped.code).toBe(0);
    expect(piped.stdout.equals(ranged.stdout)).toBe(true);
  });

  it('stats --merge of the parts is the stats of the whole', () => {
    const wholeStats = tagcall(['stats', log, '--json', '--jobs', '1']);
    const bounds = [0, Math.floor(size / 3), Math.floor((2 * size) / 3) + 5, size];
    const parts = bounds.slice(1).map((end, i) => {
      const part = join(dir, `part-${i}.json`);
      const run = tagcall(['stats', log, '--range', `${bounds[i]}:${end}`, '--json']);
      expect(run.code).toBe(0);
      writeFileSync(part, run.stdout);
      return part;
    });
    const merged = tagcall(['stats', '--merge', ...parts, '--json']);
    expect(merged.code).toBe(0);
    expect(JSON.parse(merged.stdout.toString())).toEqual(JSON.parse(wholeStats.stdout.toString()));
    expect(tagcall(['stats', '--merge', ...parts]).stdout.toString()).toBe(
      tagcall(['stats', log, '--jobs', '1']).stdout.toString(),
    );
  });

  it('says what is wrong: a text file, a bad range, two paths, another format, a bad part', () => {
    const text = join(dir, 'reply.txt');
    writeFileSync(text, 'Hello\n<tool>\n<tool_name>x</tool_name>\n</tool>\n');
    const notJsonl = tagcall(['parse', text, '--range', '0:10']);
    expect(notJsonl.code).toBe(1);
    expect(notJsonl.stderr).toContain('--range splits a JSONL log');
    for (const args of [
      ['parse', log, '--range', '9:2'],
      ['parse', log, text, '--range', '0:2'],
      ['parse', log, '--range', '0:2', '--format', 'json'],
      ['parse', log, '--first-line', '3'],
      ['stats', '--merge'],
    ]) {
      const run = tagcall(args);
      expect(run.code, args.join(' ')).toBe(2);
    }
    const bad = tagcall(['stats', '--merge', text]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--merge reads the output of stats --json');
  });
});

describe('one pass: parse --out and --stats-out', () => {
  const log = writeLog();
  const size = statSync(log).size;
  const whole = tagcall(['parse', log, '--jobs', '1']);
  const wholeStats = JSON.parse(tagcall(['stats', log, '--json', '--jobs', '1']).stdout.toString());

  it('each range writes its findings and its stats in one run; in order they are the whole', () => {
    const bounds = [0, Math.floor(size / 3) + 11, Math.floor((2 * size) / 3) - 2, size];
    const parts = bounds.slice(1).map((end, i) => {
      const findings = join(dir, `one-pass-${i}.ndjson`);
      const stats = join(dir, `one-pass-${i}.stats.json`);
      const run = tagcall([
        'parse',
        log,
        '--range',
        `${bounds[i]}:${end}`,
        '--out',
        findings,
        '--stats-out',
        stats,
      ]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout.length).toBe(0);
      return { findings, stats };
    });
    const joined = Buffer.concat(parts.map((p) => readFileSync(p.findings)));
    expect(joined.equals(whole.stdout)).toBe(true);
    const merged = tagcall(['stats', '--merge', ...parts.map((p) => p.stats), '--json']);
    expect(JSON.parse(merged.stdout.toString())).toEqual(wholeStats);
  });

  it('a list of files on standard input, one process: the bytes of the folder read whole', () => {
    const folder = join(dir, 'small-files');
    mkdirSync(folder);
    const { messages } = generateCorpus(120_000, 9);
    const names = messages.map((_, i) => `t-${String(i).padStart(4, '0')}.jsonl`);
    messages.forEach((reply, i) => {
      const record = { messages: [{ role: 'assistant', content: reply }] };
      writeFileSync(join(folder, names[i]), `${JSON.stringify(record)}\n`);
    });
    const one = tagcall(['parse', folder, '--jobs', '1']);
    const oneStats = tagcall(['stats', folder, '--json', '--jobs', '1']);
    const findings = join(dir, 'small.ndjson');
    const stats = join(dir, 'small.stats.json');
    const list = Buffer.from(names.map((n) => `${join(folder, n)}\n`).join(''));
    const run = tagcall(
      ['parse', '--files-from', '-', '--jobs', '1', '--out', findings, '--stats-out', stats],
      list,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(findings).equals(one.stdout)).toBe(true);
    expect(JSON.parse(readFileSync(stats, 'utf8'))).toEqual(JSON.parse(oneStats.stdout.toString()));
  });

  it('with worker threads the lines go to the file whole, and the stats are the same', () => {
    const folder = join(dir, 'two-logs');
    mkdirSync(folder);
    const text = readFileSync(log);
    const half = text.indexOf(0x0a, Math.floor(size / 2)) + 1;
    writeFileSync(join(folder, 'a.jsonl'), text.subarray(0, half));
    writeFileSync(join(folder, 'b.jsonl'), text.subarray(half));
    const findings = join(dir, 'jobs2.ndjson');
    const stats = join(dir, 'jobs2.stats.json');
    const run = tagcall(['parse', folder, '--jobs', '2', '--out', findings, '--stats-out', stats]);
    expect(run.code, run.stderr).toBe(0);
    const sorted = (b: Buffer) => b.toString().split('\n').sort();
    expect(sorted(readFileSync(findings))).toEqual(
      sorted(tagcall(['parse', folder, '--jobs', '1']).stdout),
    );
    expect(JSON.parse(readFileSync(stats, 'utf8'))).toEqual(
      JSON.parse(tagcall(['stats', folder, '--json', '--jobs', '1']).stdout.toString()),
    );
  });

  it('says what is wrong: another format, a folder that is not there', () => {
    const bad = tagcall(['parse', log, '--out', join(dir, 'x.json'), '--format', 'json']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--out');
    const missing = tagcall(['parse', log, '--out', join(dir, 'no/such/folder/x.ndjson')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no such file or directory');
  });
});

describe('a folder is read in byte order', () => {
  it('whatever the locale', () => {
    const folder = join(dir, 'names');
    mkdirSync(folder);
    const names = ['b.txt', 'B.txt', 'é.txt', 'z.txt', '_.txt', 'a.txt'];
    for (const name of names)
      writeFileSync(join(folder, name), `<tool>\n<tool_name>${name.length}</tool_name>\n</tool>\n`);
    const run = tagcall(['parse', folder, '--jobs', '1']);
    const sources = run.stdout
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).source.slice(folder.length + 1));
    expect(sources).toEqual(['B.txt', '_.txt', 'a.txt', 'b.txt', 'z.txt', 'é.txt']);
  });
});

describe('tagcall parse --files-from: a long-lived worker handed paths', () => {
  const call = (name: string) =>
    `<tool>\n<tool_name>${name}</tool_name>\n<arguments></arguments>\n</tool>\n`;

  it('reads each path as its line comes, before the list ends; a missing one is reported, the rest read', async () => {
    const first = join(dir, 'first.txt');
    const second = join(dir, 'second.txt');
    writeFileSync(first, call('first'));
    writeFileSync(second, `Before.\n${call('second')}`);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'parse', '--files-from', '-', '--jobs', '1'],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
    });
    const firstLine = new Promise<string>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d;
        if (stdout.includes('\n')) resolve(stdout);
      });
    });
    child.stdin.write(`${first}\n`);
    // The first file's finding comes while the list is still open.
    expect(JSON.parse(await firstLine)).toMatchObject({ source: first, tool_name: 'first' });
    child.stdin.end(`\n${join(dir, 'missing.txt')}\r\n${second}\n`);
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    const records = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records.map((r) => [r.source, r.tool_name, r.line])).toEqual([
      [first, 'first', 1],
      [second, 'second', 2],
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain('missing.txt: ENOENT');
  });

  it('from a file too, and with stats; refused beside paths, a part flag or another format', () => {
    const list = join(dir, 'list.txt');
    const a = join(dir, 'a-list.txt');
    writeFileSync(a, call('x') + call('y'));
    writeFileSync(list, `${a}\n`);
    const stats = tagcall(['stats', '--files-from', list, '--json']);
    expect(stats.code).toBe(0);
    expect(JSON.parse(stats.stdout.toString()).calls).toBe(2);
    for (const args of [
      ['parse', '--files-from', list, a],
      ['parse', '--files-from', list, '--range', '0:2'],
      ['parse', '--files-from', list, '--format', 'json'],
    ])
      expect(tagcall(args).code, args.join(' ')).toBe(2);
  });
});
