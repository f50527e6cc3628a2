import { type Dialect, renderCallIn } from '../protocol/index.js';
import { assistantFromText, type FromTextOptions } from './from-text.js';
import { createMessage, type Message, type Part, resultsOf } from './message.js';

/** A message for a model without native tools: plain role and text. */
export interface TextMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

function renderPart(part: Part, role: TextMessage['role'], dialect: Dialect): string | null {
  switch (part.kind) {
    case 'text':
      return part.text;
    case 'thinking':
      return `[${part.text}]`;
    case 'tool-call':
      return renderCallIn(dialect, part);
    case 'image':
      // A text-only model cannot see it; it is told that one was there (a URL it may read).
      if (role === 'assistant') return null;
      return part.url !== undefined && /^https?:/.test(part.url)
        ? `[image: ${part.url}]`
        : '[image]';
    default:
      return null;
  }
}

/**
 * Parts joined so that calls and thinking stand at a line start and end a line, adding a
 * blank line only where the pieces do not already meet at a line break: rendering what
 * `fromTextProtocol` read back gives the same text (a fixed point), not more blank lines.
 */
function joinPieces(pieces: ReadonlyArray<{ text: string; isText: boolean }>): string {
  let out = '';
  let previous: { text: string; isText: boolean } | undefined;
  for (const piece of pieces) {
    if (
      previous !== undefined &&
      !(previous.isText && piece.isText) &&
      !previous.text.endsWith('\n') &&
      !piece.text.startsWith('\n')
    )
      out += '\n\n';
    out += piece.text;
    previous = piece;
  }
  return out;
}

/**
 * A user's line that starts with `Tool: ` (after any backslashes) gets one more backslash in
 * front, so a user cannot write text that reads as a tool result, to the model or to
 * `fromTextProtocol`; `unescapeUserText` takes exactly that one backslash off again.
 */
export function escapeUserText(text: string): string {
  return text.replace(/^(\\*)Tool: /gm, '\\$1Tool: ');
}

export function unescapeUserText(text: string): string {
  return text.replace(/^\\(\\*)Tool: /gm, '$1Tool: ');
}

/** `Tool: name\nresult`, or `Tool: name\nError: message`: how a result reaches the model. */
export function renderToolResult(toolName: string, output: string, isError: boolean): string {
  return `Tool: ${toolName}\n${isError ? `Error: ${output}` : output}`;
}

/**
 * The conversation in the text protocol: calls as canonical `<tool>` XML (CDATA where the value
 * needs it), thinking as `[…]` on its own line, each tool result as a user message; a user's
 * own `Tool: ` lines are escaped (`escapeUserText`), so only a tool message reads as a result. An image
 * in a user or system message is said as `[image]` (`[image: URL]` for an http URL), so an
 * image-only message is never empty; custom parts have no text form and are left out.
 */
export function toTextProtocol(
  messages: readonly Message[],
  options: { dialect?: Dialect } = {},
): TextMessage[] {
  const dialect = options.dialect ?? 'tagcall';
  const out: TextMessage[] = [];
  for (const m of messages) {
    if (m.role === 'tool') {
      for (const r of resultsOf(m))
        out.push({ role: 'user', content: renderToolResult(r.toolName, r.output, r.isError) });
      continue;
    }
    const pieces = m.parts.flatMap((p) => {
      const text = renderPart(p, m.role as TextMessage['role'], dialect);
      return text === null || text === '' ? [] : [{ text, isText: p.kind === 'text' }];
    });
    const content = joinPieces(pieces);
    out.push({ role: m.role, content: m.role === 'user' ? escapeUserText(content) : content });
  }
  return out;
}

const TOOL_RESULT = /^Tool: ([^\n]+)\n([\s\S]*)$/;

/**
 * Back from the text protocol: assistant replies are parsed; a user message `Tool: name\n…`
 * is the result of the earliest unanswered call of that name (its call id is recovered).
 */
export function fromTextProtocol(
  messages: readonly TextMessage[],
  options: FromTextOptions = {},
): Message[] {
  const unanswered: Array<{ id: string; toolName: string }> = [];
  return messages.map((m): Message => {
    if (m.role === 'assistant') {
      const message = assistantFromText(m.content, { parse: options.parse });
      for (const p of message.parts)
        if (p.kind === 'tool-call') unanswered.push({ id: p.id, toolName: p.toolName });
      return message;
    }
    const result = m.role === 'user' ? TOOL_RESULT.exec(m.content) : null;
    if (result !== null) {
      const [, toolName, body] = result;
      const at = unanswered.findIndex((c) => c.toolName === toolName);
      const callId = at === -1 ? '' : unanswered.splice(at, 1)[0].id;
      const isError = body.startsWith('Error: ');
      return createMessage('tool', [
        { kind: 'tool-result', callId, toolName, output: isError ? body.slice(7) : body, isError },
      ]);
    }
    const text = m.role === 'user' ? unescapeUserText(m.content) : m.content;
    return createMessage(m.role, text === '' ? [] : [{ kind: 'text', text }]);
  });
}
