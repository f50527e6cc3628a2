import type { BlockReader } from '../block.js';
import { LOOKAHEAD } from '../lookahead.js';
import type { MarkupForm } from '../markup/form.js';
import { literalRecoveries, recoveryRow } from './recoveries.js';
import { SLOT, type WrittenForm } from './written.js';

/** The markers of a form written as GLM's: a call's name, then key and value pairs. */
export interface PairMarkers {
  call: string;
  callClose: string;
  key: string;
  keyClose: string;
  /** The value's opening; '' where the key's close opens the value (Solar Open 2's). */
  value: string;
  valueClose: string;
  /** The block around the calls, where the family writes one (K2 Horizon's). */
  block?: { open: string; close: string };
}

const GLM_MARKERS: PairMarkers = {
  call: '<tool_call>',
  callClose: '</tool_call>',
  key: '<arg_key>',
  keyClose: '</arg_key>',
  value: '<arg_value>',
  valueClose: '</arg_value>',
};
/** Blanks between a call's opening, the name and the line's end, at most. */
const BLANKS = LOOKAHEAD.markerBlanks.value;

/** What a form written as GLM's recovers from, in its own markers' words. */
export function pairRecoveries(m: PairMarkers) {
  return literalRecoveries(
    `${m.call} was not closed with ${m.callClose}`,
    `${m.value || m.keyClose} was not closed with ${m.valueClose}`,
  );
}

export const GLM_RECOVERIES = {
  ...pairRecoveries(GLM_MARKERS),
  /** What GLM's readers say of `\n` written as two characters between its tags. */
  'escaped-text': recoveryRow(
    'stray-text',
    'literal \\n escapes stand between the tags (a reply logged escaped, as in a JSON string); read as newlines, and its values unescaped',
  ),
};
const ESCAPED = GLM_RECOVERIES['escaped-text'];
/** A call's name followed by `\\n` (or `\\t`, `\\r`) written as two characters. */
const ESCAPED_AFTER_NAME = { group: 2, test: /\\/ };

/** `text` as a pattern that matches it as written. */
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A form written as GLM's under `m`: the call's name after its opening (then a newline, the
 * first key or the call's close), then per argument its key and its value, as written.
 * `escaped`: the family's replies are at times logged escaped (GLM's): `\n` written as two
 * characters between the tags is read as a newline, with a warning.
 */
