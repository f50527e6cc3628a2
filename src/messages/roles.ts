export const ROLES = ['system', 'user', 'assistant', 'tool'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** The roles a message from outside (an API caller, a chat box) may have: no spoofed model or tool turns. */
export function isUserInputRole(value: unknown): value is 'user' | 'system' {
  return value === 'user' || value === 'system';
}
