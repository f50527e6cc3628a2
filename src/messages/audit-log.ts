import { randomUUID } from 'node:crypto';
import type { JsonValue } from '../protocol/index.js';
import type { Message } from './message.js';
import { fromJsonText, toJsonText } from './serialize.js';

/**
 * Why something happened. The agent loop records `task`, `model_reply` / `malformed_reply`,
 * `malformed_feedback`, one `tool_call_*` per call and `run_ended`; a caller may record its
 * own types (`tool_call_approved`, `permission_denied`, …).
 */
export interface Decision {
  type:
    | 'task'
    | 'model_reply'
    | 'malformed_reply'
    | 'malformed_feedback'
    | 'tool_call_approved'
    | 'tool_call_completed'
    | 'tool_call_denied'
    | 'tool_call_failed'
    | 'tool_call_invalid'
    | 'tool_call_unknown'
    | 'tool_call_timed_out'
    | 'tool_call_cancelled'
    | 'permission_denied'
    | 'run_ended'
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
  /** What the entry is about; absent for entries about the run itself (how it ended). */
  message?: Message;
  decision?: Decision;
}

export interface AuditLogOptions {
  /** Sees each entry as it is recorded, e.g. to append it to a file at once. */
  onRecord?: (entry: AuditEntry) => void;
}

export interface AuditLog {
  /**
   * Records a copy of `message` as it is now: a later change to the message (a call's status)
   * does not rewrite what was recorded.
   */
  record(message: Message | undefined, decision?: Decision, timestamp?: string): AuditEntry;
  /** A copy of the entries, oldest first. */
  entries(): AuditEntry[];
  /** `{"entries": […]}`, the export shape. */
  toJSON(): string;
  /** One entry per line: append-friendly, and a torn last line loses only that entry. */
  toJSONL(): string;
}

export function createAuditLog(
  initial: readonly AuditEntry[] = [],
  options: AuditLogOptions = {},
): AuditLog {
  const entries: AuditEntry[] = [...initial];
  return {
    record(message, decision, timestamp = new Date().toISOString()) {
      const entry: AuditEntry = { id: randomUUID(), timestamp };
      if (message !== undefined) entry.message = fromJsonText<Message>(toJsonText(message));
      if (decision !== undefined) entry.decision = decision;
      entries.push(entry);
      options.onRecord?.(entry);
      return entry;
    },
    entries: () => [...entries],
    toJSON: () => toJsonText({ entries }, 2),
    toJSONL: () => entries.map((e) => `${toJsonText(e)}\n`).join(''),
  };
}

/** Reads the export shape `{"entries": […]}` and a bare array of entries alike. */
export function auditLogFromJSON(text: string): AuditLog {
  const value = fromJsonText<AuditEntry[] | { entries: AuditEntry[] }>(text);
  return createAuditLog(Array.isArray(value) ? value : value.entries);
}

export function auditLogFromJSONL(text: string): AuditLog {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return createAuditLog(lines.map((line) => fromJsonText<AuditEntry>(line)));
}
