// Many agents on one store: `threads` writers at once, each appending its numbered messages
// to a thread of its own and waiting for each append before the next (as an agent does).
// Shared by test/concurrent-stores.test.ts, its child writer and bench/stores.ts.
import type { LoadedThread, MessageStore } from '../../src/memory/index.js';
import { textOf, user } from '../../src/messages/index.js';

export const loadThreadId = (writer: number) => `agent-${writer}`;

/** Message `n` of writer `writer`: its place first, then about 200 characters of text. */
const loadMessage = (writer: number, n: number) =>
  user(`${writer}:${n} ${'the parser reads a < b && c; '.repeat(7)}`);

/**
 * Runs the load; `acknowledged` hears of each append once it resolved. Stops at the first
 * failed append (the error is thrown once every writer has stopped).
 */
export async function appendConcurrently(
  store: MessageStore,
  threads: number,
  perThread: number,
  acknowledged: (writer: number, n: number) => void = () => {},
): Promise<void> {
  let failure: unknown = null;
  await Promise.all(
    Array.from({ length: threads }, async (_, writer) => {
      for (let n = 0; n < perThread && failure === null; n++) {
        try {
          await store.append(loadThreadId(writer), loadMessage(writer, n));
        } catch (error) {
          failure ??= error;
          return;
        }
        acknowledged(writer, n);
      }
    }),
  );
  if (failure !== null) throw failure;
}

/** The message numbers a writer's thread holds, in the order loaded (`-1` for another text). */
export function loadedNumbers(writer: number, thread: LoadedThread): number[] {
  return thread.messages.map((message) => {
    const match = /^(\d+):(\d+) /.exec(textOf(message));
    return match !== null && Number(match[1]) === writer ? Number(match[2]) : -1;
  });
}
