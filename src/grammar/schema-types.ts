import type { JsonValue } from '../protocol/index.js';
import { nestsDeeperThan } from '../protocol/json-depth.js';
import { type JsonSchema, SCHEMA_LIMITS } from '../tools/index.js';
import { alt, chars, type Expr, lit, opt, plus, rep, seq } from './model.js';

/** A schema's types, null apart: `nullable` when `null` is one of them (or an enum member). */
export function typesOf(schema: JsonSchema | undefined): { types: string[]; nullable: boolean } {
  const declared =
    schema?.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  return {
    types: declared.filter((t) => t !== 'null'),
    nullable: declared.includes('null'),
  };
}

/**
 * The fixed values a schema allows (`enum`, or `const` as a one-value enum), or undefined.
 * Objects and lists among them cannot be written as a fixed text in every syntax: they are
 * left out (docs/grammars.md), and a schema left with none is refused.
 */
export function fixedValues(
  schema: JsonSchema | undefined,
  where: string,
): JsonValue[] | undefined {
  const listed =
    schema?.const !== undefined
      ? [schema.const as JsonValue]
      : Array.isArray(schema?.enum) && schema.enum.length > 0
        ? schema.enum
        : undefined;
  if (listed === undefined) return undefined;
  const scalars = listed.filter((v) => v === null || typeof v !== 'object');
  if (scalars.length === 0)
    throw new GrammarError(
      `${where}: its enum or const holds only objects or lists, which a grammar cannot write as fixed text`,
    );
  return scalars;
}

/** A tool list a grammar cannot be written for: the message names the tool and property. */
export class GrammarError extends Error {
  override name = 'GrammarError';
}

/**
 * Refuses a tool whose schema nests deeper than `SCHEMA_LIMITS.maxDepth`: the builders recurse
 * over schemas, and one from a client or an MCP server could otherwise overflow the stack.
 */
export function checkSchemaDepth(tools: readonly { name: string; inputSchema: JsonSchema }[]) {
  for (const tool of tools)
    if (nestsDeeperThan(tool.inputSchema, SCHEMA_LIMITS.maxDepth))
      throw new GrammarError(
        `the schema of ${tool.name} nests deeper than ${SCHEMA_LIMITS.maxDepth} levels`,
      );
}

/**
 * Numbers a JavaScript number holds (src/protocol/numbers.ts keeps any other as its text): an
 * integer part of at most 15 digits (below 2^53, so exact), any fraction, exponents up to 292
 * (so at most about 1e307, finite), any negative exponent (what underflows reads as zero, as
 * any decimal loses precision); JSON's form.
 */
export const integerExpr = (): Expr =>
  seq(opt(lit('-')), alt(lit('0'), seq(chars('1-9'), rep(chars('0-9'), 0, 14))));

export const numberExpr = (): Expr =>
  seq(
    integerExpr(),
    opt(seq(lit('.'), plus(chars('0-9')))),
    opt(
      seq(
        chars('eE'),
        alt(
          seq(lit('-'), rep(chars('0-9'), 1, 3)),
          seq(
            opt(lit('+')),
            alt(
              rep(chars('0-9'), 1, 2),
              seq(chars('01'), chars('0-9'), chars('0-9')),
              seq(lit('2'), chars('0-8'), chars('0-9')),
              seq(lit('29'), chars('0-2')),
            ),
          ),
        ),
      ),
    ),
  );
