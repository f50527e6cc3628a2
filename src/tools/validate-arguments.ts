import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';
import type { ToolArguments } from '../protocol/index.js';
import type { JsonSchema } from './define-tool.js';
import { schemaSizeProblem } from './schema-limits.js';

/**
 * `pattern` keywords come from tool schemas, which an MCP server writes: matched in linear
 * time (RE2), so no pattern can stall the process on a long argument. A pattern RE2 cannot
 * run (lookaround, backreferences) is not checked here; the server still checks its input.
 */
const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    try {
      const re = RE2JS.compile(RE2JS.translateRegExp(pattern));
      return { test: (s: string) => re.test(s) };
    } catch {
      return { test: () => true };
    }
  },
  { code: 're2js' },
);

const ajv = new Ajv({ allErrors: true, strict: false, code: { regExp: linearRegExp } });

// The meta-schema asks `enum` for unique items, which ajv checks pair by pair for values of
// no declared type: quadratic (100,000 values took over a minute). Repeats are found in linear
// time by `schemaSizeProblem` instead, so that check is taken out of the meta-schema.
const DRAFT_07 = 'http://json-schema.org/draft-07/schema';
const meta = structuredClone(ajv.getSchema(DRAFT_07)?.schema) as {
  properties: { enum: { uniqueItems?: boolean } };
};
delete meta.properties.enum.uniqueItems;
ajv.removeSchema(DRAFT_07);
ajv.addMetaSchema(meta, DRAFT_07);
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

/** `path.to.argument` from ajv's `/path/to/argument`. */
function argumentName(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (error.keyword === 'required') path.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') path.push(String(error.params.additionalProperty));
  return path.join('.');
}

/** One validation failure, phrased so a model can correct its next call. */
function describe(error: ErrorObject, args: ToolArguments): string {
  const name = argumentName(error) || '(arguments)';
  const got = error.instancePath
    .split('/')
    .slice(1)
    .reduce<unknown>((v, key) => (v as Record<string, unknown>)?.[key], args);
  const shown =
    typeof got === 'string'
      ? JSON.stringify(got.length > 40 ? `${got.slice(0, 40)}…` : got)
      : JSON.stringify(got);
  switch (error.keyword) {
    case 'required':
      return `<${name}> is required but missing`;
    case 'additionalProperties':
      return `<${name}> is not an argument of this tool`;
    case 'type':
      return `<${name}> must be ${String(error.params.type)}, got ${shown}`;
    case 'enum':
      return `<${name}> must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}, got ${shown}`;
    default:
      return `<${name}> ${error.message ?? 'is invalid'} (got ${shown})`;
  }
}

/** Validates with ajv; returns the failures as sentences (empty when the arguments are valid). */
export function validateArguments(args: ToolArguments, schema: JsonSchema): string[] {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = ajv.compile({ ...schema, type: 'object' });
    compiled.set(schema, validate);
  }
  // ajv reads plain objects; the null-prototype ones are copied through JSON.
  const plain = JSON.parse(JSON.stringify(args)) as ToolArguments;
  return validate(plain) ? [] : (validate.errors ?? []).map((e) => describe(e, plain));
}

/**
 * What is wrong with a tool's parameter schema as JSON Schema (`.properties.unit.enum must be
 * array`), or null when it is one: a schema a client sent is checked before anything reads it.
 * Its size is checked first (`schemaSizeProblem`): the meta-schema check recurses over it and
 * is linear only once repeats in enums are ruled out.
 */
export function schemaProblem(schema: JsonSchema, size = schemaSizeProblem(schema)): string | null {
  if (size.problem !== null) return size.problem;
  if (ajv.validateSchema(schema) === true) return null;
  const error = ajv.errors?.[0];
  if (error === undefined) return 'is no JSON Schema';
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => `.${p.replaceAll('~1', '/').replaceAll('~0', '~')}`)
    .join('');
  return `${path} ${error.message ?? 'is invalid'}`;
}
