export { coerceArguments } from './coerce.js';
export {
  type ArgumentsOf,
  defineTool,
  type JsonSchema,
  type ToolContext,
  type ToolDefinition,
  type ToolOutput,
  type TypedToolDefinition,
} from './define-tool.js';
export { MCP_DEFAULTS, type McpServerConfig } from './mcp-client.js';
export { renderToolPrompt, type ToolPromptOptions, toolPromptFor } from './prompt.js';
export { SCHEMA_LIMITS } from './schema-limits.js';
export { readToolList } from './tool-list.js';
export {
  type CallLike,
  createToolbox,
  type DispatchOptions,
  type DispatchOutcome,
  type DispatchReport,
  type ListedTool,
  TOOLBOX_DEFAULTS,
  type Toolbox,
  type ToolboxOptions,
} from './toolbox.js';
export { validateArguments } from './validate-arguments.js';
export { resolveInWorkspace, WorkspaceError } from './workspace-files.js';
export {
  taskCompletionTool,
  WORKSPACE_DEFAULTS,
  type WorkspaceToolsOptions,
  workspaceTools,
} from './workspace-tools.js';
