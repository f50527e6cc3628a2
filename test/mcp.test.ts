import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolbox, parse, type Toolbox } from './support/all.js';
import { freePort } from './support/free-port.js';

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const support = (name: string) => fileURLToPath(new URL(`./support/${name}`, import.meta.url));

/** A call as a model would write it for the everything server. */
const xml = (tool: string, args: string) =>
  parse(
    `<tool>\n<server_name>everything</server_name>\n<tool_name>${tool}</tool_name>\n<arguments>${args}</arguments>\n</tool>\n`,
  ).calls[0];

describe('MCP over stdio: the real everything server', () => {
  let toolbox: Toolbox;
  beforeAll(() => {
    toolbox = createToolbox({
      mcpServers: {
        everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] },
      },
    });
  });
  afterAll(() => toolbox.close());

  it('lists its tools, with schemas that drive coercion', async () => {
    const tools = await toolbox.listTools();
    const names = tools.filter((t) => t.serverName === 'everything').map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']),
    );
    expect((await toolbox.schemas())['get-sum'].properties).toHaveProperty('a');
  });

  it('calls echo and get-sum from parsed XML, "3" coerced to 3', async () => {
    expect(
      await toolbox.dispatch(xml('echo', '<message>hello &amp; welcome</message>')),
    ).toMatchObject({
      isError: false,
      output: 'Echo: hello & welcome',
    });
    const sum = await toolbox.dispatch(xml('get-sum', '<a>3</a><b> 4 </b>'));
    expect(sum).toMatchObject({ isError: false });
    expect(sum.output).toContain('7');
  });

  it('returns a bad argument and an unknown tool as errors the model can fix', async () => {
    const bad = await toolbox.dispatch(xml('get-sum', '<a>three</a><b>4</b>'));
    expect(bad).toMatchObject({ isError: true });
    expect(bad.output).toContain('<a> must be number, got "three"');
    const unknown = await toolbox.dispatch(xml('no-such-tool', ''));
    expect(unknown.isError).toBe(true);
    expect(unknown.output).toMatch(
      /^server "everything" has no tool "no-such-tool"; its tools are: .*echo/,
    );
  });

  it('times out a long call and stays usable afterwards', async () => {
    const slow = xml('trigger-long-running-operation', '<duration>10</duration><steps>2</steps>');
    expect(await toolbox.dispatch(slow, { timeoutMs: 300 })).toMatchObject({
      isError: true,
      output: 'trigger-long-running-operation timed out after 300 ms',
    });
    expect(await toolbox.dispatch(xml('echo', '<message>still here</message>'))).toMatchObject({
      output: 'Echo: still here',
    });
  });

  it('turns a server that dies mid-call into a tool error', async () => {
    // Its own toolbox, so the server starts now: it connects, takes the 10 s call, and exits.
    const dying = createToolbox({
      mcpServers: { dying: { command: process.execPath, args: [support('dying-server.mjs')] } },
    });
    const call = parse(
      '<tool>\n<server_name>dying</server_name>\n<tool_name>trigger-long-running-operation</tool_name>\n<arguments><duration>10</duration><steps>2</steps></arguments>\n</tool>\n',
    ).calls[0];
    // Not waited out: the 10 s call would succeed, and the 20 s timeout says "timed out".
    const result = await dying.dispatch(call, { timeoutMs: 20_000 });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(
      /^MCP server "dying" failed during trigger-long-running-operation: /,
    );
    await dying.close();
  });

  it('routes use_mcp_tool calls the same way', async () => {
    const call = parse(
      '<tool>\n<tool_name>use_mcp_tool</tool_name>\n<arguments><server_name>everything</server_name><tool_name>get-sum</tool_name><arguments>{"a": 1, "b": 2}</arguments></arguments>\n</tool>\n',
    ).calls[0];
    const result = await toolbox.dispatch(call);
    expect(result).toMatchObject({ isError: false, toolName: 'use_mcp_tool' });
    expect(result.output).toContain('3');
  });
});

describe('MCP over streamable HTTP on 127.0.0.1', () => {
  let server: ChildProcess;
  let toolbox: Toolbox;
  beforeAll(async () => {
    const port = await freePort();
    server = spawn(
      process.execPath,
      ['--import', support('loopback-only.mjs'), EVERYTHING, 'streamableHttp'],
      {
        env: { ...process.env, PORT: String(port) },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    await new Promise<void>((resolve, reject) => {
      server.stderr?.on('data', (data: Buffer) => {
        if (data.toString().includes('listening')) resolve();
      });
      server.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    toolbox = createToolbox({
      mcpServers: { everything: { url: `http://127.0.0.1:${port}/mcp` } },
    });
  });
  afterAll(async () => {
    await toolbox.close();
    server.kill();
  });

  it('calls get-sum from parsed XML', async () => {
    const sum = await toolbox.dispatch(xml('get-sum', '<a>3</a><b>39</b>'));
    expect(sum.isError).toBe(false);
    expect(sum.output).toContain('42');
  });
});
