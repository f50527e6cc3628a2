import type { Memory } from './memory.js';

export interface ThreadStoreOptions {
  /** Makes the memory of a new thread. */
  create: (threadId: string) => Memory;
  /** Threads unused this long are evicted. Default one hour. */
  idleMs?: number;
  /** The clock, for tests. Default `Date.now`. */
  now?: () => number;
}

export interface ThreadStore {
  get(threadId: string): Memory | undefined;
  getOrCreate(threadId: string): Memory;
  delete(threadId: string): boolean;
  list(): string[];
  /** Evicts idle threads now (every other call does too). Returns how many went. */
  sweep(): number;
}

/**
 * Live threads by id, each evicted after `idleMs` without use. Eviction is lazy (on every
 * call), so no timer keeps the process alive; a persistent store keeps what eviction drops.
 */
export function createThreadStore(options: ThreadStoreOptions): ThreadStore {
  const idleMs = options.idleMs ?? 60 * 60 * 1000;
  const now = options.now ?? Date.now;
  const threads = new Map<string, { memory: Memory; usedAt: number }>();
  const sweep = () => {
    const cutoff = now() - idleMs;
    let evicted = 0;
    for (const [id, thread] of threads) {
      if (thread.usedAt <= cutoff) {
        threads.delete(id);
        evicted++;
      }
    }
    return evicted;
  };
  const touch = (id: string) => {
    const thread = threads.get(id);
    if (thread !== undefined) thread.usedAt = now();
    return thread?.memory;
  };
  return {
    get(id) {
      sweep();
      return touch(id);
    },
    getOrCreate(id) {
      sweep();
      const found = touch(id);
      if (found !== undefined) return found;
      const memory = options.create(id);
      threads.set(id, { memory, usedAt: now() });
      return memory;
    },
    delete: (id) => threads.delete(id),
    list() {
      sweep();
      return [...threads.keys()];
    },
    sweep,
  };
}
