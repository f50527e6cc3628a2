import type { CallFormat } from '../events.js';
import { type MarkupForm, namedOpening } from '../markup/form.js';
import { MarkupReader } from '../markup/reader.js';
import type { BlockReader } from './block.js';

/** `<invoke name="…">` calls with `<parameter name="…">` values, inside `open` … `close`. */
function invokeForm(format: CallFormat, open: string, close: string): MarkupForm {
  return {
    format,
    tags: 'literal',
    wrapper: { open, close },
    call: {
      start: '<invoke',
      read: namedOpening(
        '<invoke',
        /<invoke\s{1,64}name\s{0,64}=\s{0,64}(?:"([^"]{0,256})"|'([^']{0,256})')\s{0,64}>/y,
      ),
      close: '</invoke>',
      closeInValue: 'next-call',
      reopenFails: false,
      unnamed: '<invoke> needs a name: <invoke name="tool_name">',
      unclosed: '<invoke> was not closed with </invoke>',
    },
    parameter: {
      read: namedOpening(
        '<parameter',
        /<parameter\s{1,64}name\s{0,64}=\s{0,64}(?:"([^"]{0,256})"|'([^']{0,256})')\s{0,64}>/y,
      ),
      close: () => '</parameter>',
      unclosed: '<parameter> was not closed with </parameter>',
      reopens: '<parameter',
    },
    key: (name) => name,
    text: () => 'verbatim',
    nested: false,
    repeated: 'warn',
    jsonForm: false,
    empty: `a ${open} block holds no <invoke name="…">`,
  };
}

const ANTHROPIC = invokeForm('anthropic-xml', '<function_calls>', '</function_calls>');

/**
 * Anthropic's XML form: `<function_calls>`, then per call `<invoke name="tool">` with
 * `<parameter name="key">value</parameter>` children. Values are taken as written (no entity
 * decoding: this form does not escape).
 */
export const anthropicXml: BlockReader = {
  open: ANTHROPIC.wrapper?.open ?? '',
  anywhere: true,
  stream: (sink, limits) => new MarkupReader(ANTHROPIC, sink, limits),
};

const MINIMAX = invokeForm('minimax-m2', '<minimax:tool_call>', '</minimax:tool_call>');

/**
 * MiniMax-M2's form, as its chat template writes it: Anthropic's `<invoke>` calls inside
 * `<minimax:tool_call>` … `</minimax:tool_call>` (a special token of its vocabulary). Values
 * are as written; a schema coerces non-strings, which the template writes as JSON.
 */
export const minimaxM2: BlockReader = {
  open: MINIMAX.wrapper?.open ?? '',
  anywhere: true,
  stream: (sink, limits) => new MarkupReader(MINIMAX, sink, limits),
};
