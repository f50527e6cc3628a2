import type { FamilyDialect } from '../protocol/dialect-names.js';
import {
  admitsName,
  argumentOpen,
  blockReaders,
  callOf,
  fill,
  forbiddenIn,
  modeOf,
  TAGCALL_TAGS,
  triggerOf,
  type ValueType,
  WRITTEN_FORMS,
  type WrittenArguments,
  type WrittenForm,
} from '../protocol/dialects/index.js';
import type { JsonSchema } from '../tools/index.js';
import { freeText, type TextLimits } from './free-text.js';
import { literalValues, type ObjectFrame } from './literal-values.js';
import { type Member, orderedMembers } from './members.js';
import { alt, chars, type Expr, type Grammar, lit, mark, opt, rep, seq, star } from './model.js';
import { lineStartLead } from './reply.js';
import { createRules, type Rules } from './rules.js';
import { checkSchemaDepth, GrammarError } from './schema-types.js';
import { textValues } from './text-values.js';
import { TAGCALL_TEXT, type ToolLike } from './tool-grammar.js';
import { type GrammarTrigger, triggersFor } from './triggers.js';

/** The families a grammar can be written for: every dialect but the `<tool>` protocol's own. */
export type GrammarDialect = FamilyDialect;

export interface DialectGrammarOptions {
  /** Free text before the calls. Default true; false: calls only. */
  allowText?: boolean;
  /** Most calls in one reply. Default 4 (1 for the families whose reply holds one). */
  maxCalls?: number;
  /** `reply` (default): the whole reply; `trigger`: from a lazy grammar's trigger on. */
  scope?: 'reply' | 'trigger';
}

const PYTHON_WORDS = new Set(['True', 'False', 'None', 'true', 'false', 'null']);
const isBareKey = (key: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) && !PYTHON_WORDS.has(key);

const pythonFrame: ObjectFrame = {
  open: '(',
  close: ')',
  key: (name) => (isBareKey(name) ? `${name}=` : undefined),
  comma: ', ',
};
const gemmaFrame: ObjectFrame = {
  open: '{',
  close: '}',
  key: (name) => (isBareKey(name) ? `${name}:` : undefined),
  comma: ',',
};

/** A required property the form cannot name is refused; an optional one is left out. */
function refuseUnnamed(
  schema: JsonSchema,
  context: string,
  dialect: string,
  canName: (key: string) => boolean,
): void {
  for (const key of schema.required ?? [])
    if (schema.properties?.[key] !== undefined && !canName(key))
      throw new GrammarError(
        `${context}: ${dialect} cannot write the required property ${JSON.stringify(key)} as an argument name`,
      );
}

/** Whether a schema's values are strings (a schema without a type too: its value is text). */
const isStringSchema = (schema: JsonSchema | undefined) =>
  schema?.type === undefined || schema.type === 'string';

const VALUE_TYPES: ReadonlySet<string> = new Set(['number', 'boolean', 'null', 'object', 'array']);

/**
 * The JSON type a schema's value is written as, where the form says it (Kimi K3's
 * `type="…"`): `string` for text, `number` for an integer, the first type a list names that
 * is not `null` (a value of such a schema is that type unless it is null).
 */
function valueTypeOf(schema: JsonSchema | undefined): ValueType {
  if (isStringSchema(schema)) return 'string';
  const types = typeof schema?.type === 'string' ? [schema.type] : (schema?.type ?? []);
  const named = types.find((t) => t !== 'null') ?? types[0];
  if (named === 'integer') return 'number';
  return named !== undefined && VALUE_TYPES.has(named) ? (named as ValueType) : 'string';
}

/** The arguments of one call, as the family writes them, marked as an object. */
function argumentsOf(
  rules: Rules,
  form: WrittenArguments,
  dialect: string,
  toolNames: readonly string[],
): (schema: JsonSchema, context: string) => Expr {
  if (form.kind === 'text') {
    const values = textValues(rules);
    return (schema, context) => {
      refuseUnnamed(schema, context, dialect, (key) => admitsName(form.names, key));
      const required = new Set(schema.required ?? []);
      const members: Member[] = [];
      for (const [key, sub] of Object.entries(schema.properties ?? {})) {
        if (!admitsName(form.names, key)) continue;
        const open = argumentOpen(form, key, valueTypeOf(sub));
        const value = values.valueFor(
          sub,
          `${context}-${key}`,
          modeOf(form, key),
          forbiddenIn(form, key, toolNames),
        );
        members.push({
          expr: mark(
            { type: 'key', key },
            seq(lit(open), value, lit(fill(form.close, { key }) + form.after)),
          ),
          required: required.has(key),
        });
      }
      return mark({ type: 'object' }, orderedMembers(rules, context, members, lit('')));
    };
  }
  if (form.kind === 'gemma') {
    const values = literalValues(rules, {
      syntax: 'gemma',
      quote: form.quote,
      tokens: form.tokens,
    });
    return (schema, context) => {
      refuseUnnamed(schema, context, dialect, isBareKey);
      return values.objectOf(schema, context, gemmaFrame);
    };
  }
  if (form.kind === 'xml')
    throw new GrammarError(`${dialect}'s elements have a grammar builder of their own`);
  const values = literalValues(rules, { syntax: form.kind, forbid: form.forbid });
  if (form.kind === 'python')
    return (schema, context) => {
      refuseUnnamed(schema, context, dialect, isBareKey);
      return values.objectOf(schema, context, pythonFrame);
    };
  return (schema, context) => values.objectOf(schema, context);
}

