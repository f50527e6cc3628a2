import { isNameChar, isNameStart } from '../chars.js';
import { LOOKAHEAD } from '../lookahead.js';
import { type ValueTexts, valueTextOf } from '../markup/form.js';

/**
 * What a template's slot is filled with: the tool's `name`, the `<tool>` protocol's `server`,
 * an argument's `key`, `isString` (`true` when the value is text, `false` otherwise), or
 * `valueType`, the value's JSON type (`string`, `number`, `boolean`, `null`, `object`, `array`).
 */
export type SlotName = 'name' | 'server' | 'key' | 'isString' | 'valueType';

/** A value's JSON type, as Kimi K3's `type="…"` names it. */
export type ValueType = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';

/** A slot of a template, its value written as it is (`as-is`) or as a JSON string (`json`). */
export interface Slot<S extends SlotName = SlotName> {
  slot: S;
  written: 'as-is' | 'json';
}

/** Text with slots: a string alone, or strings and slots in order. */
export type Template<S extends SlotName> = string | readonly (string | Slot<S>)[];

/** The slots, as declarations write them: `[CALL, SLOT.name, '\n']`. */
export const SLOT = {
  name: { slot: 'name', written: 'as-is' },
  nameJson: { slot: 'name', written: 'json' },
  server: { slot: 'server', written: 'as-is' },
  key: { slot: 'key', written: 'as-is' },
  isString: { slot: 'isString', written: 'as-is' },
  valueType: { slot: 'valueType', written: 'as-is' },
} as const satisfies Record<string, Slot>;

/** `template` with each slot filled from `values`. */
export function fill<S extends SlotName>(
  template: Template<S>,
  values: Readonly<Record<S, string>>,
): string {
  if (typeof template === 'string') return template;
  let text = '';
  for (const part of template) {
    if (typeof part === 'string') text += part;
    else {
      const value = values[part.slot];
      text += part.written === 'json' ? JSON.stringify(value) : value;
    }
  }
  return text;
}

const hasSlot = (template: Template<SlotName>, slot: SlotName) =>
  typeof template !== 'string' &&
  template.some((part) => typeof part !== 'string' && part.slot === slot);

/**
 * Which keys a form can write as an argument's name (a grammar leaves out those it cannot):
 * what the parser reads as a tag name (`element-name`), or text of at most `maxLength`
 * characters holding none of the characters of `forbidden`, with `nonEmpty`, not empty, and
 * with `trimmed`, no blank at either end.
 */
export type NameRule =
  | 'element-name'
  | { maxLength: number; nonEmpty: boolean; trimmed: boolean; forbidden: string };

/**
 * Whether the parser reads `name` as a tag name: a name-start character, then name characters
 * (the tag reader's own classes, src/protocol/chars.ts); `tagName` bounds a name and the blanks
 * before its `>`, so the longest name is one shorter than the bound.
 */
export function isElementName(name: string): boolean {
  if (name.length === 0 || name.length >= LOOKAHEAD.tagName.value) return false;
  if (!isNameStart(name.charCodeAt(0))) return false;
  for (let i = 1; i < name.length; i++) if (!isNameChar(name.charCodeAt(i))) return false;
  return true;
}

/** Whether `rule` admits `key` as an argument's name. */
export function admitsName(rule: NameRule, key: string): boolean {
  if (rule === 'element-name') return isElementName(key);
  return (
    key.length <= rule.maxLength &&
    (!rule.nonEmpty || key.length > 0) &&
    (!rule.trimmed || key === key.trim()) &&
    ![...rule.forbidden].some((c) => key.includes(c))
  );
}

/**
 * How a family writes one call's arguments. The renderer writes a call's values from it and
 * the grammar builder constrains a model's values by it: one row, two readers.
 */
export type WrittenArguments =
  /**
   * A JSON object (`{"key": value}`). `forbid`: characters a grammar makes strings escape
   * (`<` where a special token closes the call); the renderer writes them as they are.
   */
  | { kind: 'json'; forbid: string }
  /**
   * Python keyword arguments, `name(key=value, …)`, each value as JSON writes it; `comma`
   * stands between two arguments.
   */
  | { kind: 'python'; forbid: string; comma: string }
  /**
   * Keys bare and strings between a quote token, `{key:<|"|>text<|"|>,n:3}` (the value syntax
   * `gemma`). `tokens`: what ends a string or a call wherever it stands (the quote among them).
   */
  | { kind: 'gemma'; quote: string; tokens: readonly string[] }
  /**
   * The `<tool>` protocol's nested elements (`renderArguments`): its grammar has a builder
   * of its own (src/grammar/tool-grammar.ts).
   */
  | { kind: 'xml' }
  | WrittenElements;

