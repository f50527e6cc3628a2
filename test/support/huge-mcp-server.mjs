// An MCP server (the SDK's own) whose `huge` tool answers with `mib` MiB of text and whose
// `small` tool answers "fine". `node huge-mcp-server.mjs stdio`, or `http` for streamable HTTP
// on a free port of 127.0.0.1 (JSON answers; `sse` answers as an event stream), whose URL it
// prints when ready.
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

function server() {
  const mcp = new McpServer({ name: 'huge', version: '1.0.0' });
  mcp.registerTool(
    'huge',
    { description: 'Answers with mib MiB of text.', inputSchema: { mib: z.number() } },
    async ({ mib }) => ({ content: [{ type: 'text', text: 'x'.repeat(mib * 1024 * 1024) }] }),
  );
  mcp.registerTool('small', { description: 'Answers fine.' }, async () => ({
    content: [{ type: 'text', text: 'fine' }],
  }));
  return mcp;
}

if (process.argv[2] === 'stdio') {
  await server().connect(new StdioServerTransport());
} else {
  const http = createServer(async (request, response) => {
    // Stateless: a server and transport per request, as the SDK's examples do.
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: process.argv[2] === 'http',
    });
    response.on('close', () => transport.close());
    await server().connect(transport);
    await transport.handleRequest(request, response);
  });
  http.listen(0, '127.0.0.1', () =>
    process.stdout.write(`http://127.0.0.1:${http.address().port}/mcp\n`),
  );
}
