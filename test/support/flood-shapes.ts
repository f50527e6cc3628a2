import { blockReaders, createParser, DIALECTS, type Dialect, renderCallIn } from './all.js';

/** A flood: one marker, or the line it begins, repeated; and the dialects that write it. */
export interface FloodShape {
  unit: string;
  /** The dialects whose declarations write the marker (every dialect for a lone sign). */
  owners: readonly Dialect[];
}

/** What a family's renderer writes for one call: its tags and special tokens. */
const MARKER = /<[^<>\n]{1,40}>|\[[A-Z_]{2,}\]/g;

/**
 * Every marker the families' declarations write, for floods of hostile text: each reader's
 * opening (in every dialect and in `auto`), every tag or special token of a call as the
 * family's renderer writes it, and the signs openings begin with; each repeated within a
 * line and as a line of its own (a line start is read another way).
 */
export function floodShapes(): FloodShape[] {
  const owners = new Map<string, Set<Dialect>>();
  const own = (unit: string, dialect: Dialect) => {
    if (unit === '') return;
    const set = owners.get(unit) ?? new Set();
    set.add(dialect);
    owners.set(unit, set);
  };
  for (const dialect of DIALECTS) {
    for (const reader of blockReaders(dialect, ['read_file'])) own(reader.open, dialect);
    const written = renderCallIn(dialect, { toolName: 'read_file', arguments: { path: 'a' } });
    for (const [marker] of written.matchAll(MARKER)) own(marker, dialect);
  }
  for (const sign of ['<', '[', '{', '<|', '</']) owners.set(sign, new Set(DIALECTS));
  return [...owners].flatMap(([unit, set]) =>
    [unit, `${unit}\n`].map((text) => ({ unit: text, owners: [...set] })),
  );
}

/** `unit` repeated to `length` characters, cut in chunks of 1, 2, 3, 4, 1, … characters. */
export function floodChunks(unit: string, length: number): string[] {
  const text = unit.repeat(Math.ceil(length / unit.length));
  const chunks: string[] = [];
  for (let at = 0, size = 1; at < text.length; at += size, size = (size % 4) + 1)
    chunks.push(text.slice(at, at + size));
  return chunks;
}

/** One parser of `dialect` fed `chunks`, then ended. */
export function readFlood(dialect: Dialect | 'auto', chunks: readonly string[]): void {
  const parser = createParser({ dialect, toolNames: ['read_file'], onEvent: () => {} });
  for (const chunk of chunks) parser.feed(chunk);
  parser.end();
}

/** CPU milliseconds of `work` (this thread's, not the machine's: neighbours count less). */
export function cpuMs(work: () => void): number {
  const started = process.cpuUsage();
  work();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}
