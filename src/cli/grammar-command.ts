import { readFile } from 'node:fs/promises';
import { llamaCppGrammarFields, toolCallGrammar, xgrammarStructuralTag } from '../grammar/index.js';
import {
  createToolbox,
  type JsonSchema,
  type ListedTool,
  type McpServerConfig,
  workspaceTools,
} from '../tools/index.js';

export interface GrammarSettings {
  /** A JSON file: an array of `{name, inputSchema, serverName?, description?}`. */
  toolsFile?: string;
  mcpServers?: Record<string, McpServerConfig>;
  /** A grammar, or the JSON fields of a request: llama.cpp's lazy grammar, xgrammar's tag. */
  format: 'gbnf' | 'lark' | 'llama.cpp' | 'xgrammar';
  callsOnly: boolean;
  maxCalls?: number;
}

/** The grammar for a tool list: given tools, MCP servers' tools, or the built-in workspace tools. */
export async function runGrammar(settings: GrammarSettings): Promise<string> {
  const tools: ListedTool[] = [];
  if (settings.toolsFile !== undefined) {
    const listed = JSON.parse(await readFile(settings.toolsFile, 'utf8')) as Array<
      Partial<ListedTool> & { inputSchema: JsonSchema; name: string }
    >;
    for (const t of listed)
      tools.push({
        serverName: t.serverName ?? 'local',
        name: t.name,
        description: t.description ?? '',
        inputSchema: t.inputSchema,
      });
  }
  const servers = settings.mcpServers ?? {};
  if (Object.keys(servers).length > 0 || tools.length === 0) {
    const toolbox = createToolbox({
      tools: tools.length === 0 ? workspaceTools('.') : [],
      mcpServers: servers,
    });
    try {
      for (const t of await toolbox.listTools()) if (t.name !== 'use_mcp_tool') tools.push(t);
    } finally {
      await toolbox.close();
    }
  }
  const toolChoice = settings.callsOnly ? 'required' : 'auto';
  if (settings.format === 'llama.cpp')
    return `${JSON.stringify(llamaCppGrammarFields(tools, { toolChoice, maxCalls: settings.maxCalls }), null, 2)}\n`;
  if (settings.format === 'xgrammar')
    return `${JSON.stringify({ response_format: xgrammarStructuralTag(tools, { toolChoice }) }, null, 2)}\n`;
  return toolCallGrammar(tools, {
    format: settings.format,
    allowText: !settings.callsOnly,
    maxCalls: settings.maxCalls,
  });
}