/**
 * What free text before a family's calls may not hold: the openings the family's reader
 * opens a block at (anywhere, or at a line start), thinking tags, fences and a line-start
 * `[` (as for `<tool>`).
 */
function textLimits(dialect: GrammarDialect, toolNames: readonly string[]): TextLimits {
  const anywhere = new Set(TAGCALL_TEXT.anywhere);
  const lineStart = new Set(TAGCALL_TEXT.lineStart.filter((w) => w !== TAGCALL_TAGS.open));
  for (const reader of blockReaders(dialect, toolNames)) {
    if (reader.open === '') continue;
    if (reader.anywhere === true || reader.midLine !== undefined) anywhere.add(reader.open);
    else lineStart.add(reader.open);
  }
  return { anywhere: [...anywhere], lineStart: [...lineStart] };
}

function formOf(dialect: GrammarDialect): WrittenForm {
  const form = WRITTEN_FORMS[dialect];
  if (form === undefined || form.args.kind === 'xml')
    throw new GrammarError(`no grammar for the dialect ${JSON.stringify(dialect)}`);
  return form;
}

/**
 * The grammar of a reply in a model family's own call format that calls only these tools,
 * with valid arguments: the family's tokens and tags around each call as its chat template
 * writes them, its argument syntax (JSON, Python keywords, Gemma's, or element text) with the
 * schema's properties in schema order. The calls come last, after any text (as the templates
 * and llama.cpp's own grammars put them). Throws a `GrammarError` for what the form cannot
 * write (a required property it cannot name, a schema nesting deeper than
 * `SCHEMA_LIMITS.maxDepth`).
 */
export function buildDialectGrammar(
  dialect: GrammarDialect,
  tools: readonly ToolLike[],
  options: DialectGrammarOptions = {},
): Grammar {
  checkSchemaDepth(tools);
  const form = formOf(dialect);
  const rules = createRules();
  const names = tools.map((t) => t.name);
  const args = argumentsOf(rules, form.args, dialect, names);
  const calls = tools.map((tool) => {
    const [before, after] = callOf(form, tool.name, 'local');
    return mark(
      { type: 'call', serverName: 'local', toolName: tool.name },
      rules.define(
        `call-${tool.name}`,
        seq(lit(before), args(tool.inputSchema, tool.name), lit(after)),
      ),
    );
  });
  const call = rules.define('call', alt(...calls));
  const most = Math.min(options.maxCalls ?? 4, form.maxCalls ?? Number.POSITIVE_INFINITY);
  const block = rules.define(
    'calls',
    seq(
      lit(`${form.lead?.generated ?? ''}${form.open}`),
      call,
      rep(seq(lit(form.separator), call), 0, Math.max(0, most - 1)),
      lit(form.close),
    ),
  );
  const ws = rules.once('ws', () => star(chars(' \t\n')));
  const ending = seq(block, ws);
  if ((options.scope ?? 'reply') === 'trigger')
    return rules.grammar(form.triggerAtLineStart === true ? seq(lineStartLead(), ending) : ending);
  if (options.allowText === false) return rules.grammar(seq(ws, ending));
  const text = freeText(rules, textLimits(dialect, names), 'free-text');
  return rules.grammar(alt(ending, seq(text.lineStart, opt(seq(lit('\n'), ending)))));
}

/** Where a lazy grammar in the family's format engages: its opening (each tool's, for forms that have none). */
export function dialectOpenings(dialect: GrammarDialect, tools: readonly ToolLike[]): string[] {
  const form = formOf(dialect);
  return [...new Set(tools.map((t) => triggerOf(form, t.name)))];
}

/**
 * The opening tags of the parameters an element-text form's grammar may write first: each
 * property in schema order up to the first required one (`orderedMembers`).
 */
function firstParameterTags(args: WrittenArguments, schema: JsonSchema): string[] {
  if (args.kind !== 'text') return [];
  const required = new Set(schema.required ?? []);
  const tags: string[] = [];
  for (const [key, sub] of Object.entries(schema.properties ?? {})) {
    if (!admitsName(args.names, key)) continue;
    tags.push(argumentOpen(args, key, valueTypeOf(sub)));
    if (required.has(key)) break;
  }
  return tags;
}

/**
 * llama.cpp's triggers for a lazy grammar in the family's format, placed where the family's
 * parser opens a block (`triggersFor`): a word for a special token, a word-start pattern for
 * `functools[`, line-start patterns for tags that are no special tokens (and Cline's mid-line
 * tag before a parameter).
 */
export function dialectTriggers(
  dialect: GrammarDialect,
  tools: readonly ToolLike[],
): GrammarTrigger[] {
  const form = formOf(dialect);
  const readers = blockReaders(
    dialect,
    tools.map((t) => t.name),
  ).filter((r) => r.open !== '');
  const seen = new Set<string>();
  const triggers: GrammarTrigger[] = [];
  for (const tool of tools) {
    const opening = triggerOf(form, tool.name);
    // The reader whose opening the trigger begins with (the longest: Cline's `<name>`, not another tool's).
    const reader = readers
      .filter((r) => opening.startsWith(r.open))
      .sort((a, b) => b.open.length - a.open.length)[0];
    const midLineTags =
      form.triggerAtLineStart === true && reader?.midLine !== undefined
        ? firstParameterTags(form.args, tool.inputSchema)
        : undefined;
    for (const trigger of triggersFor(opening, reader, midLineTags)) {
      const key = `${trigger.type} ${trigger.value}`;
      if (seen.has(key)) continue;
      seen.add(key);
      triggers.push(trigger);
    }
  }
  return triggers;
}
