import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { isMissingPackage, missingPeerError } from '../memory/optional-peer.js';
import type { ToolArguments } from '../protocol/index.js';
import type { JsonSchema } from './define-tool.js';
import { CappedLineBuffer, cappedFetch } from './mcp-message-cap.js';

/** A server as the common `mcpServers` JSON writes it: a command to spawn, or a URL. */
export type McpServerConfig =
  | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
  | { url: string; headers?: Record<string, string> };

export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

export interface McpCallResult {
  text: string;
  isError: boolean;
}

export interface McpConnection {
  tools: McpTool[];
  call(
    name: string,
    args: ToolArguments,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<McpCallResult>;
  close(): Promise<void>;
}

type ContentItem = {
  type: string;
  text?: string;
  mimeType?: string;
  data?: string;
  uri?: string;
  name?: string;
  resource?: { uri: string; text?: string; blob?: string; mimeType?: string };
};

/** MCP result content as the text a text-protocol model reads. */
export function contentToText(content: readonly ContentItem[], structured: unknown): string {
  const parts = content.map((item) => {
    switch (item.type) {
      case 'text':
        return item.text ?? '';
      case 'image':
      case 'audio':
        return `[${item.type} ${item.mimeType ?? ''}, ${Math.floor(((item.data ?? '').length * 3) / 4)} bytes]`;
      case 'resource':
        return (
          item.resource?.text ??
          `[resource ${item.resource?.uri ?? ''} ${item.resource?.mimeType ?? ''}]`
        );
      case 'resource_link':
        return `[resource link ${item.name ?? ''} ${item.uri ?? ''}]`;
      default:
        return `[${item.type} content]`;
    }
  });
  if (structured !== undefined && !content.some((item) => item.type === 'text'))
    parts.push(JSON.stringify(structured));
  return parts.join('\n');
}

export const MCP_DEFAULTS = {
  connectTimeoutMs: 30_000,
  /** The most one message from a server may hold (stdio: a line; HTTP: an answer or SSE event). */
  maxMessageBytes: 4 * 1024 * 1024,
};

const SDK = '@modelcontextprotocol/sdk';

/**
 * Connects to one MCP server (stdio or streamable HTTP) and lists its tools, within
 * `connectTimeoutMs` for both: a server that never answers `initialize` is closed (its process
 * ended) and reported, instead of hanging whoever asked for the tools. A message from the
 * server over `maxMessageBytes` is refused as it arrives (the transport stops reading it): the
 * calls waiting on the connection fail at once with the limit named, and the connection is
 * closed (the toolbox reconnects on the next call).
 */
export async function connectMcp(
  config: McpServerConfig,
  options: { connectTimeoutMs?: number; maxMessageBytes?: number } = {},
): Promise<McpConnection> {
  const timeoutMs = options.connectTimeoutMs ?? MCP_DEFAULTS.connectTimeoutMs;
  const maxBytes = options.maxMessageBytes ?? MCP_DEFAULTS.maxMessageBytes;
  // Loaded on first use: the SDK takes most of a cold import of tagcall, and most uses
  // (parsing, local tools) never connect to a server.
  // The SDK is an optional peer dependency (it brings express, hono and cors): without it, the
  // error says how to install it.
  const [
    { Client },
    { StdioClientTransport },
    { StreamableHTTPClientTransport },
    { deserializeMessage },
  ] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/shared/stdio.js'),
  ]).catch((error: unknown) => {
    throw isMissingPackage(error, SDK)
      ? missingPeerError('MCP servers are reached through', SDK)
      : error;
  });
  const client = new Client({ name: 'tagcall', version: '0.1.0' });
  const tooLarge = () =>
    new Error(
      `the server sent a message over ${maxBytes} bytes, the most tagcall reads of one (maxMcpMessageBytes); the connection was closed`,
    );
  let oversized: Error | undefined;
  let refuse: (error: Error) => void = () => {};
  // Settles only when a message was too large: every wait on the connection races it.
  const refused = new Promise<never>((_, reject) => {
    refuse = reject;
  });
  refused.catch(() => {});
  const overflow = () => {
    oversized ??= tooLarge();
    refuse(oversized);
    // A server process is ended at once: closing waits 2 s for it to exit, while it could
    // write on at full speed.
    const pid = transport instanceof StdioClientTransport ? transport.pid : null;
    if (pid !== null) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // It is gone already.
      }
    }
    client.close().catch(() => {});
    return oversized;
  };
  const transport =
    'url' in config
      ? new StreamableHTTPClientTransport(new URL(config.url), {
          requestInit: { headers: config.headers },
          fetch: cappedFetch(maxBytes, overflow),
        })
      : new StdioClientTransport({
          command: config.command,
          args: config.args,
          env:
            config.env === undefined
              ? undefined
              : { ...(process.env as Record<string, string>), ...config.env },
          cwd: config.cwd,
          stderr: 'ignore',
          // The SDK's line buffer throws past this size, and closes the transport.
          maxBufferSize: maxBytes,
        });
  // The same cap in linear time (see CappedLineBuffer); were the SDK's field renamed, its own
  // buffer would still apply the cap above.
  if ('_readBuffer' in transport)
    Object.assign(transport, { _readBuffer: new CappedLineBuffer(maxBytes, deserializeMessage) });
  client.onerror = (error) => {
    if (/ReadBuffer exceeded/.test(error.message)) overflow();
  };
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer to initialize and tools/list within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  let listed: Awaited<ReturnType<Client['listTools']>>;
  try {
    listed = await Promise.race([
      (async () => {
        await client.connect(transport);
        return client.listTools();
      })(),
      timedOut,
      refused,
    ]);
  } catch (error) {
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
  const tools = listed.tools.map((t) => ({
    name: t.name,
    description: t.description ?? '',
    inputSchema: t.inputSchema as JsonSchema,
  }));
  return {
    tools,
    async call(tool, args, signal, timeoutMs) {
      if (oversized !== undefined) throw oversized;
      const result = await Promise.race([
        client.callTool({ name: tool, arguments: args }, undefined, {
          signal,
          timeout: timeoutMs,
        }),
        refused,
      ]);
      return {
        text: contentToText((result.content ?? []) as ContentItem[], result.structuredContent),
        isError: result.isError === true,
      };
    },
    close: () => client.close(),
  };
}
