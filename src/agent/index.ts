export {
  budgetForContext,
  CONTEXT_SIZE_DEFAULTS,
  type ContextSize,
  type ContextSizeOptions,
  readContextSize,
} from './context-size.js';
export {
  type ChatMessage,
  createOpenAIClient,
  MODEL_CLIENT_DEFAULTS,
  type ModelClient,
  type ModelDelta,
  ModelError,
  type ModelRequest,
  type OpenAIClientOptions,
} from './model-client.js';
export { PromptOverBudgetError } from './prompt-budget.js';
export {
  type RecordedReply,
  type ReplayModel,
  type ReplayModelOptions,
  startReplayModel,
} from './replay-model.js';
export {
  AGENT_DEFAULTS,
  type AgentEvent,
  type AgentHooks,
  type AgentResult,
  type AgentStatus,
  type CallDecision,
  type RunAgentOptions,
  runAgent,
} from './run-agent.js';
