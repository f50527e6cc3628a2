import type { Dialect } from '../dialect-names.js';
import type { JsonValue, ToolArguments } from '../events.js';
import { checkNesting, MAX_RENDERED_DEPTH } from '../json-depth.js';
import { type RenderableCall, renderArguments } from '../render.js';
import { WRITTEN_FORMS } from './index.js';
import { argumentOpen, callOf, fill, type ValueType, type WrittenArguments } from './written.js';

/** A value as the quote-token syntax writes it: strings between `quote`, top-level keys bare. */
function quotedValue(value: JsonValue, quote: string): string {
  if (typeof value === 'string') return `${quote}${value}${quote}`;
  if (Array.isArray(value)) return `[${value.map((v) => quotedValue(v, quote)).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${quote}${k}${quote}:${quotedValue(v, quote)}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** A value as the element forms write it: text as it is, anything else as JSON. */
const text = (value: JsonValue) => (typeof value === 'string' ? value : JSON.stringify(value));

/** A value's JSON type, as the element forms that say it write it. */
function valueTypeOf(value: JsonValue): ValueType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' ? type : 'object';
}

/** One call's arguments as `form` writes them. */
function renderArgumentsIn(form: WrittenArguments, args: ToolArguments): string {
  const entries = Object.entries(args) as Array<[string, JsonValue]>;
  switch (form.kind) {
    case 'json':
      return JSON.stringify(args);
    case 'python':
      return `(${entries.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(form.comma)})`;
    case 'gemma':
      return `{${entries.map(([k, v]) => `${k}:${quotedValue(v, form.quote)}`).join(',')}}`;
    case 'xml': {
      const body = renderArguments(args);
      return body === '' ? '' : `\n${body}\n`;
    }
    case 'text':
      return entries
        .map(
          ([key, v]) =>
            `${argumentOpen(form, key, valueTypeOf(v))}${text(v)}${fill(form.close, { key })}${form.after}`,
        )
        .join('');
  }
}

/**
 * A call written the way its model family writes it, as each family's chat template renders
 * an earlier call (and so as the parser reads it back), from the family's written form
 * (`WrittenForm`). For the prompt's examples and for earlier calls in a conversation sent to
 * a model of that family. `tagcall` is the `<tool>` protocol. Throws `NestingLimitError` for
 * arguments nesting deeper than `MAX_RENDERED_DEPTH`.
 */
export function renderCallIn(dialect: Dialect, call: RenderableCall): string {
  checkNesting(call.arguments, MAX_RENDERED_DEPTH, `the arguments of ${call.toolName}`);
  const form = WRITTEN_FORMS[dialect];
  const [before, after] = callOf(form, call.toolName, call.serverName ?? 'local');
  const args = renderArgumentsIn(form.args, call.arguments);
  return `${form.lead?.rendered ?? ''}${form.open}${before}${args}${after}${form.close}`;
}

/**
 * The canonical `<tool>` block of a call, as the model is asked to write it. Throws
 * `NestingLimitError` for arguments nesting deeper than `MAX_RENDERED_DEPTH` (256).
 */
export const renderCall = (call: RenderableCall): string => renderCallIn('tagcall', call);
