import { once } from 'node:events';
import { request as httpRequest, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { type ProxyOptions, type RunningProxy, startProxy } from './support/all.js';
import { cleanupsAfterEach } from './support/cleanups.js';
import { listenLocal } from './support/local-server.js';

const weather = {
  type: 'function',
  function: {
    name: 'weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
};

const cleanups = cleanupsAfterEach();

/** An upstream on 127.0.0.1 that answers every request with `answer`; it counts what it sent. */
async function upstreamServer(answer: (response: ServerResponse, sent: { bytes: number }) => void) {
  const sent = { bytes: 0, requests: 0, closed: 0, bodies: [] as string[], auth: [] as string[] };
  const server = await listenLocal((request, response) => {
    sent.requests++;
    sent.auth.push(request.headers.authorization ?? '');
    let body = '';
    request.on('data', (c: Buffer) => {
      body += c.toString();
    });
    request.on('end', () => {
      sent.bodies.push(body);
      response.on('close', () => sent.closed++);
      answer(response, sent);
    });
  });
  cleanups.push(server.close);
  return { url: `${server.origin}/v1`, sent };
}

async function proxyTo(upstream: string, options: Partial<ProxyOptions> = {}) {
  const proxy: RunningProxy = await startProxy({ upstream, onError: () => {}, ...options });
  cleanups.push(() => proxy.close());
  return proxy;
}

const sseChunk = (content: string) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

/** Writes SSE content chunks for as long as the reader takes them, then stops after `ms`. */
function endless(ms: number) {
  return (response: ServerResponse, sent: { bytes: number }) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const until = Date.now() + ms;
    const line = sseChunk(`${'lorem ipsum '.repeat(80)}\n`);
    const pump = () => {
      while (Date.now() < until && !response.destroyed) {
        sent.bytes += line.length;
        if (!response.write(line)) return void response.once('drain', pump);
      }
      if (!response.destroyed) response.end('data: [DONE]\n\n');
    };
    pump();
  };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

const toolRequest = (stream: boolean) => ({
  model: 'm',
  messages: [{ role: 'user', content: 'go' }],
  tools: [weather],
  stream,
});

/** Sends a request over a raw socket and never reads the answer: a stalled client. */
async function stalledClient(url: string, body: unknown) {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  socket.pause();
  const json = JSON.stringify(body);
  socket.write(
    `POST /v1/chat/completions HTTP/1.1\r\nHost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
  );
  cleanups.push(() => socket.destroy());
  return socket;
}

const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { message: string } }).error.message;
const completionOf = async (response: Response) =>
  (await response.json()) as {
    choices: Array<{
      message: { content: string | null; tool_calls?: unknown[] };
      finish_reason: string;
    }>;
  };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('backpressure: a client that does not read holds the upstream back', () => {
  for (const [name, body] of [
    ['a tool request (the parser path)', toolRequest(true)],
    [
      'a request without tools (passed through)',
      { model: 'm', messages: [{ role: 'user', content: 'go' }], stream: true },
    ],
  ] as const) {
    it(name, async () => {
      const upstream = await upstreamServer(endless(1500));
      const proxy = await proxyTo(upstream.url);
      await stalledClient(proxy.url, body);
      await sleep(1700);
      // Without backpressure the proxy reads all the upstream can write (hundreds of MB here);
      // with it, only what the socket buffers on the way hold.
      expect(upstream.sent.bytes).toBeGreaterThan(0);
      expect(upstream.sent.bytes).toBeLessThan(32 * 1024 * 1024);
    });
  }
});

describe('a client that reads slowly', () => {
  it('gets the whole answer through many waits for room, and no listener piles up', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    cleanups.push(() => process.off('warning', onWarning));
    const upstream = await upstreamServer(endless(800));
    const proxy = await proxyTo(upstream.url);
    const response = await post(proxy.url, toolRequest(true));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let bytes = 0;
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      bytes += r.value.length;
      await sleep(1);
    }
    expect(bytes).toBeGreaterThan(upstream.sent.bytes);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});

describe('caps on what the upstream sends', () => {
  it('an endless answer to a non-streaming client: 502 at maxAnswerBytes, the upstream aborted', async () => {
    const upstream = await upstreamServer(endless(20_000));
    const proxy = await proxyTo(upstream.url, { maxAnswerBytes: 1024 * 1024 });
    const response = await post(proxy.url, toolRequest(false));
    expect(response.status).toBe(502);
    expect(await errorOf(response)).toBe("the upstream's answer passed 1048576 bytes");
    await sleep(100);
    expect(upstream.sent.closed).toBe(1);
  });

  it('an SSE event that never ends: a clear error, streaming or not', async () => {
    const upstream = await upstreamServer((response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const piece = 'x'.repeat(64 * 1024);
      response.write('data: ');
      const timer = setInterval(() => {
        if (response.destroyed) clearInterval(timer);
        else response.write(piece);
      }, 1);
    });
    const proxy = await proxyTo(upstream.url, { maxEventBytes: 512 * 1024 });
    const buffered = await post(proxy.url, toolRequest(false));
    expect(buffered.status).toBe(502);
    expect(await errorOf(buffered)).toBe('the upstream sent an SSE event over 524288 bytes');
    const streamed = await post(proxy.url, toolRequest(true));
    expect(await streamed.text()).toContain('the upstream sent an SSE event over 524288 bytes');
  });

  it('a huge JSON reply is refused at maxAnswerBytes', async () => {
    const upstream = await upstreamServer((response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          choices: [{ message: { role: 'assistant', content: 'y'.repeat(5_000_000) } }],
        }),
      );
    });
    const proxy = await proxyTo(upstream.url, { maxAnswerBytes: 1024 * 1024 });
    const response = await post(proxy.url, toolRequest(false));
    expect(response.status).toBe(502);
    expect(await errorOf(response)).toBe("the upstream's reply passed 1048576 bytes");
  });
});

describe('upstream timeouts', () => {
  it('no headers within connectTimeoutMs: 504', async () => {
    const upstream = await upstreamServer(() => {});
    const proxy = await proxyTo(upstream.url, { connectTimeoutMs: 200 });
    const response = await post(proxy.url, toolRequest(false));
    expect(response.status).toBe(504);
    expect(await errorOf(response)).toBe('the upstream did not answer within 200 ms');
  });

  it('silence past idleTimeoutMs: 504 buffered, an SSE error streamed', async () => {
    const upstream = await upstreamServer((response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(sseChunk('Hello'));
    });
    const proxy = await proxyTo(upstream.url, { idleTimeoutMs: 200 });
    const buffered = await post(proxy.url, toolRequest(false));
    expect(buffered.status).toBe(504);
    expect(await errorOf(buffered)).toBe('the upstream sent nothing for 200 ms');
    const streamed = await (await post(proxy.url, toolRequest(true))).text();
    expect(streamed).toContain('"content":"Hello"');
    expect(streamed).toContain('the upstream sent nothing for 200 ms');
  });
});

describe('a broken call is never offered for execution', () => {
  const broken = (response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(sseChunk('Let me check.\n<tool>\n<tool_name>weather</tool_name>\n<arguments>'));
    response.write(sseChunk('<city>Lyon</city>'));
    response.end(
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'length' }] })}\n\ndata: [DONE]\n\n`,
    );
  };
  it('non-streaming: no tool_calls, its text is content, finish_reason is not tool_calls', async () => {
    const upstream = await upstreamServer(broken);
    const proxy = await proxyTo(upstream.url);
    const answer = await completionOf(await post(proxy.url, toolRequest(false)));
    const choice = answer.choices[0];
    expect(choice.message.tool_calls).toBeUndefined();
    expect(choice.message.content).toContain('<tool_name>weather</tool_name>');
    expect(choice.finish_reason).toBe('length');
  });
  it('streaming: the finish reason is not tool_calls', async () => {
    const upstream = await upstreamServer(broken);
    const proxy = await proxyTo(upstream.url);
    const text = await (await post(proxy.url, toolRequest(true))).text();
    expect(text).toContain('"finish_reason":"length"');
    expect(text).not.toContain('"finish_reason":"tool_calls"');
  });
});

