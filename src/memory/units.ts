import type { Message } from '../messages/index.js';

/**
 * Non-system history in units that are kept or dropped whole: a user message; or an assistant
 * message with the tool messages after it (its results: never orphaned, never separated from
 * their call; system messages between them do not split the unit). A tool message with no
 * assistant before it is an orphan unit, which no window includes.
 */
export interface Unit {
  kind: 'user' | 'assistant' | 'orphan';
  /** Indices into the history, ascending. */
  indices: number[];
}

export function toUnits(history: readonly Message[]): Unit[] {
  const units: Unit[] = [];
  history.forEach((m, i) => {
    if (m.role === 'system') return;
    const last = units[units.length - 1];
    if (m.role === 'tool') {
      if (last !== undefined && last.kind !== 'user') last.indices.push(i);
      else units.push({ kind: 'orphan', indices: [i] });
      return;
    }
    units.push({ kind: m.role === 'user' ? 'user' : 'assistant', indices: [i] });
  });
  return units;
}
