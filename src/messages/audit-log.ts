import { randomUUID } from 'node:crypto';
import type { JsonValue } from '../protocol/index.js';
import type { Message } from './message.js';
import { fromJsonText, toJsonText } from './serialize.js';

/** Why something happened to a message: an approval, a denial, a timing. */
export interface Decision {
  type:
    | 'tool_call_approved'
    | 'tool_call_denied'
    | 'permission_denied'
    | 'tool_call_timed_out'
    | (string & {});
  callId?: string;
  reason?: string;
  durationMs?: number;
  details?: JsonValue;
}

export interface AuditEntry {
  id: string;
  /** ISO 8601. */
  timestamp: string;
  message: Message;
  decision?: Decision;
}

export interface AuditLog {
  record(message: Message, decision?: Decision, timestamp?: string): AuditEntry;
  entries(): readonly AuditEntry[];
  /** One JSON array. */
  toJSON(): string;
  /** One entry per line: append-friendly, and a torn last line loses only that entry. */
  toJSONL(): string;
}

export function createAuditLog(initial: readonly AuditEntry[] = []): AuditLog {
  const entries: AuditEntry[] = [...initial];
  return {
    record(message, decision, timestamp = new Date().toISOString()) {
      const entry: AuditEntry = { id: randomUUID(), timestamp, message };
      if (decision !== undefined) entry.decision = decision;
      entries.push(entry);
      return entry;
    },
    entries: () => entries,
    toJSON: () => toJsonText(entries, 2),
    toJSONL: () => entries.map((e) => `${toJsonText(e)}\n`).join(''),
  };
}

export function auditLogFromJSON(text: string): AuditLog {
  return createAuditLog(fromJsonText<AuditEntry[]>(text));
}

export function auditLogFromJSONL(text: string): AuditLog {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return createAuditLog(lines.map((line) => fromJsonText<AuditEntry>(line)));
}
