/**
 * The common API, one import for the three ways tagcall is used: parse model output, keep a
 * conversation, run an agent (or a proxy) with tools. Everything else, and each layer on its
 * own, is a subpath: `tagcall/protocol` (no dependencies, no `node:` imports: it runs in a
 * browser or an edge runtime), `tagcall/messages`, `tagcall/memory`, `tagcall/tools`,
 * `tagcall/agent`, `tagcall/server`, `tagcall/grammar`, `tagcall/transcripts`, `tagcall/ai-sdk`.
 */
export {
  type AgentEvent,
  type AgentResult,
  createOpenAIClient,
  type ModelClient,
  type RunAgentOptions,
  runAgent,
  startReplayModel,
} from './agent/index.js';
export {
  createJsonlStore,
  createMemory,
  createThreadStore,
  estimate,
  exact,
  loadMemory,
  type Memory,
  type MemoryOptions,
} from './memory/index.js';
export {
  assistant,
  assistantFromText,
  type Conversation,
  callsOf,
  conversation,
  createAuditLog,
  createChat,
  formatMessages,
  fromAnthropic,
  fromOpenAI,
  fromTextProtocol,
  type Message,
  type Part,
  system,
  textOf,
  toAnthropic,
  toOpenAI,
  toolResult,
  toTextProtocol,
  user,
  validateConversation,
  validateUserInput,
} from './messages/index.js';
export {
  createParser,
  type ParseOptions,
  type ParseResult,
  type ParserEvent,
  type ParserOptions,
  parse,
  parseStream,
  renderCall,
  type ToolCall,
  ToolCallStream,
} from './protocol/index.js';
export { type ProxyOptions, startProxy } from './server/index.js';
export {
  createToolbox,
  defineTool,
  type McpServerConfig,
  type Toolbox,
  type ToolDefinition,
  workspaceTools,
} from './tools/index.js';
