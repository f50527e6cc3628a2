import type { ParserEvent } from './events.js';
import type { ParseOptions } from './parse.js';
import { createParser } from './parser.js';
import type { Parser } from './parser-options.js';

/**
 * A `TransformStream` from text chunks to parser events, for `pipeThrough`:
 * `response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new ToolCallStream())`.
 */
export class ToolCallStream extends TransformStream<string, ParserEvent> {
  constructor(options: ParseOptions = {}) {
    let parser: Parser;
    super({
      start(controller) {
        parser = createParser({ ...options, onEvent: (event) => controller.enqueue(event) });
      },
      transform(chunk) {
        parser.feed(chunk);
      },
      flush() {
        parser.end();
      },
    });
  }
}

/** Parser events of an async stream of text chunks, as an async iterable. */
export async function* parseStream(
  chunks: AsyncIterable<string> | Iterable<string>,
  options: ParseOptions = {},
): AsyncGenerator<ParserEvent, void, undefined> {
  const events: ParserEvent[] = [];
  const parser = createParser({ ...options, onEvent: (event) => events.push(event) });
  for await (const chunk of chunks) {
    parser.feed(chunk);
    yield* events.splice(0);
  }
  parser.end();
  yield* events.splice(0);
}
