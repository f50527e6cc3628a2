import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateCorpus } from '../bench/corpus.js';
import { plainOpenAIMessages } from '../src/transcripts/formats.js';
import { findingRecord } from '../src/transcripts/index.js';
import { type Finding, recordMessages, type ScanOptions, scanTranscript } from './support/all.js';

/**
 * What `tagcall parse` writes must not change when mining gets faster: the NDJSON of every
 * transcript fixture and of a generated log is kept as it was written before the mining
 * fast paths (fixtures/mining/), and each run is compared with it.
 */
const DIR = 'fixtures/transcripts';

async function ndjson(text: string, file: string, options: ScanOptions = {}): Promise<string> {
  let out = '';
  async function* chunks() {
    // Chunks that cut records and UTF-8 sequences alike.
    for (let i = 0; i < text.length; i += 8191) yield text.slice(i, i + 8191);
  }
  await scanTranscript(chunks(), file, options, {
    finding: (f: Finding) => {
      out += `${JSON.stringify(findingRecord(f))}\n`;
    },
    assistant: () => {},
  });
  return out;
}

/**
 * A log of every record shape mining meets: OpenAI request bodies (plain text, tool calls
 * with JSON arguments, tool results, `Error:` results, reasoning, null and list contents,
 * a named sender), Anthropic requests, a response, broken and blank lines.
 */
function generatedLog(): string {
  const { messages } = generateCorpus(3_000_000, 11);
  const lines: string[] = [];
  messages.forEach((reply, i) => {
    const task = {
      role: 'user',
      content: `Task ${i}: fix it. Quoted: <tool><tool_name>x</tool_name></tool>`,
    };
    switch (i % 8) {
      case 0:
      case 1:
      case 2:
        lines.push(
          JSON.stringify({
            model: 'local',
            messages: [
              { role: 'system', content: 'Call tools with <tool> blocks.' },
              task,
              { role: 'assistant', content: reply },
            ],
          }),
        );
        break;
      case 3:
        lines.push(
          JSON.stringify({
            messages: [
              task,
              {
                role: 'assistant',
                content: null,
                tool_calls: [
                  {
                    id: `c${i}`,
                    type: 'function',
                    function: { name: 'read_file', arguments: '{"path":"a.ts"}' },
                  },
                ],
              },
              { role: 'tool', tool_call_id: `c${i}`, content: reply.slice(0, 400) },
              { role: 'tool', tool_call_id: `c${i}`, content: `Error: ${reply.slice(0, 200)}` },
              { role: 'assistant', content: reply, reasoning_content: 'thinking it over' },
            ],
          }),
        );
        break;
      case 4:
        lines.push(
          JSON.stringify({
            system: 'Anthropic system',
            messages: [
              { role: 'user', content: [{ type: 'text', text: task.content }] },
              { role: 'assistant', content: [{ type: 'text', text: reply }] },
            ],
          }),
        );
        break;
      case 5:
        lines.push(
          JSON.stringify({
            messages: [
              { role: 'developer', content: 'dev' },
              { role: 'user', content: [{ type: 'text', text: 'listed' }] },
              { role: 'assistant', name: 'agent-2', content: reply },
              { role: 'assistant', content: '' },
            ],
          }),
        );
        break;
      case 6:
        lines.push(
          JSON.stringify({ choices: [{ message: { role: 'assistant', content: reply } }] }),
        );
        lines.push('{"messages": [ broken');
        lines.push('');
        break;
      default:
        lines.push(JSON.stringify({ messages: [{ role: 'user', content: null }, task] }));
        lines.push(JSON.stringify({ unrelated: true }));
    }
  });
  return `${lines.join('\n')}\n`;
}

describe('mining writes the same findings', () => {
  for (const name of readdirSync(DIR)) {
    it(`${name}: NDJSON as before`, async () => {
      const out = await ndjson(readFileSync(`${DIR}/${name}`, 'utf8'), `${DIR}/${name}`);
      await expect(out).toMatchFileSnapshot(`../fixtures/mining/${name}.ndjson`);
    });
  }

  it('a generated log of every record shape: NDJSON as before', async () => {
    const out = await ndjson(generatedLog(), 'log.jsonl');
    const lines = out.split('\n').length - 1;
    const sha256 = createHash('sha256').update(out).digest('hex');
    // The NDJSON itself is 2 MB: its line count and digest stand for it.
    await expect(`${JSON.stringify({ lines, sha256 }, null, 2)}\n`).toMatchFileSnapshot(
      '../fixtures/mining/generated-log.json',
    );
    expect(lines).toBeGreaterThan(1000);
  });
});

describe('the plain-record fast path reads what recordMessages reads', () => {
  const content = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.constantFrom('', 'Error: boom', null, [{ type: 'text', text: 'x' }]),
  );
  const message = fc.record(
    {
      role: fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool', 'critic'),
      content,
      name: fc.constant('n'),
      tool_call_id: fc.constant('c1'),
      tool_calls: fc.constant([
        { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } },
      ]),
      reasoning_content: fc.constantFrom('', 'hmm'),
    },
    { requiredKeys: ['role', 'content'] },
  );
  const record = fc.record(
    {
      messages: fc.array(message, { maxLength: 5 }),
      system: fc.constantFrom('s', 3),
      timestamp: fc.constant('t'),
      model: fc.constant('m'),
    },
    { requiredKeys: ['messages'] },
  );

  it('for every record it takes, message by message', () => {
    fc.assert(
      fc.property(record, fc.constantFrom(undefined, 'openai' as const), (value, format) => {
        const plain = plainOpenAIMessages(value, format);
        if (plain === null) return;
        const read = recordMessages(value, format);
        expect(read?.format).toBe('openai');
        // Each message is its role and at most one text or result part, as scanning reads it.
        expect(
          read?.messages.map((m) => ({
            role: m.role,
            text: m.parts
              .map((p) => (p.kind === 'text' ? p.text : p.kind === 'tool-result' ? p.output : ''))
              .join(''),
          })),
        ).toEqual(
          plain.map((m) => ({ role: m.role === 'developer' ? 'system' : m.role, text: m.text })),
        );
        for (const m of read?.messages ?? []) expect(m.parts.length).toBeLessThanOrEqual(1);
      }),
      { numRuns: 2000 },
    );
  });

  it('takes the plain records of a log and leaves the rest', () => {
    const plain = {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'a' },
      ],
    };
    expect(plainOpenAIMessages(plain)).toHaveLength(2);
    expect(plainOpenAIMessages({ ...plain, system: 's' })).toBeNull();
    expect(plainOpenAIMessages({ messages: [{ role: 'user', content: null }] })).toBeNull();
    expect(plainOpenAIMessages(plain, 'anthropic')).toBeNull();
  });
});
