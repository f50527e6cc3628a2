import type { Memory } from './memory.js';

export interface ThreadStoreOptions {
  /** Makes the memory of a new thread (e.g. `loadMemory` from a store). */
  create: (threadId: string) => Memory | Promise<Memory>;
  /** Threads unused this long are evicted. Default one hour. */
  idleMs?: number;
  /** At most this many live threads: making one more evicts the least recently used. Default 10,000. */
  maxThreads?: number;
  /** The clock, for tests. Default `Date.now`. */
  now?: () => number;
}

export const THREAD_STORE_DEFAULTS = { idleMs: 60 * 60 * 1000, maxThreads: 10_000 };

export interface ThreadStore {
  get(threadId: string): Memory | undefined;
  /** The live thread, or a new one from `create`; calls for one id at once share one `create`. */
  getOrCreate(threadId: string): Promise<Memory>;
  delete(threadId: string): boolean;
  list(): string[];
  /** Evicts idle threads now (every other call does too). Returns how many went. */
  sweep(): number;
}

interface Live {
  id: string;
  memory: Memory;
  usedAt: number;
  older: Live | null;
  newer: Live | null;
}

/**
 * Live threads by id, each evicted after `idleMs` without use, and the least recently used
 * first when `maxThreads` are live. Threads sit in a list in order of last use (a use moves
 * one to the newest end), so eviction looks only at the oldest: each call costs O(1)
 * amortized, however many threads are live. (A Map's own order will not do: V8 walks past
 * every deleted entry at its front on each new iteration.) Eviction is lazy (on calls), so
 * no timer keeps the process alive; a persistent store keeps what eviction drops.
 */
export function createThreadStore(options: ThreadStoreOptions): ThreadStore {
  const idleMs = options.idleMs ?? THREAD_STORE_DEFAULTS.idleMs;
  const maxThreads = Math.max(1, options.maxThreads ?? THREAD_STORE_DEFAULTS.maxThreads);
  const now = options.now ?? Date.now;
  const threads = new Map<string, Live>();
  const creating = new Map<string, Promise<Memory>>();
  let oldest: Live | null = null;
  let newest: Live | null = null;

  const unlink = (t: Live) => {
    if (t.older === null) oldest = t.newer;
    else t.older.newer = t.newer;
    if (t.newer === null) newest = t.older;
    else t.newer.older = t.older;
    t.older = null;
    t.newer = null;
  };
  const pushNewest = (t: Live) => {
    t.older = newest;
    t.newer = null;
    if (newest === null) oldest = t;
    else newest.newer = t;
    newest = t;
  };
  const remove = (t: Live) => {
    unlink(t);
    threads.delete(t.id);
  };
  const sweep = () => {
    const cutoff = now() - idleMs;
    let evicted = 0;
    while (oldest !== null && oldest.usedAt <= cutoff) {
      remove(oldest);
      evicted++;
    }
    return evicted;
  };
  const touch = (id: string) => {
    const thread = threads.get(id);
    if (thread === undefined) return undefined;
    thread.usedAt = now();
    unlink(thread);
    pushNewest(thread);
    return thread.memory;
  };
  return {
    get(id) {
      sweep();
      return touch(id);
    },
    async getOrCreate(id) {
      sweep();
      const found = touch(id);
      if (found !== undefined) return found;
      const pending = creating.get(id);
      if (pending !== undefined) return pending;
      const created: Promise<Memory> = Promise.resolve()
        .then(() => options.create(id))
        .then((memory) => {
          // A delete while it was being made wins: the caller gets it, the list does not.
          if (creating.get(id) !== created) return memory;
          if (threads.size >= maxThreads && oldest !== null) remove(oldest);
          const thread: Live = { id, memory, usedAt: now(), older: null, newer: null };
          threads.set(id, thread);
          pushNewest(thread);
          return memory;
        })
        .finally(() => {
          if (creating.get(id) === created) creating.delete(id);
        });
      creating.set(id, created);
      return created;
    },
    delete(id) {
      const wasCreating = creating.delete(id);
      const thread = threads.get(id);
      if (thread === undefined) return wasCreating;
      remove(thread);
      return true;
    },
    list() {
      sweep();
      const ids: string[] = [];
      for (let t = oldest; t !== null; t = t.newer) ids.push(t.id);
      return ids;
    },
    sweep,
  };
}
