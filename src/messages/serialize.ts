import type { Message } from './message.js';

/**
 * JSON for messages, lossless: image bytes (`Uint8Array`) travel as `{"$bytes": base64}`;
 * everything else in a message is JSON already.
 */
export function toJsonText(value: unknown, indent?: number): string {
  return JSON.stringify(
    value,
    (_key, v: unknown) =>
      v instanceof Uint8Array ? { $bytes: Buffer.from(v).toString('base64') } : v,
    indent,
  );
}

export function fromJsonText<T>(text: string): T {
  return JSON.parse(text, (_key, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const keys = Object.keys(v);
      const bytes = (v as { $bytes?: unknown }).$bytes;
      if (keys.length === 1 && typeof bytes === 'string')
        return new Uint8Array(Buffer.from(bytes, 'base64'));
    }
    return v;
  }) as T;
}

export const messageToJson = (message: Message): string => toJsonText(message);
export const messageFromJson = (text: string): Message => fromJsonText<Message>(text);