describe('requests: 400 for what the client got wrong, never a 500 with internals', () => {
  const bad: Array<[unknown, string]> = [
    [
      { messages: [{ role: 'user', content: 5 }] },
      'messages[0].content must be a string or an array of parts',
    ],
    [
      { messages: [{ role: 'user', content: [{ type: 'text' }] }] },
      'messages[0].content[0].text must be a string',
    ],
    [{ messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role "robot" is not one of'],
    [
      { messages: [{ role: 'user', content: null }] },
      'messages[0].content is required for a user message',
    ],
    [
      {
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c', function: { name: 'w', arguments: {} } }],
          },
        ],
      },
      'messages[0].tool_calls[0].function.arguments must be a string (JSON)',
    ],
    [
      { messages: [{ role: 'assistant', content: 'x', tool_calls: 'no' }] },
      'messages[0].tool_calls must be an array',
    ],
    [{ messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id must be a string'],
    [
      {
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ type: 'function', function: { name: 'w', parameters: 'x' } }],
      },
      'tools[0].function.parameters must be a JSON Schema object',
    ],
    [
      { messages: [{ role: 'user', content: 'x' }], stream: 'yes' },
      '"stream" must be true or false',
    ],
    [
      { messages: [{ role: 'user', content: 'x' }], tool_choice: 'always' },
      '"tool_choice" "always" is not none, auto or required',
    ],
    [
      { messages: [{ role: 'user', content: 'x' }], tools: [weather], stream_options: 3 },
      '"stream_options" must be an object',
    ],
    // #30 item 9: this was a 500 (ajv threw compiling the schema).
    [
      {
        messages: [{ role: 'user', content: 'x' }],
        tools: [
          {
            type: 'function',
            function: {
              name: 'w',
              parameters: { type: 'object', properties: { unit: { type: 'string', enum: 'C' } } },
            },
          },
        ],
      },
      'tools[0].function.parameters',
    ],
  ];
  it('names the field in each malformed shape', async () => {
    const upstream = await upstreamServer((response) => response.end());
    const proxy = await proxyTo(upstream.url);
    for (const [body, message] of bad) {
      const response = await post(proxy.url, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const { error } = (await response.json()) as { error: { message: string; param: string } };
      expect(error.message).toContain(message);
      // OpenAI's `param` names the field (#28 item 4): the path the message begins with.
      expect(error.message.replace(/^"/, '').startsWith(error.param), error.param).toBe(true);
      expect(error.param.length).toBeGreaterThan(3);
    }
    expect(upstream.sent.requests).toBe(0);
  });
});

describe('who may call: Host and key', () => {
  const ok = (response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ data: [] }));
  };
  /** A GET /v1/models with a Host header of our choosing (fetch does not let us set it). */
  const models = (url: string, host: string, authorization?: string) =>
    new Promise<number>((resolve, reject) => {
      const { hostname, port } = new URL(url);
      const req = httpRequest(
        {
          host: hostname,
          port,
          path: '/v1/models',
          headers: { host, ...(authorization && { authorization }) },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });

  it('serves IP addresses and localhost, refuses other names (DNS rebinding) unless allowed', async () => {
    const upstream = await upstreamServer(ok);
    const proxy = await proxyTo(upstream.url, { allowedHosts: ['proxy.internal'] });
    const port = new URL(proxy.url).port;
    expect(await models(proxy.url, `127.0.0.1:${port}`)).toBe(200);
    expect(await models(proxy.url, `localhost:${port}`)).toBe(200);
    expect(await models(proxy.url, `[::1]:${port}`)).toBe(200);
    expect(await models(proxy.url, `proxy.internal:${port}`)).toBe(200);
    expect(await models(proxy.url, `attacker.example:${port}`)).toBe(403);
    expect(upstream.sent.requests).toBe(4);
  });

  /** A raw request: any target, method, headers (fetch sets Origin and Host itself). */
  const raw = (url: string, target: string, headers: Record<string, string>, body = '') =>
    new Promise<number>((resolve, reject) => {
      const { hostname, port } = new URL(url);
      const req = httpRequest(
        { host: hostname, port, path: target, method: body === '' ? 'GET' : 'POST', headers },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  // #30 item 8: a page the operator visits could spend the upstream's key.
  it('refuses web pages: an Origin not allowed, a body not sent as JSON, a target naming another host', async () => {
    const upstream = await upstreamServer(ok);
    const proxy = await proxyTo(upstream.url, { allowedOrigins: ['http://localhost:3000'] });
    const port = new URL(proxy.url).port;
    const host = `127.0.0.1:${port}`;
    const json = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    const chat = '/v1/chat/completions';
    // A cross-origin text/plain POST needs no preflight in a browser: refused twice over.
    const page = { host, origin: 'https://attacker.example', 'content-type': 'text/plain' };
    expect(await raw(proxy.url, chat, page, json)).toBe(403);
    expect(await raw(proxy.url, chat, { host, 'content-type': 'text/plain' }, json)).toBe(415);
    expect(await raw(proxy.url, chat, { host }, json)).toBe(415);
    expect(await raw(proxy.url, '/v1/models', { host, origin: 'null' })).toBe(403);
    // RFC 9112 §3.2.2: the absolute form's authority replaces Host.
    expect(await raw(proxy.url, 'http://attacker.example/v1/models', { host })).toBe(403);
    expect(await raw(proxy.url, `http://${host}/v1/models`, { host })).toBe(200);
    // What programs send, and an allowed page.
    const jsonHeaders = { host, 'content-type': 'application/json; charset=utf-8' };
    expect(await raw(proxy.url, chat, jsonHeaders, json)).toBe(200);
    const allowed = { ...jsonHeaders, origin: 'http://localhost:3000' };
    expect(await raw(proxy.url, chat, allowed, json)).toBe(200);
    expect(upstream.sent.requests).toBe(3);
  });

  it('with requireKey: 401 without the key, and the key is not passed upstream', async () => {
    const upstream = await upstreamServer(ok);
    const proxy = await proxyTo(upstream.url, { requireKey: 's3cret' });
    const port = new URL(proxy.url).port;
    expect(await models(proxy.url, `127.0.0.1:${port}`)).toBe(401);
    expect(await models(proxy.url, `127.0.0.1:${port}`, 'Bearer wrong')).toBe(401);
    expect(await models(proxy.url, `127.0.0.1:${port}`, 'Bearer s3cret')).toBe(200);
    expect(upstream.sent.auth).toEqual(['']);
  });
});

describe('odd upstream data', () => {
  it('`data: null`, numbers and broken JSON are skipped, not a failure', async () => {
    const upstream = await upstreamServer((response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(
        `data: null\n\ndata: 42\n\ndata: {oops\n\ndata: {"choices": null}\n\n${sseChunk('fine')}data: [DONE]\n\n`,
      );
    });
    const proxy = await proxyTo(upstream.url);
    const answer = await completionOf(await post(proxy.url, toolRequest(false)));
    expect(answer.choices[0].message.content).toBe('fine');
  });
});
