import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gcChildOutput } from './support/gc-child.js';

interface Outcome {
  huge: { outcome: string; output: string };
  small: { outcome: string; output: string };
  grewMiB: number;
}

/** The huge tool called with `mib` MiB, in a process of its own (its peak memory measured). */
const callHuge = (where: string, mib: number) =>
  JSON.parse(gcChildOutput('./huge-mcp-client.ts', [where, String(mib)])) as Outcome;

const servers: ChildProcess[] = [];
const where: Record<string, string> = { stdio: 'stdio' };
beforeAll(async () => {
  for (const [name, mode] of [
    ['streamable HTTP (JSON)', 'http'],
    ['streamable HTTP (SSE)', 'sse'],
  ]) {
    const server = spawn(
      process.execPath,
      [fileURLToPath(new URL('./support/huge-mcp-server.mjs', import.meta.url)), mode],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    servers.push(server);
    const [first] = (await once(server.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
    where[name] = first.toString().trim();
  }
});
afterAll(() => {
  for (const server of servers) server.kill();
});

describe('an MCP message over the cap (4 MiB) is refused as it arrives', () => {
  for (const transport of ['stdio', 'streamable HTTP (JSON)', 'streamable HTTP (SSE)']) {
    it(`${transport}: a 100 MiB result fails the call with the limit named, memory bounded`, () => {
      const result = callHuge(where[transport], 100);
      expect(result.huge.outcome).toBe('server-failed');
      expect(result.huge.output).toBe(
        'MCP server "huge" failed during huge: the server sent a message over 4194304 bytes, the most tagcall reads of one (maxMcpMessageBytes); the connection was closed',
      );
      // Read whole, 100 MiB held 419 MiB at the peak over HTTP (92 MiB over stdio, where the
      // SDK stopped at 10 MiB with "Connection closed"); refused at the cap, about 5 and 23.
      expect(result.grewMiB).toBeLessThan(50);
      // The next call reconnects.
      expect(result.small).toEqual({ outcome: 'ok', output: 'fine' });
    });

    it(`${transport}: a 3 MiB result, under the cap, comes through`, () => {
      const result = callHuge(where[transport], 3);
      expect(result.huge.outcome).toBe('ok');
      expect(result.huge.output).toBe('x'.repeat(300));
    });
  }
});
