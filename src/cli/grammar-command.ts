import {
  buildDialectGrammar,
  llamaCppGrammarFields,
  printGbnf,
  printLark,
  toolCallGrammar,
  xgrammarStructuralTag,
} from '../grammar/index.js';
import { DEFAULT_DIALECT, isFamilyDialect } from '../protocol/dialect-names.js';
import { DIALECTS, type Dialect } from '../protocol/index.js';
import {
  createToolbox,
  type ListedTool,
  type McpServerConfig,
  workspaceTools,
} from '../tools/index.js';
import { defineCommand, oneOf, positiveInteger, UsageError } from './command.js';
import { readMcpConfig, readToolsFile } from './config-files.js';

export interface GrammarSettings {
  /** A JSON tool list, in any shape `readToolList` reads. */
  toolsFile?: string;
  mcpServers?: Record<string, McpServerConfig>;
  /** A grammar, or the JSON fields of a request: llama.cpp's lazy grammar, xgrammar's tag. */
  format: 'gbnf' | 'lark' | 'llama.cpp' | 'xgrammar';
  callsOnly: boolean;
  maxCalls?: number;
  /** The call format: the `<tool>` protocol (default), or a model family's own. */
  dialect?: Dialect;
}

/** The grammar for a tool list: given tools, MCP servers' tools, or the built-in workspace tools. */
export async function runGrammar(settings: GrammarSettings): Promise<string> {
  const tools: ListedTool[] =
    settings.toolsFile === undefined ? [] : await readToolsFile(settings.toolsFile);
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
  const dialect = settings.dialect ?? DEFAULT_DIALECT;
  if (settings.format === 'llama.cpp')
    return `${JSON.stringify(llamaCppGrammarFields(tools, { toolChoice, maxCalls: settings.maxCalls, dialect }), null, 2)}\n`;
  if (isFamilyDialect(dialect) && settings.format !== 'xgrammar') {
    const grammar = buildDialectGrammar(dialect, tools, {
      allowText: !settings.callsOnly,
      maxCalls: settings.maxCalls,
    });
    return settings.format === 'gbnf' ? printGbnf(grammar) : printLark(grammar);
  }
  if (settings.format === 'xgrammar')
    return `${JSON.stringify({ response_format: xgrammarStructuralTag(tools, { toolChoice }) }, null, 2)}\n`;
  return toolCallGrammar(tools, {
    format: settings.format,
    allowText: !settings.callsOnly,
    maxCalls: settings.maxCalls,
  });
}

const USAGE = `Usage: tagcall grammar [--tools tools.json|tools.js | --mcp mcp.json] [options]

Prints a grammar that admits only valid calls of the given tools (with free text around them
unless --calls-only): GBNF for llama.cpp, Lark for vLLM / xgrammar. With --tools, those tools
(and --mcp's); with --mcp alone, its servers' tools and the built-in workspace tools, as
tagcall run --mcp offers them; with neither, the built-in workspace tools.

Options:
  --tools FILE        a JSON tool list: [{"name", "inputSchema"}] (tagcall, MCP),
                      [{"type": "function", "function": {"name", "parameters"}}] (OpenAI),
                      [{"name", "input_schema"}] (Anthropic), or {"tools": [...]}; or the
                      JS module of tagcall run --tools (its tools' names and schemas)
  --mcp FILE          MCP servers ({"mcpServers": {...}}): their tools, listed live
  --format F          gbnf (default) or lark: the grammar alone;
                      llama.cpp: the fields of a llama-server /completion request, a lazy
                      grammar that engages at <tool> ({"grammar", "grammar_lazy",
                      "grammar_triggers", "preserved_tokens"}; /v1/chat/completions drops
                      the lazy ones);
                      xgrammar: {"response_format": structural tag with trigger <tool>}
                      for vLLM / SGLang
  --dialect D         calls in a model family's own format (any dialect of tagcall parse but
                      auto; default tagcall: the <tool> protocol): text first, the calls last;
                      with llama.cpp, lazy from the family's own opening token
  --calls-only        no free text: only [thinking] lines and calls (for tool_choice
                      "required": with llama.cpp/xgrammar, a grammar that is not lazy)
  --max-calls N       most calls per reply (default 4)
  -h, --help          this text
`;

export const grammarCommand = defineCommand({
  name: 'grammar',
  usage: USAGE,
  options: {
    tools: { type: 'string' },
    mcp: { type: 'string' },
    format: { type: 'string', default: 'gbnf' },
    'calls-only': { type: 'boolean' },
    'max-calls': { type: 'string' },
    dialect: { type: 'string' },
  },
  async run({ values }, usage) {
    const dialect = oneOf(values.dialect, DIALECTS, '--dialect', usage);
    if (dialect !== undefined && isFamilyDialect(dialect) && values.format === 'xgrammar')
      throw new UsageError(
        `--format xgrammar writes a structural tag for the <tool> protocol only; for --dialect ${dialect} use --format lark, gbnf or llama.cpp`,
        usage,
      );
    process.stdout.write(
      await runGrammar({
        toolsFile: values.tools,
        mcpServers: values.mcp === undefined ? undefined : await readMcpConfig(values.mcp),
        format:
          oneOf(
            values.format,
            ['gbnf', 'lark', 'llama.cpp', 'xgrammar'] as const,
            '--format',
            usage,
          ) ?? 'gbnf',
        callsOnly: values['calls-only'] === true,
        maxCalls: positiveInteger(values['max-calls'], '--max-calls', usage),
        dialect,
      }),
    );
    return 0;
  },
});
