import { type GrammarTrigger, regexLiteral, TriggerType } from './triggers.js';

/** How far back of the new text a trigger's match may begin (blanks before a line-start opening). */
const LOOKBACK = 4096;

export interface TriggerSearch {
  /**
   * Takes the next piece of the reply; returns where the lazy grammar began (an offset in the
   * whole reply) once a trigger has matched, else -1. Once found, it stays found.
   */
  push(text: string): number;
}

/**
 * Finds where llama.cpp's lazy grammar began in a reply as it streams, as the server does
 * after each token (`llama_grammar_trigger_pattern::find`): each word (escaped) and pattern
 * is searched on its own, in order; the grammar applies from the match's first capture group
 * that holds text, else from its start. Each search starts a little before the new text (a
 * match must end in it, since none matched before), so a long reply costs linear time; a
 * line-start opening after more than 4,096 blanks is not found (the parser then reads it).
 * Full patterns (matched against the whole reply) are not searched: tagcall sends none. The
 * reply is kept until the trigger fires (the caller caps its size).
 */
export function createTriggerSearch(triggers: readonly GrammarTrigger[]): TriggerSearch {
  const patterns = triggers
    .filter((t) => t.type === TriggerType.word || t.type === TriggerType.pattern)
    .map((t) => new RegExp(t.type === TriggerType.word ? regexLiteral(t.value) : t.value, 'dg'));
  const longest = Math.max(0, ...triggers.map((t) => t.value.length));
  let reply = '';
  let found = -1;
  return {
    push(text) {
      if (found !== -1 || patterns.length === 0) return found;
      const before = reply.length;
      reply += text;
      const from = Math.max(0, before - longest - LOOKBACK);
      for (const pattern of patterns) {
        pattern.lastIndex = from;
        const match = pattern.exec(reply);
        if (match === null) continue;
        const groups = match.indices ?? [];
        found = match.index;
        for (let i = 1; i < groups.length; i++) {
          const span = groups[i];
          if (span !== undefined && span[1] > span[0]) {
            found = span[0];
            break;
          }
        }
        reply = '';
        return found;
      }
      return -1;
    },
  };
}
