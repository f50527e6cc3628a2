import {
  createMessage,
  estimateMessageTokens,
  type Message,
  type TextMessage,
  toTextProtocol,
} from '../messages/index.js';
import { compactionPolicies, fitWindow, type PrunePolicy, type Window } from './fit-window.js';
import type { DamagedRecord, MessageStore } from './message-store.js';
import { estimate, type TokenCounter } from './token-counters.js';
import { truncateToolOutputs } from './truncate.js';

/** Turns the messages a window leaves out into the text of one summary. */
export type Summarizer = (dropped: readonly Message[]) => Promise<string>;

export interface MemoryOptions {
  /** Tokens the model may see, system messages included. */
  budget: number;
  /** Default: the characters/4 estimate. */
  counter?: TokenCounter;
  /**
   * How to fit the budget: one policy or an ordered list, e.g.
   * `['truncate-tool-results', 'summarize']` (cut old tool output first, then summarize what
   * still does not fit). Default `'drop-oldest'`. Unknown names throw.
   */
  policy?: PrunePolicy | readonly PrunePolicy[];
  /** Required by `'summarize'`. */
  summarize?: Summarizer;
  /** `'truncate-tool-results'`: old outputs are cut to this many characters. Default 2000. */
  truncateTo?: number;
  /** Tool outputs longer than this are cut when added (head and tail kept). Default 100000. */
  maxToolResultChars?: number;
  /** Where `add` persists each message, under `threadId`. */
  store?: MessageStore;
  threadId?: string;
  /** Messages already in the thread (what `loadMemory` read). */
  history?: readonly Message[];
}

export const MEMORY_DEFAULTS = {
  policy: 'drop-oldest' as PrunePolicy | readonly PrunePolicy[],
  truncateTo: 2000,
  maxToolResultChars: 100_000,
};

export interface MemoryStats {
  budget: number;
  /** Tokens of the last window. */
  tokens: number;
  dropped: number;
  truncated: number;
  overBudget: boolean;
  /** Set when the summarizer threw: the window then fell back to dropping. */
  summarizeError?: string;
}

export interface Memory {
  /**
   * Adds messages to the history at once; with a store, the promise resolves when they are
   * stored (in the order added, also when calls overlap) and rejects when a write failed.
   */
  add(...messages: Message[]): Promise<void>;
  /** What the model should see now, within budget. */
  messages(): Promise<Message[]>;
  /** The same window in the text protocol (results as `Tool: name\nresult`), for text-only models. */
  textMessages(): Promise<TextMessage[]>;
  /** Everything ever added, in order. */
  all(): readonly Message[];
  clear(): void;
  /** An independent copy in memory (not attached to the store). */
  fork(): Memory;
  stats(): MemoryStats;
  /** Tokens these messages cost, counted as the window counts them (this memory's counter). */
  tokensOf(messages: readonly Message[]): number;
}

export function createMemory(options: MemoryOptions): Memory {
  const counter = options.counter ?? estimate;
  const policy = compactionPolicies(options.policy ?? MEMORY_DEFAULTS.policy);
  const summarizes = policy.includes('summarize');
  const truncateTo = options.truncateTo ?? MEMORY_DEFAULTS.truncateTo;
  const maxToolResultChars = options.maxToolResultChars ?? MEMORY_DEFAULTS.maxToolResultChars;
  if (summarizes && options.summarize === undefined)
    throw new Error("policy 'summarize' needs a summarize function");
  let history: Message[] = [...(options.history ?? [])];
  // Each message is counted once: pruning N messages costs O(N), not O(N²) recounts.
  const costs = new WeakMap<Message, number>();
  const cost = (m: Message) => {
    let c = costs.get(m);
    if (c === undefined) {
      c = estimateMessageTokens(m, counter);
      costs.set(m, c);
    }
    return c;
  };
  let last: MemoryStats = {
    budget: options.budget,
    tokens: 0,
    dropped: 0,
    truncated: 0,
    overBudget: false,
  };
  // Appends to the store, one after another: a later add never overtakes an earlier one.
  let writes: Promise<void> = Promise.resolve();
  // The summary of the span dropped last time, reused while that span is unchanged.
  let summary: { droppedCount: number; lastId: string; message: Message } | null = null;

  const windowFor = (budget: number): Window =>
    fitWindow(history, { budget, cost, policy, truncateTo });

  async function summarized(window: Window): Promise<Message[]> {
    const summarize = options.summarize as Summarizer;
    let current = window;
    for (let attempt = 0; attempt < 2 && current.dropped.length > 0; attempt++) {
      const lastId = current.dropped[current.dropped.length - 1].id;
      if (
        summary === null ||
        summary.droppedCount !== current.dropped.length ||
        summary.lastId !== lastId
      ) {
        const text = await summarize(current.dropped);
        summary = {
          droppedCount: current.dropped.length,
          lastId,
          message: createMessage(
            'user',
            [{ kind: 'text', text: `[Summary of the earlier conversation]\n${text}` }],
            {
              metadata: { summary: true },
            },
          ),
        };
      }
      const summaryCost = cost(summary.message);
      const narrower = windowFor(options.budget - summaryCost);
      if (narrower.dropped.length === current.dropped.length) {
        const systems = narrower.messages.filter((m) => m.role === 'system');
        const rest = narrower.messages.filter((m) => m.role !== 'system');
        last = { ...last, tokens: narrower.tokens + summaryCost, dropped: narrower.dropped.length };
        return [...systems, summary.message, ...rest];
      }
      current = narrower;
    }
    return window.messages;
  }

  const memory: Memory = {
    add(...messages) {
      const stored = messages.map((m) => truncateToolOutputs(m, maxToolResultChars));
      // One at a time: spreading 100,000 messages into push overflows the stack.
      for (const message of stored) history.push(message);
      const store = options.store;
      if (store === undefined) return Promise.resolve();
      const threadId = options.threadId ?? 'default';
      const written = writes.then(async () => {
        for (const message of stored) await store.append(threadId, message);
      });
      // A failed write is reported to its own caller; the ones after it still go.
      writes = written.catch(() => {});
      return written;
    },
    async messages() {
      const window = windowFor(options.budget);
      last = {
        budget: options.budget,
        tokens: window.tokens,
        dropped: window.dropped.length,
        truncated: window.truncated,
        overBudget: window.overBudget,
      };
      if (!summarizes || window.dropped.length === 0) return window.messages;
      try {
        return await summarized(window);
      } catch (error) {
        // The history is untouched; this window simply drops instead of summarizing.
        last = { ...last, summarizeError: error instanceof Error ? error.message : String(error) };
        return window.messages;
      }
    },
    textMessages: async () => toTextProtocol(await memory.messages()),
    all: () => history,
    clear() {
      history = [];
      summary = null;
    },
    fork: () => createMemory({ ...options, store: undefined, history }),
    stats: () => last,
    tokensOf: (messages) => {
      let total = 0;
      for (const m of messages) total += cost(truncateToolOutputs(m, maxToolResultChars));
      return total;
    },
  };
  return memory;
}

/** A memory attached to a stored thread, with whatever of the thread could not be read. */
export async function loadMemory(
  options: MemoryOptions & { store: MessageStore; threadId: string },
): Promise<{ memory: Memory; damaged: DamagedRecord[] }> {
  const { messages, damaged } = await options.store.load(options.threadId);
  return { memory: createMemory({ ...options, history: messages }), damaged };
}
