import type { Message } from '../messages/index.js';

/**
 * Shortens `text` to at most `max` characters keeping its head and tail, with a visible
 * marker in between saying how much was cut. Text that fits is returned as it is.
 */
export function truncateMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = (cut: number) => `\n…[${cut} characters truncated]…\n`;
  const room = Math.max(0, max - marker(text.length).length);
  const head = Math.ceil(room / 2);
  const tail = room - head;
  const kept = `${text.slice(0, head)}${marker(text.length - room)}${tail > 0 ? text.slice(text.length - tail) : ''}`;
  // A slice of a long string is a view that keeps the whole original alive (V8 sliced
  // strings): eight 50 MiB results cut to 100 KB held 400 MiB. Copy what is kept.
  return Buffer.from(kept, 'utf16le').toString('utf16le');
}

/**
 * The message with every tool output longer than `max` cut by `truncateMiddle`; the message
 * itself when nothing is that long.
 */
export function truncateToolOutputs(message: Message, max: number): Message {
  const tooLong = message.parts.some((p) => p.kind === 'tool-result' && p.output.length > max);
  if (message.role !== 'tool' || !tooLong) return message;
  const parts = message.parts.map((p) =>
    p.kind === 'tool-result' ? { ...p, output: truncateMiddle(p.output, max) } : p,
  );
  return { ...message, parts };
}
