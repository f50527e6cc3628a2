import type { Memory } from '../memory/index.js';
import type { Message } from '../messages/index.js';

/**
 * The system prompt (the tools' descriptions with the caller's system text) and the task do
 * not fit the conversation's budget together: the window would keep the system prompt and
 * drop the task, and the model would answer without ever seeing it. Thrown before the run
 * starts, with the numbers.
 */
export class PromptOverBudgetError extends Error {
  override name = 'PromptOverBudgetError';
  constructor(
    /** Tokens of the system messages: the tool prompt and the caller's system text. */
    readonly toolPromptTokens: number,
    readonly taskTokens: number,
    readonly budget: number,
  ) {
    super(
      `the tool prompt is ${toolPromptTokens} tokens and the task ${taskTokens}: together more than the budget of ${budget} tokens, so the model would never see the task. Give a larger budget (--budget, or a larger context on the model server), fewer tools (fewer MCP servers) or a shorter system text`,
    );
  }
}

/** Throws `PromptOverBudgetError` when `system` and `task` together do not fit `memory`'s budget. */
export function checkPromptBudget(memory: Memory, system: readonly Message[], task: Message) {
  const toolPromptTokens = memory.tokensOf(system);
  const taskTokens = memory.tokensOf([task]);
  const { budget } = memory.stats();
  if (toolPromptTokens + taskTokens > budget)
    throw new PromptOverBudgetError(toolPromptTokens, taskTokens, budget);
}