export function pairsForm(
  format: MarkupForm['format'],
  m: PairMarkers,
  recoveries: ReturnType<typeof pairRecoveries>,
  escaped: boolean,
): MarkupForm {
  const [call, callClose, key, keyClose, value] = [
    m.call,
    m.callClose,
    m.key,
    m.keyClose,
    m.value,
  ].map(literally);
  const afterName = escaped ? String.raw`(?:[ \t]|\\[nrt])` : String.raw`[ \t]`;
  // Between the key's close and the value's opening (none where the close opens the value):
  // blanks, or escaped blanks in a reply logged escaped. Any other text there makes no
  // parameter: the call cannot read it, and fails.
  const gapBlank = escaped ? String.raw`(?:\s|\\[nrt])` : String.raw`\s`;
  const gap = `(${gapBlank}{0,${LOOKAHEAD.keyValueGap.value}})${value}`;
  return {
    format,
    tags: 'literal',
    // Without a block of its own, one call a block: the call's opening opens it.
    wrapper: m.block ?? null,
    call: {
      start: m.call,
      opening: {
        kind: 'named',
        prefix: m.call,
        pattern: new RegExp(
          String.raw`${call}[ \t]{0,${BLANKS}}([^\s<>{}[\]"\\]{1,${LOOKAHEAD.callName.value}})(${afterName}{0,${BLANKS}})(?:\r?\n|(?=${key})|(?=${callClose}))`,
          'y',
        ),
        // `\n` written as two characters after the name: a reply logged escaped.
        ...(escaped && {
          stray: [{ when: ESCAPED_AFTER_NAME, recovery: ESCAPED }],
          escaped: ESCAPED_AFTER_NAME,
        }),
      },
      close: m.callClose,
      closeInValue: 'next-call',
      reopenFails: false,
      unnamed: `write the call as ${m.call}name, then ${m.key}…${m.keyClose}${m.value}…${m.valueClose}`,
      unreadable: `the text inside ${m.call} is not its arguments; write each as ${m.key}key${m.keyClose}, a newline, ${m.value}value${m.valueClose}, with nothing else between them`,
    },
    parameter: {
      opening: {
        kind: 'named',
        prefix: m.key,
        pattern: new RegExp(
          `${key}([^<]{1,${LOOKAHEAD.parameterName.value}})${keyClose}${m.value === '' ? '' : gap}`,
          'y',
        ),
        // Escaped blanks between the key's close and the value's opening: a reply logged escaped.
        ...(m.value !== '' &&
          escaped && {
            stray: [{ when: { group: 2, test: /^\s*$/ }, recovery: null }, { recovery: ESCAPED }],
          }),
        ...(escaped && { escaped: { group: 2, test: /^(?=[\s\S]*\\[nrt])(?:\s|\\[nrt])*$/ } }),
      },
      close: m.valueClose,
      reopens: m.key,
    },
    key: 'trim',
    text: 'verbatim',
    repeated: 'warn',
    jsonForm: false,
    escapedBlanks: escaped,
    empty: `a ${m.block?.open ?? m.call} block holds no call`,
    recoveries,
  };
}

/** GLM's form, which `auto` reads in `<tool_call>` when a name begins its body. */
export const GLM_FORM: MarkupForm = pairsForm('glm', GLM_MARKERS, GLM_RECOVERIES, true);

/**
 * GLM-4.5 / 4.6's form, as their chat templates write it: `<tool_call>name` then, per
 * argument, `<arg_key>key</arg_key>` and `<arg_value>value</arg_value>`, then `</tool_call>`;
 * one call a block. Values as written (the template writes non-strings as JSON). It shares
 * `<tool_call>` with Hermes and Qwen3-Coder: in `auto` a body that starts with a name is GLM's.
 */
export const glm: BlockReader = {
  open: GLM_MARKERS.call,
  anywhere: true,
  reads: { markup: GLM_FORM },
};

/**
 * Calls written as GLM's under `m` (one a block where the family has no block of its own): `nameEnd` after the name, `keyEnd` between
 * the key's close and the value's opening, `after` after each value.
 */
export function pairsWritten(
  m: PairMarkers,
  layout: { nameEnd: string; keyEnd: string; after: string },
): WrittenForm {
  return {
    args: {
      kind: 'text',
      names: {
        maxLength: LOOKAHEAD.parameterName.value,
        nonEmpty: true,
        trimmed: true,
        forbidden: '<',
      },
      open: [m.key, SLOT.key, `${m.keyClose}${layout.keyEnd}${m.value}`],
      close: m.valueClose,
      after: layout.after,
      mode: 'verbatim',
      forbid: [
        m.call,
        m.callClose,
        m.key,
        m.keyClose,
        m.value,
        m.valueClose,
        ...(m.block === undefined ? [] : [m.block.open, m.block.close]),
      ].filter((t) => t !== ''),
    },
    call: { before: [m.call, SLOT.name, layout.nameEnd], after: m.callClose },
    // In the family's block, the calls back to back; without one, one call a block, a line each.
    open: m.block?.open ?? '',
    close: m.block?.close ?? '',
    separator: m.block === undefined ? '\n' : '',
    trigger: m.block?.open ?? m.call,
  };
}

/** GLM's calls as its templates write them: one a block, each key and value on a line. */
export const GLM_WRITTEN = pairsWritten(GLM_MARKERS, { nameEnd: '\n', keyEnd: '\n', after: '\n' });
