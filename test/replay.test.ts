import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// #28 item 3: `tagcall replay` stands in for a model server, so it must answer a client that
// does not stream (the openai client's default, the AI SDK's generateText) with a
// chat.completion, not SSE text.
const MAIN = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

let child: ChildProcess;
let url: string;
beforeAll(async () => {
  child = spawn(process.execPath, ['--import', TSX, MAIN, 'replay', '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const stream = child.stderr as NodeJS.ReadableStream;
  while (!/listening on (\S+)/.test(stderr)) {
    const [chunk] = (await once(stream, 'data')) as [Buffer];
    stderr += chunk.toString();
  }
  url = (/listening on (\S+)/.exec(stderr) as RegExpExecArray)[1];
}, 30_000);
afterAll(async () => {
  child.kill('SIGTERM');
  await once(child, 'exit');
});

describe('tagcall replay answers as a model server does', () => {
  it('a non-streaming request with the openai client gets a chat.completion', async () => {
    const client = new OpenAI({ baseURL: url, apiKey: 'none', maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: 'replay',
      messages: [{ role: 'user', content: 'go' }],
    });
    expect(answer.object).toBe('chat.completion');
    expect(answer.choices[0].message.content).toContain('<tool>');
    expect(answer.choices[0].finish_reason).toBe('stop');
  });

  it("the AI SDK's generateText reads it, and streaming still streams", async () => {
    const provider = createOpenAI({ baseURL: url, apiKey: 'none' });
    const { text } = await generateText({ model: provider.chat('replay'), prompt: 'go' });
    expect(text).toContain('<tool>');
    const client = new OpenAI({ baseURL: url, apiKey: 'none', maxRetries: 0 });
    const chunks = await client.chat.completions.create({
      model: 'replay',
      messages: [{ role: 'user', content: 'go' }],
      stream: true,
    });
    let joined = '';
    let pieces = 0;
    for await (const chunk of chunks) {
      joined += chunk.choices[0]?.delta.content ?? '';
      pieces++;
    }
    expect(pieces).toBeGreaterThan(10);
    expect(joined).toContain('<tool>');
  });
});
