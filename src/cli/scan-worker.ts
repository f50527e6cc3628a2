// A worker thread of `tagcall parse` / `tagcall stats`: scans the files it is sent, one at a
// time, and writes its NDJSON to standard output itself, whole batches under a shared lock.
import { writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { createStats } from '../transcripts/index.js';
import { type FromWorker, scanFile, type ToWorker, type WorkerSetup } from './mine.js';

const port = parentPort;
if (port === null) throw new Error('scan-worker runs as a worker thread');
const { options, mode, outputLock } = workerData as WorkerSetup;
const send = (message: FromWorker) => port.postMessage(message);
const lock = new Int32Array(outputLock);
const pause = new Int32Array(new SharedArrayBuffer(4));

/** Writes all of `text` to fd 1, waiting when a non-blocking pipe is full. */
function writeAll(text: string): void {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; ) {
    try {
      at += writeSync(1, bytes, at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

/** One batch of whole lines at a time: no line of one worker lands inside another's. */
function emit(text: string): void {
  while (Atomics.compareExchange(lock, 0, 0, 1) !== 0) Atomics.wait(lock, 0, 1);
  try {
    writeAll(text);
  } finally {
    Atomics.store(lock, 0, 0);
    Atomics.notify(lock, 0, 1);
  }
}

let bytes = 0;
let calls = 0;
const report = () => {
  if (bytes > 0 || calls > 0) send({ type: 'progress', bytes, calls });
  bytes = 0;
  calls = 0;
};
const progress = {
  read(n: number) {
    bytes += n;
    if (bytes >= 1 << 20) report();
  },
  calls(n: number) {
    calls += n;
  },
};

port.on('message', (message: ToWorker) => {
  if (message.type === 'stop') {
    port.close();
    return;
  }
  const stats = createStats();
  scanFile(message.file, options, mode, stats, emit, progress)
    .catch((error: unknown) =>
      send({
        type: 'failed',
        path: message.file.path,
        message: (error as Error).message,
        code: (error as NodeJS.ErrnoException).code,
      }),
    )
    .finally(() => {
      report();
      send({ type: 'idle', stats });
    });
});
send({ type: 'idle', stats: null });
