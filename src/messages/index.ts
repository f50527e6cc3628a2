export {
  type AnthropicBlock,
  type AnthropicMessage,
  type AnthropicRequest,
  type AnthropicResponse,
  fromAnthropic,
  fromAnthropicResponse,
  toAnthropic,
} from './anthropic.js';
export {
  type AuditEntry,
  type AuditLog,
  type AuditLogOptions,
  auditLogFromJSON,
  auditLogFromJSONL,
  createAuditLog,
  type Decision,
} from './audit-log.js';
export { type Chat, type ChatChange, createChat } from './chat.js';
export { type Conversation, conversation, createConversation } from './conversation.js';
export { assistantFromText, createReplyBuilder, type FromTextOptions } from './from-text.js';
export * from './message.js';
export {
  finishReasonFromOpenAI,
  fromOpenAI,
  fromOpenAIResponse,
  functionName,
  type OpenAIMessage,
  type OpenAIResponse,
  splitFunctionName,
  toOpenAI,
} from './openai.js';
export { formatMessages } from './pretty.js';
export { isRole, isUserInputRole, ROLES, type Role } from './roles.js';
export { fromJsonText, messageFromJson, messageToJson, toJsonText } from './serialize.js';
export {
  escapeUserText,
  fromTextProtocol,
  renderToolResult,
  type TextMessage,
  toolNameProblem,
  toTextProtocol,
  unescapeUserText,
} from './text-protocol.js';
export {
  charEstimate,
  estimateMessageTokens,
  estimateTokens,
  MESSAGE_OVERHEAD,
  type TokenCounter,
} from './tokens.js';
export {
  type ValidationError,
  type ValidationRule,
  validateConversation,
  validateMessages,
  validateUserInput,
} from './validate.js';
