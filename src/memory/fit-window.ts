import { createMessage, type Message } from '../messages/index.js';
import { truncateToolOutputs } from './truncate.js';
import { toUnits, type Unit } from './units.js';

export type PrunePolicy = 'drop-oldest' | 'truncate-tool-results' | 'summarize';
export const PRUNE_POLICIES: readonly PrunePolicy[] = [
  'truncate-tool-results',
  'summarize',
  'drop-oldest',
];

/**
 * A policy or an ordered list of them, checked: each policy acts on what the ones before it
 * left over budget, and dropping the oldest units ends every list (`summarize` summarizes
 * what is dropped). So each may appear once, in the order `truncate-tool-results`,
 * `summarize`, `drop-oldest`: one after `summarize` or `drop-oldest` would never act.
 * Throws on an unknown name, a repeat, a wrong order or an empty list.
 */
export function compactionPolicies(policy: PrunePolicy | readonly PrunePolicy[]): PrunePolicy[] {
  const list: readonly unknown[] = Array.isArray(policy) ? policy : [policy];
  const known = PRUNE_POLICIES.join(', ');
  if (list.length === 0) throw new Error(`the list of compaction policies is empty; use ${known}`);
  let rank = -1;
  for (const p of list) {
    const at = PRUNE_POLICIES.indexOf(p as PrunePolicy);
    if (at === -1) throw new Error(`unknown compaction policy ${JSON.stringify(p)}; use ${known}`);
    if (at <= rank) {
      throw new Error(
        `compaction policy ${JSON.stringify(p)} cannot come after ${JSON.stringify(PRUNE_POLICIES[rank])}: policies apply in the order ${known}, each once`,
      );
    }
    rank = at;
  }
  return list as PrunePolicy[];
}

export interface WindowOptions {
  budget: number;
  /** Tokens of one message (cached by the caller: each message is counted once). */
  cost: (message: Message) => number;
  /** One policy or an ordered list (see `compactionPolicies`). */
  policy: PrunePolicy | readonly PrunePolicy[];
  /** `truncate-tool-results`: old outputs are cut to this many characters, head and tail kept. */
  truncateTo: number;
}

export interface Window {
  messages: Message[];
  tokens: number;
  /** History messages left out (orphans included). */
  dropped: Message[];
  /** Tool results shortened to fit. */
  truncated: number;
  /** Set when the system messages alone exceed the budget (they are kept all the same). */
  overBudget: boolean;
}

/** A user message that stands where a turn too large for the whole budget was left out. */
export function tooLargeMarker(tokens: number, budget: number): Message {
  return createMessage('user', [
    {
      kind: 'text',
      text: `[tagcall memory: the latest turn (${tokens} tokens) is larger than the whole budget (${budget} tokens) and was left out]`,
    },
  ]);
}

/**
 * The messages the model sees: every system message, then the newest units that fit the rest
 * of the budget, as a suffix of the history in order. O(history): one pass to group, one
 * backwards pass to fill. The window starts with a user turn whenever the history has one
 * before it (never with a reply to a turn that was dropped).
 */
export function fitWindow(history: readonly Message[], options: WindowOptions): Window {
  const { budget, cost } = options;
  const systems: number[] = [];
  let tokens = 0;
  history.forEach((m, i) => {
    if (m.role === 'system') {
      systems.push(i);
      tokens += cost(m);
    }
  });
  const units = toUnits(history);
  // Message replacements (truncated copies) by history index.
  const replaced = new Map<number, Message>();
  const at = (i: number) => replaced.get(i) ?? history[i];
  const unitCost = (u: Unit) => u.indices.reduce((sum, i) => sum + cost(at(i)), 0);
  const costs = units.map((u) => (u.kind === 'orphan' ? 0 : unitCost(u)));
  const systemTokens = tokens;
  let available = budget - tokens;
  let truncated = 0;

  if (compactionPolicies(options.policy).includes('truncate-tool-results')) {
    let total = costs.reduce((a, b) => a + b, 0);
    // Oldest first: the newest results are what the model is working with.
    for (let k = 0; k < units.length && total > available; k++) {
      if (units[k].kind === 'orphan') continue;
      for (const i of units[k].indices) {
        const shortened = truncateToolOutputs(history[i], options.truncateTo);
        if (shortened === history[i]) continue;
        replaced.set(i, shortened);
        truncated++;
      }
      const shorter = unitCost(units[k]);
      total -= costs[k] - shorter;
      costs[k] = shorter;
    }
  }

  let first = units.length;
  for (let k = units.length - 1; k >= 0; k--) {
    if (units[k].kind === 'orphan') continue;
    if (costs[k] > available) break;
    available -= costs[k];
    first = k;
  }
  // Never open with a reply whose user turn was dropped.
  const firstUser = units.findIndex((u) => u.kind === 'user');
  while (
    first < units.length &&
    units[first].kind !== 'user' &&
    firstUser !== -1 &&
    firstUser < first
  ) {
    available += costs[first];
    first++;
  }

  const kept = new Set<number>(systems);
  for (let k = first; k < units.length; k++)
    if (units[k].kind !== 'orphan') for (const i of units[k].indices) kept.add(i);
  const messages: Message[] = [];
  const dropped: Message[] = [];
  history.forEach((m, i) => {
    if (kept.has(i)) messages.push(at(i));
    else dropped.push(m);
  });
  tokens = budget - available;
  const overBudget = tokens > budget;
  const newest = units.findLastIndex((u) => u.kind !== 'orphan');
  if (newest !== -1 && costs[newest] > budget - systemTokens) {
    // The newest turn alone does not fit: say so in the window instead of sending nothing
    // (when even the marker does not fit, `dropped` is the only trace).
    const marker = tooLargeMarker(costs[newest], budget);
    const markerCost = cost(marker);
    if (tokens + markerCost <= budget) {
      messages.push(marker);
      tokens += markerCost;
    }
  }
  return { messages, tokens, dropped, truncated, overBudget };
}
