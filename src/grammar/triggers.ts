import type { BlockReader } from '../protocol/block.js';

/**
 * llama.cpp's `common_grammar_trigger_type`: TOKEN 0, WORD 1, PATTERN 2, PATTERN_FULL 3. Each
 * word (escaped) and each pattern is searched on its own in the text so far, after every
 * token; a full pattern must match all of it. The grammar then applies from the first
 * capture group of the match that holds text (else from the match's start):
 * `llama_grammar_trigger_pattern::find` in the llama.cpp that node-llama-cpp bundles. A word
 * that is one token of the model's vocabulary becomes a TOKEN trigger on the server, which
 * must be listed in `preserved_tokens` (see `preservedTokens`).
 */
export const TriggerType = { word: 1, pattern: 2, patternFull: 3 } as const;

export interface GrammarTrigger {
  type: number;
  value: string;
}

/** ECMAScript regex source for a literal (llama.cpp's std::regex reads ECMAScript too). */
export const regexLiteral = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * A trigger for calls that open at a line start (`<tool>`): a pattern searched in the text so
 * far, `(?:^|\n)[ \t]*(<tool>)`; the grammar applies from the capture, the opening (an older
 * llama.cpp joined the triggers into one regex and handed the grammar the newline and blanks
 * too: `lineStartLead` accepts both). A word trigger would also fire on `<tool>` in the middle
 * of a line, where the parser reads no call.
 *
 * It does not leave out a line-start opening inside a code fence or a thinking block (where
 * the parser reads text, not a call): saying so takes a pattern over the whole reply, and
 * llama.cpp runs patterns with std::regex, whose backtracking recurses once per character
 * (`[\s\S]*` over 50,000 characters overflowed the server's stack: llama.cpp #17902, #18342)
 * and which it runs again after every token. `tagcall serve` reads the text before a trigger
 * on its own instead (`createTriggerSearch`, docs/grammars.md "Free text before the trigger").
 */
export function lineStartTrigger(opening: string): GrammarTrigger {
  return { type: TriggerType.pattern, value: `(?:^|\\n)[ \\t]*(${regexLiteral(opening)})` };
}

/**
 * A trigger for an opening that is a word (`functools[`): it fires where no letter, digit or
 * `_` stands right before it, as the parser reads it (`isWordChar`), not inside `myfunctools[`.
 */
export function wordStartTrigger(opening: string): GrammarTrigger {
  return {
    type: TriggerType.pattern,
    value: `(?:^|[^A-Za-z0-9_])(${regexLiteral(opening)})`,
  };
}

/**
 * A trigger for a tag the parser opens in the middle of a line when a parameter's tag follows
 * it (Cline's `see <edit_file>\n<path>`): it fires on the tag, the newline and a parameter tag
 * the grammar may write first (`firstTags`), and hands the grammar the text from the tag on.
 */
export function midLineTagTrigger(opening: string, firstTags: readonly string[]): GrammarTrigger {
  const tags = firstTags.map(regexLiteral).join('|');
  return { type: TriggerType.pattern, value: `(${regexLiteral(opening)})\\n(?:${tags})` };
}

/**
 * The triggers for a grammar opening `opening`, placed as the parser's reader of it places
 * it: anywhere for a special token, at a word start for a word, at a line start otherwise;
 * and in the middle of a line too where the reader opens a tag there before a parameter's tag
 * (`midLineTags`: the parameter tags the grammar may write first; empty for none).
 */
export function triggersFor(
  opening: string,
  reader: BlockReader | undefined,
  midLineTags: readonly string[] | undefined,
): GrammarTrigger[] {
  if (reader === undefined || reader.anywhere === true)
    return [{ type: TriggerType.word, value: opening }];
  if (reader.wordStart === true) return [wordStartTrigger(opening)];
  if (midLineTags === undefined) {
    // Confirmed by what follows it (Llama 4's `[name(`, xLAM's `[{"name": `): the trigger
    // holds that confirmation, so it fires where the reader opens.
    if (reader.midLine !== undefined) return [{ type: TriggerType.word, value: opening }];
    return [lineStartTrigger(opening)];
  }
  return midLineTags.length === 0
    ? [lineStartTrigger(opening)]
    : [lineStartTrigger(opening), midLineTagTrigger(opening, midLineTags)];
}

/** What the families' tokenizers hold as special tokens: `<|…|>`, `<｜…｜>`, `[TOOL_CALLS]`, Gemma's `<|tool_call>`. */
const SPECIAL_TOKEN =
  /<\|[^<>|\s]{1,40}\|>|<｜[^｜\s]{1,40}｜>|\[[A-Z][A-Z_]{1,30}\]|<\|[a-z_]{1,40}>|<[a-z_]{1,40}\|>|<\/?[A-Za-z_][\w:.-]{0,40}>/g;

/**
 * `preserved_tokens` for a llama-server request: every tag and marker in the texts the
 * grammar writes and its triggers (`<tool_call>`, `<|python_tag|>`, `[ARGS]`). The server
 * keeps those that are one token of the model's vocabulary and drops the others, so listing
 * one that is not a token costs nothing. Two things need it: a trigger word that is one token
 * is refused unless listed (`400 Grammar trigger word should be marked as preserved token`),
 * and a special token is written into the reply's text only when listed (else the server
 * drops it, and the parser would miss the call's markers).
 */
export function preservedTokens(texts: Iterable<string>): string[] {
  const found = new Set<string>();
  for (const text of texts) for (const match of text.matchAll(SPECIAL_TOKEN)) found.add(match[0]);
  return [...found];
}
