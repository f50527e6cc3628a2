import { XMLParser } from 'fast-xml-parser';
import { Parser as Htmlparser2 } from 'htmlparser2';
import sax from 'sax';
import { SaxesParser } from 'saxes';

/**
 * The peers, each returning how many tool blocks it saw close, so no work is optimised away
 * and the counts can be compared with the truth.
 */

/** sax, strict: it cannot read prose, so it gets the tool blocks alone. */
export function saxStrict(chunksPerBlock: readonly (readonly string[])[]): number {
  let calls = 0;
  for (const chunks of chunksPerBlock) {
    const parser = sax.parser(true);
    parser.onclosetag = (name) => {
      if (name === 'tool') calls++;
    };
    for (const chunk of chunks) parser.write(chunk);
    parser.close();
  }
  return calls;
}

/** sax, non-strict (HTML-ish), on whole messages: how many calls survive prose? */
export function saxLoose(messages: readonly string[]): number {
  let calls = 0;
  for (const message of messages) {
    const parser = sax.parser(false, { lowercase: true });
    parser.onclosetag = (name) => {
      if (name === 'tool') calls++;
    };
    // Non-strict sax still reports some errors; like a lenient consumer, carry on.
    parser.onerror = () => {
      parser.resume();
    };
    parser.write(message).close();
  }
  return calls;
}

export function saxes(chunksPerBlock: readonly (readonly string[])[]): number {
  let calls = 0;
  for (const chunks of chunksPerBlock) {
    const parser = new SaxesParser();
    parser.on('closetag', (tag) => {
      if (tag.name === 'tool') calls++;
    });
    for (const chunk of chunks) parser.write(chunk);
    parser.close();
  }
  return calls;
}

/** htmlparser2 in xmlMode reads anything, on whole messages. */
export function htmlparser2(chunksPerMessage: readonly (readonly string[])[]): number {
  let calls = 0;
  for (const chunks of chunksPerMessage) {
    const parser = new Htmlparser2(
      {
        onclosetag(name) {
          if (name === 'tool') calls++;
        },
      },
      { xmlMode: true },
    );
    for (const chunk of chunks) parser.write(chunk);
    parser.end();
  }
  return calls;
}

const fxp = new XMLParser({ parseTagValue: false, trimValues: false, ignoreAttributes: true });

/** fast-xml-parser on each tool block, the blocks already cut out of the prose. */
export function fastXmlParser(blocks: readonly string[]): number {
  let calls = 0;
  for (const block of blocks) if (fxp.parse(block).tool !== undefined) calls++;
  return calls;
}

const TOOL_BLOCK = /<tool>[\s\S]*?<\/tool>/g;

/**
 * What agents commonly do: accumulate the message and, after every chunk, extract every
 * complete block again with a regex and parse each with fast-xml-parser.
 */
export function reparsePerChunk(chunksPerMessage: readonly (readonly string[])[]): number {
  let calls = 0;
  for (const chunks of chunksPerMessage) {
    let message = '';
    let found = 0;
    for (const chunk of chunks) {
      message += chunk;
      found = 0;
      for (const match of message.matchAll(TOOL_BLOCK))
        if (fxp.parse(match[0]).tool !== undefined) found++;
    }
    calls += found;
  }
  return calls;
}

/** The floor: one `indexOf('<')` per chunk, the least any parser must do. */
export function indexOfFloor(chunksPerMessage: readonly (readonly string[])[]): number {
  let hits = 0;
  for (const chunks of chunksPerMessage)
    for (const chunk of chunks) if (chunk.indexOf('<') !== -1) hits++;
  return hits;
}