/** One element per argument, its text the value (a string as it is, anything else as JSON). */
export interface WrittenElements {
  kind: 'text';
  /** The keys the form can write as an argument's name. */
  names: NameRule;
  /**
   * The opening of an argument (slot `key`). `isString`: whether the value is text, and
   * `valueType`: its JSON type (the renderer asks the value, the grammar the schema), for the
   * forms that say so in the tag (DSML's `string="true"`, Kimi K3's `type="number"`).
   */
  open: Template<'key' | 'isString' | 'valueType'>;
  close: Template<'key'>;
  /** What follows each argument's close. */
  after: string;
  /** How the reader takes a value's text: one mode, or modes by key (as `MarkupForm.text`). */
  mode: ValueTexts;
  /**
   * Text a value may not hold: the form's tags, `key` filled with the value's key; a template
   * with the slot `name` stands for each tool's (Cline's `</read_file>`).
   */
  forbid: readonly Template<'key' | 'name'>[];
}

/** The opening of argument `key`, its value of JSON type `valueType`. */
export const argumentOpen = (args: WrittenElements, key: string, valueType: ValueType): string =>
  fill(args.open, { key, isString: String(valueType === 'string'), valueType });

/** How the reader takes the value of `key`. */
export const modeOf = (args: WrittenElements, key: string) => valueTextOf(args.mode, key);

/** The texts the value of `key` may not hold, for calls of `tools`. */
export function forbiddenIn(
  args: WrittenElements,
  key: string,
  tools: readonly string[],
): readonly string[] {
  return args.forbid.flatMap((template) =>
    hasSlot(template, 'name')
      ? tools.map((name) => fill(template, { key, name }))
      : [fill(template, { key, name: '' })],
  );
}

/** What one call writes before and after its arguments (`server`: the `<tool>` protocol's). */
export interface WrittenCall {
  before: Template<'name' | 'server'>;
  after: Template<'name' | 'server'>;
}

/**
 * A family's calls as its chat template writes them, read by the renderer (`renderCallIn`)
 * and the grammar builder (src/grammar). A reply's calls are `open`, then each call
 * `call.before` + its arguments + `call.after`, `separator` between two, then `close`.
 * `maxCalls` is what the form holds in one reply (gpt-oss's `<|call|>` ends it). `trigger` is
 * the text a lazy grammar engages on: the family's own opening (a tool's, slot `name`, for
 * forms without one).
 */
export interface WrittenForm {
  args: WrittenArguments;
  call: WrittenCall;
  open: string;
  close: string;
  separator: string;
  maxCalls?: number;
  trigger: Template<'name'>;
  /** The trigger must stand at a line start (a tag that is no special token). */
  triggerAtLineStart?: boolean;
  /**
   * What stands before `open` in one reading only. `rendered`: what the template writes
   * between a reply's text and its calls that a model's reply does not begin with (gpt-oss's
   * `<|start|>assistant`, which the prompt ends with). `generated`: what a grammar has the
   * model write that the template leaves out (Llama 3's `<|python_tag|>`, a special token for a
   * lazy grammar to engage on).
   */
  lead?: { rendered?: string; generated?: string };
  /**
   * The special tokens the family's calls are written with (each one token of its tokenizer).
   * A server that decodes with spaces between special tokens writes one blank between two that
   * stand together; the family's reader reads that the same (its openings' `openTokens`).
   */
  tokens?: readonly string[];
}

/** What `form` writes around one call of `name` (of `server`). */
export const callOf = (
  form: WrittenForm,
  name: string,
  server: string,
): readonly [string, string] => [
  fill(form.call.before, { name, server }),
  fill(form.call.after, { name, server }),
];

/** The text a lazy grammar for calls of `name` engages on. */
export const triggerOf = (form: WrittenForm, name: string): string => fill(form.trigger, { name });

/** `{"name": "f", "arguments": …}`: the JSON call object most families write. */
export const NAME_AND_ARGUMENTS = {
  before: ['{"name": ', SLOT.nameJson, ', "arguments": '],
  after: '}',
} as const satisfies WrittenCall;

/** Python calls `name(key=value, …)`: the name before the arguments, nothing after. */
export const PYTHON_CALL: WrittenCall = { before: [SLOT.name], after: '' };

/** A JSON list of `{"name": …, "arguments": …}` calls between two markers. */
export function jsonCallList(open: string, close: string, forbid: string): WrittenForm {
  return {
    args: { kind: 'json', forbid },
    call: NAME_AND_ARGUMENTS,
    open: `${open}[`,
    close: `]${close}`,
    separator: ', ',
    trigger: open,
  };
}
