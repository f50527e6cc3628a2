import type { ValueText } from '../markup/value-text.js';

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
  /** Whether the form can write `key` as an argument's name (a grammar leaves out those it cannot). */
  names(key: string): boolean;
  /**
   * The opening of argument `key`. `isString`: whether the value is text (the renderer asks
   * the value, the grammar the schema), for the forms that say so in the tag (DSML's
   * `string="true"`).
   */
  open(key: string, isString: boolean): string;
  close(key: string): string;
  /** What follows each argument's close. */
  after: string;
  /** How the reader takes the value's text. */
  mode(key: string): ValueText;
  /** Text the value of `key` may not hold: the form's tags (`tools`: the tools' names). */
  forbid(key: string, tools: readonly string[]): readonly string[];
}

/**
 * A family's calls as its chat template writes them, read by the renderer (`renderCallIn`)
 * and the grammar builder (src/grammar). A reply's calls are `open`, then each call
 * `call(name)[0]` + its arguments + `call(name)[1]`, `separator` between two, then `close`.
 * `maxCalls` is what the form holds in one reply (gpt-oss's `<|call|>` ends it). `trigger` is
 * the text a lazy grammar engages on: the family's own opening (a tool's, for forms without
 * one).
 */
export interface WrittenForm {
  args: WrittenArguments;
  /** What one call writes before and after its arguments (`serverName`: the `<tool>` protocol's). */
  call(name: string, serverName: string): readonly [string, string];
  open: string;
  close: string;
  separator: string;
  maxCalls?: number;
  trigger(toolName: string): string;
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
}

/** A form whose trigger is always its opening. */
export const fixedTrigger = (trigger: string) => () => trigger;

/** Whether the parser reads `name` as a tag name (its `MAX_NAME_LENGTH` included). */
export const isElementName = (name: string): boolean =>
  /^[A-Za-z_:\u0080-\u{10ffff}][A-Za-z0-9_:.\-\u0080-\u{10ffff}]{0,255}$/u.test(name) &&
  name.length <= 256;

/** `{"name": "f", "arguments": …}`: the JSON call object most families write. */
export const nameAndArguments = (name: string): readonly [string, string] => [
  `{"name": ${JSON.stringify(name)}, "arguments": `,
  '}',
];

/** A JSON list of `{"name": …, "arguments": …}` calls between two markers. */
export function jsonCallList(open: string, close: string, forbid: string): WrittenForm {
  return {
    args: { kind: 'json', forbid },
    call: nameAndArguments,
    open: `${open}[`,
    close: `]${close}`,
    separator: ', ',
    trigger: fixedTrigger(open),
  };
}

/** Python calls `name(key=value, …)`: the name before the arguments, nothing after. */
export const pythonCall = (name: string): readonly [string, string] => [name, ''];
