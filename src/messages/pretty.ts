import type { Message } from './message.js';

const LABEL = { system: 'System', user: 'Human', assistant: 'AI' } as const;

/**
 * A conversation for people: `[System]`, `[Human]`, `[AI]` with `(thinking)` lines and calls as
 * `→ name(args)`, and `[Tool: name (call_id=…)]` for results.
 */
export function formatMessages(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    if (m.role === 'tool') {
      for (const p of m.parts) {
        if (p.kind !== 'tool-result') continue;
        lines.push(
          `[Tool: ${p.toolName} (call_id=${p.callId})] ${p.isError ? 'Error: ' : ''}${p.output}`,
        );
      }
      continue;
    }
    const sender = m.sender === undefined ? '' : ` ${m.sender}`;
    const head = `[${LABEL[m.role] ?? m.role}${sender}]`;
    const body: string[] = [];
    for (const p of m.parts) {
      if (p.kind === 'text') {
        // Whitespace between a reply's calls and thinking is layout, not something to show.
        if (p.text.trim() !== '') body.push(p.text.trim());
      } else if (p.kind === 'thinking') body.push(`(thinking) ${p.text}`);
      else if (p.kind === 'tool-call') {
        const server = p.serverName === 'local' ? '' : `${p.serverName}/`;
        body.push(`→ ${server}${p.toolName}(${JSON.stringify(p.arguments)})`);
      } else if (p.kind === 'image') body.push(`(image ${p.url ?? p.mediaType ?? ''})`);
    }
    lines.push(`${head} ${body.join('\n  ')}`);
  }
  return lines.join('\n');
}
