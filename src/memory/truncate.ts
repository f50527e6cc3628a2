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
  return `${text.slice(0, head)}${marker(text.length - room)}${tail > 0 ? text.slice(text.length - tail) : ''}`;
}
