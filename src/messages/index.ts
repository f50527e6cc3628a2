export {
  type AnthropicBlock,
  type AnthropicMessage,
  type AnthropicRequest,
  fromAnthropic,
  toAnthropic,
} from './anthropic.js';
export {
  type AuditEntry,
  type AuditLog,
  auditLogFromJSON,
  auditLogFromJSONL,
  createAuditLog,
  type Decision,
} from './audit-log.js';
export { type Conversation, createConversation } from './conversation.js';
export { assistantFromText, createReplyBuilder, type FromTextOptions } from './from-text.js';
export * from './message.js';
export {
  fromOpenAI,
  functionName,
  type OpenAIMessage,
  splitFunctionName,
  toOpenAI,
} from './openai.js';
export { formatMessages } from './pretty.js';
export { isRole, isUserInputRole, ROLES, type Role } from './roles.js';
export { fromJsonText, messageFromJson, messageToJson, toJsonText } from './serialize.js';
export {
  fromTextProtocol,
  renderToolResult,
  type TextMessage,
  toTextProtocol,
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
