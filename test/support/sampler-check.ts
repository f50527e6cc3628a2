// Holds a sampled reply to the calls its grammar says it holds: read by `parse` (with and
// without the tools' schemas) and by `createParser` in random chunkings, each call dispatched
// through a toolbox (the schema's coercion and validation), arguments compared.

import { seededRandom } from '../../bench/corpus.js';
import {
  blockReaders,
  createParser,
  createToolbox,
  type Dialect,
  defineTool,
  type Grammar,
  type JsonValue,
  type ParseOptions,
  type ParserEvent,
  parse,
  readMarks,
  type ToolCall,
} from './all.js';
import { type GrammarCall, grammarCalls } from './grammar-calls.js';
import type { SchemaTool } from './sampler-schemas.js';

function chunksOf(text: string, random: () => number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    const size = 1 + Math.floor(random() * (random() < 0.5 ? 4 : 40));
    out.push(text.slice(i, i + size));
    i += size;
  }
  return out;
}

/** The calls, warnings and errors of a stream fed in the given chunks. */
function streamed(chunks: string[], options: ParseOptions) {
  const calls: ToolCall[] = [];
  const problems: string[] = [];
  const parser = createParser({
    ...options,
    onEvent(event: ParserEvent) {
      if (event.type === 'tool-end') calls.push(event.call);
      else if (event.type === 'warning' || event.type === 'error') problems.push(event.code);
    },
  });
  for (const chunk of chunks) parser.feed(chunk);
  parser.end();
  return { calls, problems };
}

const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as JsonValue;

export interface CheckContext {
  tools: readonly SchemaTool[];
  dialect?: Dialect;
  /** Random chunkings per sample. */
  chunkings: number;
  seed: number;
}

/**
 * What is wrong with a sample: empty when every reading gives exactly the calls the grammar
 * marks (from `grammarFrom` on), each dispatched with schema-valid arguments equal to the
 * grammar's. `grammar` is the one the sample was written under.
 */
export async function checkSample(
  grammar: Grammar,
  text: string,
  grammarFrom: number,
  context: CheckContext,
): Promise<{ problems: string[]; expected: GrammarCall[] }> {
  const problems: string[] = [];
  const marks = readMarks(grammar, text.slice(grammarFrom));
  if (marks === undefined)
    return { problems: ['not in the grammar (by the recognizer)'], expected: [] };
  const expected = grammarCalls(marks);
  const schemas = Object.fromEntries(context.tools.map((t) => [t.name, t.inputSchema]));
  const base: ParseOptions = context.dialect === undefined ? {} : { dialect: context.dialect };
  if (context.dialect === 'cline') base.toolNames = context.tools.map((t) => t.name);
  const readings: Array<[string, ParseOptions]> = [
    ['parse', base],
    ['parse with schemas', { ...base, schemas }],
  ];
  const whole = parse(text, base);
  const issues = [...whole.warnings.map((w) => w.code), ...whole.errors.map((e) => e.code)];
  if (issues.length > 0) problems.push(`parse: warnings/errors ${issues.join(', ')}`);
  const random = seededRandom(context.seed);
  const received: Array<[string, ToolCall[]]> = [];
  for (const [name, options] of readings) received.push([name, parse(text, options).calls]);
  for (let k = 0; k < context.chunkings; k++) {
    const options = k % 2 === 0 ? base : { ...base, schemas };
    const chunks = chunksOf(text, random);
    const result = streamed(chunks, options);
    received.push([`createParser chunking ${k}`, result.calls]);
    if (result.problems.length > 0)
      problems.push(`createParser chunking ${k}: warnings/errors ${result.problems.join(', ')}`);
  }

  const seen: Array<{ args: JsonValue }> = [];
  const toolbox = createToolbox({
    tools: context.tools.map((t) =>
      defineTool({
        ...t,
        description: t.name,
        handler: (args) => {
          seen.push({ args: plain(args) });
          return 'ok';
        },
      }),
    ),
  });
  for (const [reading, calls] of received) {
    if (calls.length !== expected.length) {
      problems.push(
        `${reading}: ${calls.length} calls (${calls.map((c) => c.toolName).join(', ')}), the grammar wrote ${expected.length} (${expected.map((c) => c.toolName).join(', ')})`,
      );
      continue;
    }
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i];
      const want = expected[i];
      if (call.toolName !== want.toolName || (call.serverName || 'local') !== want.serverName) {
        problems.push(
          `${reading}: call ${i} is ${call.serverName}/${call.toolName}, not ${want.serverName}/${want.toolName}`,
        );
        continue;
      }
      seen.length = 0;
      const report = await toolbox.run(call);
      if (report.outcome !== 'ok') {
        problems.push(`${reading}: call ${i} ${report.outcome}: ${report.result.output}`);
        continue;
      }
      const got = JSON.stringify(seen[0]?.args);
      const wanted = JSON.stringify(plain(want.arguments));
      if (got !== wanted)
        problems.push(`${reading}: call ${i} arguments ${got}, the grammar wrote ${wanted}`);
    }
  }
  await toolbox.close();
  return { problems: [...new Set(problems)], expected };
}

/**
 * Whether the free text a lazy grammar left to the model (before its trigger) is plain text
 * for the parser: no call, thinking, warning or error of its own, no fence opened in it, and
 * none of the family's openings (one at its end may open a call with what the grammar writes
 * after it: `<ping>` then `\n<edit>` is a Cline call of `ping`).
 * llama.cpp does not constrain that text, so what it holds is the model's, not the grammar's:
 * a sample whose free text is not plain is no test of the grammar.
 */
export function plainFreeText(
  prefix: string,
  dialect: Dialect | undefined,
  tools: readonly SchemaTool[],
): boolean {
  const options: ParseOptions = dialect === undefined ? {} : { dialect };
  if (dialect === 'cline') options.toolNames = tools.map((t) => t.name);
  const alone = parse(prefix, options);
  const openings = blockReaders(dialect ?? 'tagcall', options.toolNames ?? [])
    .map((r) => r.open)
    .filter((open) => open !== '');
  return (
    !openings.some((open) => prefix.includes(open)) &&
    alone.calls.length === 0 &&
    alone.thinking.length === 0 &&
    alone.warnings.length === 0 &&
    alone.errors.length === 0 &&
    !/(?:^|\n)[ \t]*(?:```|~~~)/.test(prefix)
  );
}
