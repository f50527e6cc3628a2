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

/** What a `Tool: name` line cannot hold as written: line breaks and other control characters. */
const UNCARRIED = /[\p{Cc}\u2028\u2029]/gu;
const ESCAPED_UNCARRIED = /\\u([0-9a-f]{4})/g;

/**
 * Why the text protocol cannot carry `name` as a tool's name, or null when it can: it is
 * written on a `Tool: name` line and in `<tool_name>` (read back trimmed), so it is one line,
 * not empty, without control characters and without blanks at its ends. Tools are refused
 * where they are defined (the toolbox, an MCP server's list, a proxy request's `tools`).
 */
export function toolNameProblem(name: string): string | null {
  if (name.trim() === '') return 'is empty';
  if (name.search(UNCARRIED) !== -1)
    return 'holds a line break or another control character, which a "Tool: name" line cannot carry';
  if (name.trim() !== name) return 'begins or ends with a blank, which is read back trimmed';
  return null;
}

/**
 * `Tool: name\nresult`, or `Tool: name\nError: message`: how a result reaches the model. A
 * name a model wrote with a line break (a call of no tool) has it escaped as `\u000a`: the next
 * line stays the result's, and no `Tool: ` line is forged.
 */
export function renderToolResult(toolName: string, output: string, isError: boolean): string {
  const name = toolName.replace(
    UNCARRIED,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `Tool: ${name}\n${isError ? `Error: ${output}` : output}`;
}

/** A result line's name as the call had it (`renderToolResult`'s escapes undone). */
function carriedName(line: string): string {
  return line.replace(ESCAPED_UNCARRIED, (written, hex: string) => {
    const c = String.fromCharCode(Number.parseInt(hex, 16));
    return c.search(UNCARRIED) === -1 ? written : c;
  });
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
      const [, written, body] = result;
      const toolName = carriedName(written);
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
