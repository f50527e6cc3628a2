import { DIALECTS, isDialect } from './dialects/index.js';
import { OpeningTable } from './openings.js';
import type { Parser, ParserOptions } from './parser-options.js';
import { Scanner } from './scanner.js';

/**
 * The streaming parser: text, thinking and tool calls out of a model's reply, chunk by chunk
 * (see Scanner). Options are checked here, once: a dialect it does not know is the caller's
 * mistake, told at once with the ones it knows; text is never a reason to throw.
 */
export function createParser(options: ParserOptions): Parser {
  const dialect = options.dialect ?? 'tagcall';
  if (!isDialect(dialect))
    throw new RangeError(
      `unknown dialect ${JSON.stringify(dialect)}; the dialects are ${[...DIALECTS, 'auto'].join(', ')}`,
    );
  return new Scanner(options, OpeningTable.of(dialect, options.toolNames ?? []));
}
