import type { Message } from './message.js';

const LABEL = { system: 'System', user: 'Human', assistant: 'AI' } as const;

/**
 * A conversation for people, in seed 000's layout: each message under a `[System]`, `[Human]`,
 * `[AI]` or `[Tool: name (call_id=…)]` header, a blank line between messages; thinking as
 * `(thinking) …`, calls as `  → tool_call: name(id=…, args={…})` under their reply.
 */
export function formatMessages(messages: readonly Message[]): string {
  const blocks: string[] = [];
  for (const m of messages) {
    if (m.role === 'tool') {
      for (const p of m.parts) {
        if (p.kind !== 'tool-result') continue;
        blocks.push(
          `[Tool: ${p.toolName} (call_id=${p.callId})]\n${p.isError ? 'Error: ' : ''}${p.output}`,
        );
      }
      continue;
    }
    const sender = m.sender === undefined ? '' : ` ${m.sender}`;
    const lines = [`[${LABEL[m.role] ?? m.role}${sender}]`];
    for (const p of m.parts) {
      if (p.kind === 'text') {
        // Whitespace between a reply's calls and thinking is layout, not something to show.
        if (p.text.trim() !== '') lines.push(p.text.trim());
      } else if (p.kind === 'thinking') lines.push(`(thinking) ${p.text}`);
      else if (p.kind === 'tool-call') {
        const server = p.serverName === 'local' ? '' : `${p.serverName}/`;
        lines.push(
          `  → tool_call: ${server}${p.toolName}(id=${p.id}, args=${JSON.stringify(p.arguments)})`,
        );
      } else if (p.kind === 'image') lines.push(`(image ${p.url ?? p.mediaType ?? ''})`);
    }
    blocks.push(lines.join('\n'));
  }
  return blocks.join('\n\n');
}
