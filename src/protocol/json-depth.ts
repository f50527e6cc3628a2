/**
 * Whether a JSON value nests more than `limit` levels (a scalar is 0 levels, `[]` and `{}` 1),
 * found without recursion and without looking below the limit: the check that lets code which
 * recurses over a value (rendering, coercion, a grammar from a schema) refuse one that would
 * overflow the stack, before it starts.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const work: Array<[unknown, number]> = [[value, 0]];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const [v, depth] = item;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const inner of Array.isArray(v) ? v : Object.values(v)) work.push([inner, depth + 1]);
  }
  return false;
}

/**
 * How deep arguments may nest to be rendered as a call (the renderers recurse): far beyond
 * what the parser reads back (`maxDepth`, 32), far within the stack.
 */
export const MAX_RENDERED_DEPTH = 256;

/** What recursion over a value deeper than its limit throws: the limit named, never a stack overflow. */
export class NestingLimitError extends RangeError {
  constructor(
    what: string,
    readonly limit: number,
  ) {
    super(`${what} nests deeper than ${limit} levels`);
  }
}

/** Throws `NestingLimitError` for a value nesting deeper than `limit`. */
export function checkNesting(value: unknown, limit: number, what: string): void {
  if (nestsDeeperThan(value, limit)) throw new NestingLimitError(what, limit);
}
