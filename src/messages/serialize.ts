import type { Message } from './message.js';

const DOLLAR = 0x24;

/** Whether a plain object has a key beginning with `$` (data that could pass for an envelope). */
function hasDollarKey(value: object): boolean {
  for (const key of Object.keys(value)) if (key.charCodeAt(0) === DOLLAR) return true;
  return false;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array);

/** The object with `f` applied to each key (own properties, `__proto__` included, as data). */
const renameKeys = (v: Record<string, unknown>, f: (key: string) => string) =>
  Object.fromEntries(Object.entries(v).map(([key, x]) => [f(key), x]));

/**
 * JSON for messages, lossless: image bytes (`Uint8Array`) travel as `{"$bytes": base64}`;
 * everything else in a message is JSON already. Envelopes cannot be forged by data: every key
 * of a message's data that begins with `$` (an argument a model wrote as `{"$bytes": …}`) is
 * written with one more `$`, and read back without it, so only the writer's envelopes have a
 * single `$`.
 */
export function toJsonText(value: unknown, indent?: number): string {
  return JSON.stringify(
    value,
    (_key, v: unknown) => {
      if (v instanceof Uint8Array) return { $bytes: Buffer.from(v).toString('base64') };
      if (isPlainObject(v) && hasDollarKey(v))
        return renameKeys(v, (key) => (key.charCodeAt(0) === DOLLAR ? `$${key}` : key));
      return v;
    },
    indent,
  );
}

export function fromJsonText<T>(text: string): T {
  return JSON.parse(text, (_key, v: unknown) => {
    if (!isPlainObject(v) || !hasDollarKey(v)) return v;
    const keys = Object.keys(v);
    const bytes = v.$bytes;
    if (keys.length === 1 && typeof bytes === 'string')
      return new Uint8Array(Buffer.from(bytes, 'base64'));
    return renameKeys(v, (key) => (key.startsWith('$$') ? key.slice(1) : key));
  }) as T;
}

export const messageToJson = (message: Message): string => toJsonText(message);
export const messageFromJson = (text: string): Message => fromJsonText<Message>(text);
