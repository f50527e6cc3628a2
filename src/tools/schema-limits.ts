import type { JsonSchema } from './define-tool.js';

/**
 * How large a tool schema from outside (a proxy client's `parameters`) may be: what the
 * prompt, the grammar, coercion and validation do with one grows with these, and each of them
 * recurses over the schema.
 */
export const SCHEMA_LIMITS = {
  /** Levels of JSON nesting (`{"properties": {"a": {…}}}` is two per property level). */
  maxDepth: 64,
  /** Values of one `enum`. */
  maxEnumValues: 1000,
  /** JSON values (objects, arrays, scalars) in all of a request's schemas together. */
  maxNodes: 50_000,
};

/** Keywords whose values are data, not schemas: an `enum` inside one is no enum. */
const DATA_KEYWORDS = new Set(['const', 'default', 'enum', 'examples']);

interface Visit {
  value: unknown;
  depth: number;
  parent: Visit | undefined;
  key: string | number;
  inData: boolean;
}

/** `.properties.v.enum[3]` for a visit: built only for a problem, so a walk stays linear. */
function pathOf(visit: Visit | undefined): string {
  const keys: string[] = [];
  for (let v = visit; v?.parent !== undefined; v = v.parent)
    keys.push(typeof v.key === 'number' ? `[${v.key}]` : `.${v.key}`);
  return keys.reverse().join('');
}

/**
 * What makes a schema too large (` nests deeper than 64 levels`, `.properties.v.enum has
 * 100000 values; at most 1000`, `.properties.v.enum[9] repeats enum[2]`, each a path to add
 * to where the schema is), or null, with the values counted. One pass without recursion, which
 * stops at `maxNodes` values; repeats in an `enum` are found by a set (linear), so the
 * meta-schema check that follows has no quadratic `uniqueItems` left to do.
 */
export function schemaSizeProblem(
  schema: JsonSchema,
  maxNodes: number = SCHEMA_LIMITS.maxNodes,
): { problem: string | null; nodes: number } {
  let nodes = 0;
  const work: Visit[] = [{ value: schema, depth: 0, parent: undefined, key: '', inData: false }];
  for (let visit = work.pop(); visit !== undefined; visit = work.pop()) {
    if (++nodes > maxNodes) return { problem: null, nodes };
    const { value, depth } = visit;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= SCHEMA_LIMITS.maxDepth)
      return { problem: ` nests deeper than ${SCHEMA_LIMITS.maxDepth} levels`, nodes };
    if (Array.isArray(value)) {
      if (visit.key === 'enum' && !visit.parent?.inData) {
        const problem = enumProblem(value);
        if (problem !== null) return { problem: `${pathOf(visit)}${problem}`, nodes };
      }
      for (let i = value.length - 1; i >= 0; i--)
        work.push({
          value: value[i],
          depth: depth + 1,
          parent: visit,
          key: i,
          inData: visit.inData,
        });
      continue;
    }
    for (const [key, inner] of Object.entries(value)) {
      const inData = visit.inData || DATA_KEYWORDS.has(key);
      work.push({ value: inner, depth: depth + 1, parent: visit, key, inData });
    }
  }
  return { problem: null, nodes };
}

function enumProblem(values: readonly unknown[]): string | null {
  if (values.length > SCHEMA_LIMITS.maxEnumValues)
    return ` has ${values.length} values; at most ${SCHEMA_LIMITS.maxEnumValues}`;
  const seen = new Map<string, number>();
  for (const [i, v] of values.entries()) {
    const key = JSON.stringify(v);
    const first = seen.get(key);
    if (first !== undefined) return `[${i}] repeats enum[${first}]`;
    seen.set(key, i);
  }
  return null;
}
