/** One message waiting to be written: its thread and its JSON text. */
export interface PendingRow {
  threadId: string;
  text: string;
}

export interface GroupCommitOptions {
  /** Writes the rows in one transaction, in the order given; resolves once it is committed. */
  write(rows: readonly PendingRow[]): Promise<void>;
  /** Batches written at once (a database connection each). */
  concurrency: number;
  /** Rows in one batch at most. */
  maxRows: number;
  /** UTF-16 units of JSON text in one batch at most (a larger single row goes alone). */
  maxChars: number;
}

export interface GroupCommit {
  /** Resolves when the batch holding the row has committed; rejects with the batch's error. */
  append(row: PendingRow): Promise<void>;
  /** Resolves when everything appended so far has been written (or has failed). */
  drained(): Promise<void>;
}

interface Waiting extends PendingRow {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Group commit for the database stores: appends that arrive while a commit is under way wait
 * and go together in the next transaction, so N writers pay about one durable commit per round
 * instead of N. Each append still resolves only after the commit that holds it. A thread's rows
 * are written in the order appended even when its caller does not wait between appends: a
 * thread with a batch in flight sends nothing more until that batch has committed.
 */
export function createGroupCommit(options: GroupCommitOptions): GroupCommit {
  let queue: Waiting[] = [];
  /** Threads with a batch in flight, and how many of their rows it holds. */
  const writing = new Map<string, number>();
  let inFlight = 0;
  let scheduled = false;
  const idle: Array<() => void> = [];

  const settleIdle = () => {
    if (queue.length === 0 && inFlight === 0) for (const done of idle.splice(0)) done();
  };

  /** The next batch: rows in order, skipping threads that must wait (and their later rows). */
  function takeBatch(): Waiting[] {
    const batch: Waiting[] = [];
    const rest: Waiting[] = [];
    const held = new Set<string>();
    let chars = 0;
    for (const row of queue) {
      const full =
        batch.length >= options.maxRows ||
        (batch.length > 0 && chars + row.text.length > options.maxChars);
      if (full || held.has(row.threadId) || writing.has(row.threadId)) {
        held.add(row.threadId);
        rest.push(row);
        continue;
      }
      batch.push(row);
      chars += row.text.length;
    }
    queue = rest;
    return batch;
  }

  function send(batch: Waiting[]): void {
    inFlight++;
    for (const row of batch) writing.set(row.threadId, (writing.get(row.threadId) ?? 0) + 1);
    const finish = (settle: (row: Waiting) => void) => {
      inFlight--;
      for (const row of batch) {
        const left = (writing.get(row.threadId) ?? 1) - 1;
        if (left === 0) writing.delete(row.threadId);
        else writing.set(row.threadId, left);
      }
      // The threads are free before their callers resume, so the rows they append next
      // join the batch scheduled now.
      schedule();
      for (const row of batch) settle(row);
      settleIdle();
    };
    // A write that throws at once (a synchronous driver) rejects like one that fails later.
    new Promise<void>((resolve) => resolve(options.write(batch))).then(
      () => finish((row) => row.resolve()),
      (error: unknown) => finish((row) => row.reject(error)),
    );
  }

  function pump(): void {
    scheduled = false;
    while (inFlight < options.concurrency && queue.length > 0) {
      const batch = takeBatch();
      if (batch.length === 0) return;
      send(batch);
    }
  }

  /**
   * After the current callbacks: appends made by the callers an earlier commit just released
   * (all in the same turn) gather into one batch instead of going one by one.
   */
  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(pump);
  }

  return {
    append(row) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ ...row, resolve, reject });
        schedule();
      });
    },
    drained() {
      return new Promise<void>((resolve) => {
        idle.push(resolve);
        settleIdle();
      });
    },
  };
}
