import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createOpenAIClient } from './support/all.js';
import { cleanupsAfterEach } from './support/cleanups.js';
import { ROOT, runTagcall, startTagcallServer } from './support/cli-child.js';
import { freePort } from './support/free-port.js';
import { listenLocal } from './support/local-server.js';

// #45 item 4: a request that reaches no server said `fetch failed` (`tagcall run`) or
// `502 upstream unreachable: fetch failed` with nothing logged (`tagcall serve`). The message
// names the cause, the URL and what to try, and serve logs it.

const cleanups = cleanupsAfterEach();

const runTask = (baseUrl: string) =>
  runTagcall(['run', 'hello', '--base-url', baseUrl, '--model', 'm', '--workspace', ROOT]);

describe('tagcall run names why the model server cannot be reached', () => {
  it('port 1, which fetch refuses before connecting (the case of the report)', async () => {
    const run = await runTask('http://127.0.0.1:1/v1');
    expect(run.status).toBe(1);
    expect(run.stderr).not.toContain('fetch failed');
    expect(run.stderr).toContain(
      'fetch refuses the port of http://127.0.0.1:1/v1/chat/completions (a blocked port, as browsers block it): use another port',
    );
  });

  it('a port nothing listens on', async () => {
    const port = await freePort();
    const run = await runTask(`http://127.0.0.1:${port}/v1`);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      `nothing listens at http://127.0.0.1:${port}/v1/chat/completions (connection refused): is the model server running?`,
    );
  });

  it('https:// to a server that speaks http: a TLS failure, with what to try', async () => {
    const server = await listenLocal((_request, response) => response.end('{}'));
    cleanups.push(server.close);
    const url = `${server.origin.replace('http:', 'https:')}/v1`;
    const client = createOpenAIClient({ baseUrl: url, model: 'm', retries: 0 });
    const error = await (async () => {
      for await (const _ of client.stream({ messages: [{ role: 'user', content: 'hi' }] })) {
      }
    })().catch((e: Error) => e);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^TLS with ${url}/chat/completions failed \\(ERR_SSL_[A-Z_]+\\): an http:// server asked over https://`,
      ),
    );
  });
});

describe('tagcall serve says and logs why the upstream cannot be reached', () => {
  it('answers 502 naming the cause and the URL, and writes it to stderr', async () => {
    const port = await freePort();
    const server = await startTagcallServer([
      'serve',
      '--upstream',
      `http://127.0.0.1:${port}/v1`,
      '--port',
      '0',
    ]);
    cleanups.push(() => server.child.kill('SIGTERM'));
    const client = new OpenAI({ baseURL: server.url, apiKey: 'none', maxRetries: 0 });
    const error = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    const expected = `upstream unreachable: nothing listens at http://127.0.0.1:${port}/v1/chat/completions (connection refused): is the upstream running?`;
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((error as Error).message).toContain(expected);
    await expect.poll(() => server.stderr()).toContain(`tagcall serve: ${expected}`);
  });
});

describe('a URL with credentials', () => {
  it('the message shows it without them', async () => {
    const client = createOpenAIClient({
      baseUrl: 'http://user:SECRET@127.0.0.1:9/v1',
      model: 'm',
      retries: 0,
    });
    const error = await (async () => {
      for await (const _ of client.stream({ messages: [{ role: 'user', content: 'hi' }] })) {
      }
    })().catch((e: Error) => e);
    expect((error as Error).message).toContain('http://***@127.0.0.1:9/v1/chat/completions');
    expect((error as Error).message).not.toContain('SECRET');
  });
});
