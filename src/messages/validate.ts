import { callsOf, type Message, resultsOf } from './message.js';
import { isRole, isUserInputRole } from './roles.js';

export type ValidationRule =
  | 'unknown-role'
  | 'tool-message-missing-call-id'
  | 'tool-message-missing-tool-name'
  | 'empty-assistant'
  | 'call-missing-id'
  | 'call-missing-name'
  | 'empty-content'
  | 'empty-input'
  | 'role-not-allowed-from-user'
  | 'part-not-allowed-from-user'
  | 'result-without-call'
  | 'unanswered-call';

export interface ValidationError {
  /** Index of the message in the list. */
  index: number;
  rule: ValidationRule;
  message: string;
}

const hasContent = (m: Message) =>
  m.parts.some((p) =>
    p.kind === 'text' || p.kind === 'thinking' ? p.text.trim() !== '' : p.kind !== 'tool-result',
  );

/**
 * The shape rules, message by message: known role; tool messages carry a call id and a tool
 * name; an assistant has content or calls, and every call an id and a name; user and system
 * messages are not empty.
 */
export function validateMessages(messages: readonly Message[]): ValidationError[] {
  const errors: ValidationError[] = [];
  messages.forEach((m, index) => {
    const fail = (rule: ValidationRule, text: string) =>
      errors.push({ index, rule, message: `message[${index}]: ${text}` });
    if (!isRole(m.role)) {
      fail('unknown-role', `unknown role ${JSON.stringify(m.role)}`);
      return;
    }
    if (m.role === 'tool') {
      const results = resultsOf(m);
      if (results.length === 0 || results.some((r) => r.callId === ''))
        fail('tool-message-missing-call-id', 'tool message missing tool_call_id');
      if (results.length === 0 || results.some((r) => r.toolName === ''))
        fail('tool-message-missing-tool-name', 'tool message missing tool name');
    } else if (m.role === 'assistant') {
      const calls = callsOf(m);
      if (calls.length === 0 && !hasContent(m))
        fail('empty-assistant', 'assistant message has no content and no tool calls');
      for (const call of calls) {
        if (call.id === '')
          fail('call-missing-id', `tool call ${JSON.stringify(call.toolName)} has no id`);
        if (call.toolName === '')
          fail('call-missing-name', `tool call ${JSON.stringify(call.id)} has no tool name`);
      }
    } else if (!hasContent(m)) {
      fail('empty-content', `${m.role} message has empty content`);
    }
  });
  return errors;
}

/**
 * The stricter check for messages from outside (an HTTP caller): a non-empty list of `user`
 * and `system` messages with content. An `assistant` or `tool` turn from outside would put
 * words in the model's mouth or fake a tool's output: it is rejected.
 */
export function validateUserInput(messages: readonly Message[]): ValidationError[] {
  if (messages.length === 0)
    return [{ index: -1, rule: 'empty-input', message: 'no messages given' }];
  const errors: ValidationError[] = [];
  messages.forEach((m, index) => {
    if (!isUserInputRole(m.role)) {
      errors.push({
        index,
        rule: isRole(m.role) ? 'role-not-allowed-from-user' : 'unknown-role',
        message: `message[${index}]: role ${JSON.stringify(m.role)} not allowed in user input`,
      });
    } else if (m.parts.some((p) => p.kind === 'tool-call' || p.kind === 'tool-result')) {
      // A call or a result inside a user turn would let a user pose as the model or a tool.
      errors.push({
        index,
        rule: 'part-not-allowed-from-user',
        message: `message[${index}]: a ${m.role} message cannot carry tool calls or tool results`,
      });
    } else if (!hasContent(m)) {
      errors.push({
        index,
        rule: 'empty-content',
        message: `message[${index}]: ${m.role} message has empty content`,
      });
    }
  });
  return errors;
}

/**
 * The shape rules, and the turn rules: every tool result answers a call made earlier, and no
 * call is left unanswered when the next user turn (or the end of a finished exchange) comes.
 */
export function validateConversation(messages: readonly Message[]): ValidationError[] {
  const errors = validateMessages(messages);
  const open = new Map<string, number>();
  const answered = new Set<string>();
  const closeTurn = (index: number) => {
    for (const [id, at] of open) {
      errors.push({
        index: at,
        rule: 'unanswered-call',
        message: `message[${at}]: tool call ${JSON.stringify(id)} has no result before message[${index}]`,
      });
    }
    open.clear();
  };
  messages.forEach((m, index) => {
    if (m.role === 'user') closeTurn(index);
    for (const call of callsOf(m)) open.set(call.id, index);
    for (const result of resultsOf(m)) {
      if (!open.has(result.callId) || answered.has(result.callId)) {
        errors.push({
          index,
          rule: 'result-without-call',
          message: `message[${index}]: tool result for ${JSON.stringify(result.callId)} answers no earlier call`,
        });
      }
      open.delete(result.callId);
      answered.add(result.callId);
    }
  });
  return errors.sort((a, b) => a.index - b.index);
}
