import type { ParserEvent } from './all.js';

/**
 * One entry of a folded event sequence: what the contract says must not depend on how the
 * input was split (docs/protocol.md). Deltas of the same target that follow each other are
 * merged, since where a chunk ends only decides how many of them there are.
 */
export type FoldedEvent =
  | { type: 'text'; text: string }
  | { type: 'marker'; text: string; offset: number }
  | { type: 'thinking-start'; offset: number; format: string }
  | { type: 'thinking-delta'; text: string }
  | { type: 'thinking-end'; offset: number }
  | { type: 'tool-start'; id: string; offset: number }
  | { type: 'tool-name'; id: string; serverName: string; toolName: string }
  | { type: 'argument-delta'; id: string; path: string; text: string }
  | { type: 'tool-end'; id: string; call: unknown }
  | { type: 'warning'; code: string; offset: number; callId?: string }
  | { type: 'error'; code: string; offset: number; callId?: string };

/** The sequence a property compares: types, ids, paths, texts, codes and offsets, in order. */
export function foldEvents(events: readonly ParserEvent[]): FoldedEvent[] {
  const out: FoldedEvent[] = [];
  for (const e of events) {
    const last = out[out.length - 1];
    switch (e.type) {
      case 'text':
      case 'thinking-delta':
        if (e.text === '') break;
        if (last?.type === e.type) last.text += e.text;
        else out.push({ type: e.type, text: e.text });
        break;
      case 'argument-delta': {
        if (e.text === '') break;
        const path = e.path.names.map((name, k) => `${name}[${e.path.indices[k]}]`).join('.');
        if (last?.type === 'argument-delta' && last.id === e.id && last.path === path)
          last.text += e.text;
        else out.push({ type: 'argument-delta', id: e.id, path, text: e.text });
        break;
      }
      case 'tool-end':
        out.push({ type: 'tool-end', id: e.call.id, call: e.call });
        break;
      case 'warning':
      case 'error':
        out.push({
          type: e.type,
          code: e.code,
          offset: e.offset,
          ...(e.callId !== undefined && { callId: e.callId }),
        });
        break;
      default:
        out.push({ ...e });
    }
  }
  return out;
}

/**
 * Whether every string an event carries is well-formed UTF-16: no delta ends in the first
 * half of a surrogate pair or starts with its second half. Returns the first offender, or null.
 */
export function splitSurrogate(events: readonly ParserEvent[]): ParserEvent | null {
  for (const e of events) {
    const text =
      e.type === 'text' || e.type === 'thinking-delta' || e.type === 'argument-delta'
        ? e.text
        : null;
    if (text === null || text === '') continue;
    if (/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(text)) return e;
  }
  return null;
}
