// Calls the `huge` tool of test/support/huge-mcp-server.mjs (argv: `stdio` or an http URL,
// then MiB) through a toolbox, then its `small` tool, and prints as JSON how each call ended
// and how much the peak memory of this process grew during them, in MiB.
import { fileURLToPath } from 'node:url';
import { createToolbox, type McpServerConfig } from './all.js';

const [where, mib] = process.argv.slice(2);
const script = fileURLToPath(new URL('./huge-mcp-server.mjs', import.meta.url));
const config: McpServerConfig =
  where === 'stdio' ? { command: process.execPath, args: [script, 'stdio'] } : { url: where };
const toolbox = createToolbox({ mcpServers: { huge: config } });
await toolbox.listTools();
const before = process.resourceUsage().maxRSS;
const call = (toolName: string, args: Record<string, number>) =>
  toolbox.run({ id: toolName, serverName: 'huge', toolName, arguments: args });
const huge = await call('huge', { mib: Number(mib) });
const small = await call('small', {});
const grewMiB = Math.round((process.resourceUsage().maxRSS - before) / 1024);
await toolbox.close();
process.stdout.write(
  JSON.stringify({
    huge: { outcome: huge.outcome, output: huge.result.output.slice(0, 300) },
    small: { outcome: small.outcome, output: small.result.output },
    grewMiB,
  }),
);
