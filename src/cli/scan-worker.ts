// A worker thread of `tagcall parse` / `tagcall stats`: scans the files it is sent, one at a
// time, and writes its NDJSON itself (to standard output or --out), whole batches under a
// shared lock. Its stats add up over its files and go back once, when it is stopped: sent
// after each file, copying and merging them cost more than scanning a 10 KB transcript.
import { parentPort, workerData } from 'node:worker_threads';
import { createStats } from '../transcripts/index.js';
import { type FromWorker, scanFile, type ToWorker, type WorkerSetup } from './mine.js';
import { writeAll } from './write-all.js';

const port = parentPort;
if (port === null) throw new Error('scan-worker runs as a worker thread');
const { options, mode, outputFd, outputLock } = workerData as WorkerSetup;
const send = (message: FromWorker) => port.postMessage(message);
const lock = new Int32Array(outputLock);

/** One batch of whole lines at a time: no line of one worker lands inside another's. */
function emit(text: string): void {
  while (Atomics.compareExchange(lock, 0, 0, 1) !== 0) Atomics.wait(lock, 0, 1);
  try {
    writeAll(outputFd, text);
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

const stats = createStats();
port.on('message', (message: ToWorker) => {
  if (message.type === 'stop') {
    send({ type: 'stopped', stats });
    port.close();
    return;
  }
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
      send({ type: 'idle' });
    });
});
send({ type: 'idle' });
