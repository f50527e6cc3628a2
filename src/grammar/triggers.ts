/**
 * llama.cpp's `common_grammar_trigger_type`: TOKEN 0, WORD 1, PATTERN 2, PATTERN_FULL 3. A word
 * or pattern is searched anywhere in the text so far; a full pattern must match all of it.
 * The grammar then applies from the first capture group that matched text (else from the
 * match's start).
 */
export const TriggerType = { word: 1, pattern: 2, patternFull: 3 } as const;

export interface GrammarTrigger {
  type: number;
  value: string;
}

/** ECMAScript regex source for a literal (llama.cpp's std::regex reads ECMAScript too). */
const regexLiteral = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * A trigger for calls that open at a line start (`<tool>`): a pattern searched in the text so
 * far, `(?:^|\n)[ \t]*(<tool>)`. llama.cpp joins every word and pattern trigger into one
 * regex, `^[\s\S]*?(…|…)[\s\S]*`, whose group is the whole match: the grammar applies from
 * the newline before the opening, and begins with it (`lineStartLead`). A word trigger would
 * also fire on `<tool>` in the middle of a line, where the parser reads no call.
 *
 * It does not leave out a line-start opening inside a code fence or a thinking block (where
 * the parser reads text, not a call): saying so takes a pattern over the whole reply, and
 * llama.cpp runs patterns with std::regex, whose backtracking recurses once per character
 * (`[\s\S]*` over 50,000 characters overflowed the server's stack: llama.cpp #17902, #18342)
 * and which it runs again after every token. There the grammar makes the model write a
 * well-formed call that stays text.
 */
export function lineStartTrigger(opening: string): GrammarTrigger {
  return { type: TriggerType.pattern, value: `(?:^|\\n)[ \\t]*(${regexLiteral(opening)})` };
}
