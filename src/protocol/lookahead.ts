/**
 * Every bound on how far the streaming parser looks ahead, or holds input back, before it
 * decides: one row each, with what it bounds and what the parser makes of input past it. The
 * engine's modules and the declarations read their bounds here (a declaration's pattern is
 * built from a row's value), so a bound is written once; docs/parser.md lists the same rows
 * (test/lookahead-table.test.ts checks both; test/lookahead-bounds.test.ts each row's outcome at
 * the bound and just past it).
 */

/** What input past a bound becomes: text, a recovery with a warning, or a call's error. */
export type PastBound = 'text' | 'warning' | 'error';

export interface LookaheadBound {
  readonly value: number;
  /** The parser option that sets this bound per parser; `value` is its default. */
  readonly option?: 'maxHold';
  /** What is looked through or held, and where the count starts. */
  readonly bounds: string;
  readonly past: PastBound;
  /** What the parser does with input that runs past the bound. */
  readonly pastMeans: string;
}

const row = (bound: LookaheadBound): LookaheadBound => Object.freeze(bound);

export const LOOKAHEAD = Object.freeze({
  maxHold: row({
    value: 16 * 1024,
    option: 'maxHold',
    bounds:
      "at most this many characters held undecided at the top level: a line-start `[` waiting for its `]`, the start of an `'auto'` reply that may be pre-filled thinking (its `</think>`)",
    past: 'text',
    pastMeans: 'the `[` is text; the reply did not begin in thinking',
  }),
  fenceLine: row({
    value: 256,
    bounds:
      'a fence marker line outside calls, from its first backtick or tilde: the run and, on a closing line, the blanks after it, fewer than this',
    past: 'text',
    pastMeans: 'the line opens or closes no fence: it is content',
  }),
  bracketLineEnd: row({
    value: 256,
    bounds:
      "what follows a line-start bracket's `]`: blanks up to the line's end, within this many characters",
    past: 'text',
    pastMeans: 'the bracket is text, not thinking',
  }),
  tagName: row({
    value: 256,
    bounds:
      "a `<tool>` element's name and the blanks before its `>`, fewer than this many characters (so the grammars write as elements only names one shorter)",
    past: 'text',
    pastMeans: "the `<` is text (inside a value, the value's text)",
  }),
  entity: row({
    value: 10,
    bounds: 'a character reference from its `&` through `;`, at most (`&#x10FFFF;` is the longest)',
    past: 'text',
    pastMeans: 'the `&` is literal text',
  }),
  closeConfirm: row({
    value: 256,
    bounds:
      'blanks and newlines between a candidate closing tag of a markup dialect and what confirms it (fewer than this)',
    past: 'text',
    pastMeans:
      "the closing tag is the value's text; if the value then ends unclosed, the call fails (`unreadable-arguments`)",
  }),
  openingTag: row({
    value: 640,
    bounds:
      'a partial opening tag of a markup dialect (`<invoke name="…">`), held while it may still match, at most',
    past: 'error',
    pastMeans:
      "it is no opening: a parameter's fails the call (`unreadable-arguments`), a call's fails with `missing-tool-name`",
  }),
  callName: row({
    value: 256,
    bounds:
      "a call's name written in a declared marker, at most: `<function=NAME>`, `<invoke name=\"NAME\">`, GLM's `<tool_call>NAME`, Mistral's `[TOOL_CALLS]NAME`",
    past: 'error',
    pastMeans: 'the call is not opened: `missing-tool-name`, its block kept as text',
  }),
  parameterName: row({
    value: 256,
    bounds:
      'a parameter\'s name written in a declared marker, at most: `<parameter=NAME>`, `<parameter name="NAME">`, GLM\'s `<arg_key>NAME</arg_key>` (and which keys the grammars write there)',
    past: 'error',
    pastMeans: 'the parameter is not read: the call fails (`unreadable-arguments`)',
  }),
  markerBlanks: row({
    value: 64,
    bounds:
      "blanks between the parts of a declared marker, at most: after GLM's `<tool_call>` and its name, around `name=`, before an opening's `>`, around Step3's `function`",
    past: 'error',
    pastMeans: "the marker is not read: a call's opening fails with `missing-tool-name`",
  }),
  markerFlag: row({
    value: 16,
    bounds: 'the value of DSML\'s `string="…"` attribute on a parameter, at most',
    past: 'error',
    pastMeans: 'the parameter is not read: the call fails (`unreadable-arguments`)',
  }),
  callId: row({
    value: 256,
    bounds: "Mistral's call id after `[CALL_ID]`, at most",
    past: 'error',
    pastMeans: 'the call is not opened: `missing-tool-name`, its block kept as text',
  }),
  keyValueGap: row({
    value: 256,
    bounds: "GLM's blanks between `</arg_key>` and `<arg_value>`, at most",
    past: 'error',
    pastMeans: 'the parameter is not read: the call fails (`unreadable-arguments`)',
  }),
  leadingBlanks: row({
    value: 256,
    bounds:
      "blanks after a shared opening (`<tool_call>`, `<longcat_tool_call>`) in `'auto'` before the body's first character (which picks the family), at most",
    past: 'text',
    pastMeans: 'the opening is text',
  }),
  headLook: row({
    value: 300,
    bounds:
      'at most this many characters after an opening that confirm it as a call (a name and `(`, `name>{`, `[{"name"`: xLAM, Functionary, Hermes\' bare forms, Python calls), from the end of the opening',
    past: 'text',
    pastMeans: 'the opening is text',
  }),
  clineMidLine: row({
    value: 255,
    bounds:
      'blanks between a Cline tool tag in the middle of a line and its first parameter tag, at most',
    past: 'text',
    pastMeans: 'the tool tag is text',
  }),
  jsonToken: row({
    value: 256,
    bounds:
      "at most this many blanks after a JSON string's quote, and after the comma that follows it, that decide whether the quote closes the string (and from the quote to the colon of an unquoted key after that comma)",
    past: 'warning',
    pastMeans: "the quote is the string's text: the string is repaired (`repaired-json`)",
  }),
  pythonCallParen: row({
    value: 256,
    bounds: "blanks between a Python call's name and its `(` in a Python body, at most",
    past: 'error',
    pastMeans: 'the name is no call: the body is no Python (`invalid-json`)',
  }),
  bodyHeader: row({
    value: 512,
    bounds:
      "a named body's header before its arguments, from the block's start, at most: Mistral's `name[ARGS]`, a section's call header, a gpt-oss message header",
    past: 'error',
    pastMeans: 'no call: `missing-tool-name` or `incomplete-tool-call`',
  }),
  bodyFence: row({
    value: 32,
    bounds:
      "a partial code fence line a body's form expects after its opening (MiniCPM3's, DeepSeek V3's) before its newline, at most",
    past: 'error',
    pastMeans:
      'read without the fence (`missing-wrapper`): the fence line is then no JSON or Python (`invalid-json`)',
  }),
} satisfies Record<string, LookaheadBound>);

export type LookaheadName = keyof typeof LOOKAHEAD;
