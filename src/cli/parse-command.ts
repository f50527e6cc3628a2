import {
  createFold,
  createParser,
  type ParseOptions,
  type ParseResult,
} from '../protocol/index.js';
import { formatPretty, useColor } from './pretty.js';
import { readChunks } from './read-chunks.js';

export type OutputFormat = 'json' | 'ndjson' | 'pretty';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['json', 'ndjson', 'pretty'];

/** The documented JSON shape of one input's parse (snake_case, as the protocol writes names). */
export function toJsonShape(result: ParseResult) {
  return {
    text: result.text,
    thinking: result.thinking,
    calls: result.calls.map((call) => ({
      server_name: call.serverName,
      tool_name: call.toolName,
      arguments: call.arguments,
      format: call.format,
    })),
    warnings: result.warnings.map((w) => ({ code: w.code, message: w.message, offset: w.offset })),
    errors: result.errors.map((e) => ({ code: e.code, message: e.message, offset: e.offset })),
  };
}

async function parseSource(source: string, options: ParseOptions): Promise<ParseResult> {
  const fold = createFold();
  const parser = createParser({ ...options, onEvent: fold.add });
  for await (const chunk of readChunks(source)) parser.feed(chunk);
  parser.end();
  return fold.result();
}

/** Parses each source in turn as one reply and writes it in `format` (json or pretty) to `out`. */
export async function runParse(
  sources: readonly string[],
  format: Exclude<OutputFormat, 'ndjson'>,
  options: ParseOptions,
  out: NodeJS.WriteStream,
): Promise<void> {
  const color = useColor(out);
  for (const source of sources) {
    const result = await parseSource(source, options);
    const name = source === '-' ? '<stdin>' : source;
    if (format === 'json') out.write(`${JSON.stringify(toJsonShape(result), null, 2)}\n`);
    else out.write(formatPretty(name, result, color));
  }
}
