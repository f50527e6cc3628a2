/**
 * `feed` against htmlparser2 as the issue asks it be compared: a fresh parser per reply on both
 * sides, CPU time, the two taken in turn over small batches of the corpus' replies (the order
 * swapped each batch) so that what else the machine runs falls on both alike. One process per
 * chunking; bench/run.ts runs several and takes the median ratio.
 */
import { Parser as Htmlparser2 } from 'htmlparser2';
import { createParser, type ParserEvent } from 'tagcall';
import { cpuMs } from '../test/support/flood-shapes.js';
import { CORPUS_BYTES } from './cases.js';
import { generateCorpus } from './corpus.js';
import { splitEvery, utf8Bytes } from './measure.js';

export interface HeadToHead {
  chunk: number;
  /** MB/s of CPU time for each, over the same batches. */
  tagcall: number;
  htmlparser2: number;
  ratio: number;
  calls: { tagcall: number; htmlparser2: number; written: number };
}

/** Replies a batch: a few ms of work each, so the CPU clock's µs are fine enough. */
const BATCH = 16;
const PASSES = 4;

export function runHeadToHead(chunk: number): HeadToHead {
  const corpus = generateCorpus(CORPUS_BYTES);
  const replies = corpus.messages.map((m) => (chunk === 0 ? [m] : splitEvery(m, chunk)));
  const bytes = utf8Bytes(corpus.messages);
  let tagcallCalls = 0;
  let peerCalls = 0;
  const onEvent = (event: ParserEvent) => {
    if (event.type === 'tool-end') tagcallCalls++;
  };
  const readTagcall = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const parser = createParser({ onEvent });
      for (const piece of replies[i]) parser.feed(piece);
      parser.end();
    }
  };
  const handler = {
    onclosetag(name: string) {
      if (name === 'tool') peerCalls++;
    },
  };
  const readPeer = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const parser = new Htmlparser2(handler, { xmlMode: true });
      for (const piece of replies[i]) parser.write(piece);
      parser.end();
    }
  };
  // A pass of each to warm up, not counted.
  readTagcall(0, replies.length);
  readPeer(0, replies.length);
  let tagcallMs = 0;
  let peerMs = 0;
  tagcallCalls = 0;
  peerCalls = 0;
  for (let pass = 0; pass < PASSES; pass++) {
    for (let from = 0, batch = 0; from < replies.length; from += BATCH, batch++) {
      const to = Math.min(from + BATCH, replies.length);
      if ((batch + pass) % 2 === 0) {
        tagcallMs += cpuMs(() => readTagcall(from, to));
        peerMs += cpuMs(() => readPeer(from, to));
      } else {
        peerMs += cpuMs(() => readPeer(from, to));
        tagcallMs += cpuMs(() => readTagcall(from, to));
      }
    }
  }
  const mbps = (ms: number) => (bytes * PASSES) / (ms * 1000);
  return {
    chunk,
    tagcall: mbps(tagcallMs),
    htmlparser2: mbps(peerMs),
    ratio: peerMs / tagcallMs,
    calls: {
      tagcall: tagcallCalls / PASSES,
      htmlparser2: peerCalls / PASSES,
      written: corpus.calls,
    },
  };
}
