import { DIALECTS, type Dialect, isDialect } from './dialect-names.js';
import { answerMarkers, blockReaders, THINK_TAGS, THINKING_RECOVERIES } from './dialects/index.js';
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
  return new Scanner(options, openingTable(dialect, options.toolNames ?? []));
}

const tables = new Map<string, OpeningTable>();

/** The table of a dialect (tag names may be tool names), from the cache when it can. */
function openingTable(dialect: Dialect | 'auto', toolNames: readonly string[]): OpeningTable {
  const key = toolNames.length === 0 ? dialect : `${dialect}\0${toolNames.join('\0')}`;
  let table = tables.get(key);
  if (table === undefined) {
    // Bounded: a program that makes up tool names per request does not grow it forever.
    if (tables.size >= 256) tables.clear();
    table = new OpeningTable(
      blockReaders(dialect, toolNames),
      THINK_TAGS,
      THINKING_RECOVERIES,
      answerMarkers(dialect),
    );
    tables.set(key, table);
  }
  return table;
}
