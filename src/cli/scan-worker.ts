// A worker thread of `tagcall parse` / `tagcall stats`: scans the files it is sent, one at a
// time, and waits for an ack after each batch of output (the main thread's backpressure).
import { parentPort, workerData } from 'node:worker_threads';
import { createStats, type ScanOptions } from '../index.js';
import { type FromWorker, type MineSettings, scanFile, type ToWorker } from './mine.js';

const port = parentPort;
if (port === null) throw new Error('scan-worker runs as a worker thread');
const { options, mode } = workerData as { options: ScanOptions; mode: MineSettings['mode'] };
const send = (message: FromWorker) => port.postMessage(message);

let acked: (() => void) | null = null;
const emit = (text: string) =>
  new Promise<void>((resolve) => {
    acked = resolve;
    send({ type: 'lines', text });
  });

let unreported = 0;
const onBytes = (n: number) => {
  unreported += n;
  if (unreported >= 1 << 20) {
    send({ type: 'bytes', n: unreported });
    unreported = 0;
  }
};

port.on('message', (message: ToWorker) => {
  if (message.type === 'ack') {
    const resume = acked;
    acked = null;
    resume?.();
  } else if (message.type === 'stop') {
    port.close();
  } else {
    const stats = createStats();
    scanFile(message.file, options, mode, stats, emit, onBytes)
      .catch((error: unknown) =>
        send({ type: 'failed', path: message.file.path, message: (error as Error).message }),
      )
      .finally(() => {
        if (unreported > 0) send({ type: 'bytes', n: unreported });
        unreported = 0;
        send({ type: 'idle', stats });
      });
  }
});
send({ type: 'idle', stats: null });
