import { styleText } from 'node:util';
import type { JsonValue } from '../protocol/index.js';
import { PendingOutput, type ReplyWriter } from './reply-writer.js';

type Style = Parameters<typeof styleText>[0];

/** Colors only for a terminal that wants them (NO_COLOR and FORCE_COLOR respected). */
export function useColor(stream: NodeJS.WriteStream): boolean {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') return false;
  if (process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}

function indentLines(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}

/** YAML-like lines for a value under a key: scalars inline, blocks below, lists with dashes. */
function formatEntry(label: string, value: JsonValue, indent: string, out: string[]): void {
  if (typeof value === 'string' && value.includes('\n')) {
    out.push(`${indent}${label}|`);
    out.push(indentLines(value.replace(/\n$/, ''), `${indent}  `));
  } else if (Array.isArray(value)) {
    out.push(`${indent}${label}`.trimEnd());
    for (const item of value) formatEntry('- ', item, `${indent}  `, out);
  } else if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (label === '- ' && entries.length > 0) {
      // A list item that is an object starts on the dash line, like YAML.
      const [first, ...rest] = entries;
      const lines: string[] = [];
      formatEntry(`${first[0]}: `, first[1], '', lines);
      out.push(`${indent}- ${lines[0]}`, ...lines.slice(1).map((line) => `${indent}  ${line}`));
      for (const [key, inner] of rest) formatEntry(`${key}: `, inner, `${indent}  `, out);
      return;
    }
    out.push(`${indent}${label}`.trimEnd());
    for (const [key, inner] of entries) formatEntry(`${key}: `, inner, `${indent}  `, out);
  } else {
    out.push(
      `${indent}${label}${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
    );
  }
}

/** Thinking longer than this in trailing blanks is printed rather than held (bounded memory). */
const MAX_HELD_BLANKS = 64 * 1024;

/**
 * A parse for people, printed as the reply streams: each thinking block, call, warning and error
 * in the order the parser meets them, and a summary line (the counts) at the end. Thinking is
 * printed line by line, trimmed like the block it is (blanks at its end are held until more text
 * shows they are inside it); the reply's text is only counted.
 */
export function createPrettyWriter(
  source: string,
  out: NodeJS.WritableStream,
  color: boolean,
): ReplyWriter {
  const paint = (style: Style, text: string) => (color ? styleText(style, text) : text);
  const thoughtPrefix = '  💭 ';
  const pending = new PendingOutput(out);
  pending.write(`${paint('bold', `# ${source}`)}\n`);
  const counts = { calls: 0, thinking: 0, warnings: 0, errors: 0, text: 0 };
  let inThought = false;
  let thoughtStarted = false;
  let heldBlanks = '';

  const thoughtText = (text: string) => {
    let piece = text;
    if (!thoughtStarted) {
      piece = piece.trimStart();
      if (piece === '') return;
      thoughtStarted = true;
      pending.write(paint('magenta', thoughtPrefix));
    }
    const content = heldBlanks + piece;
    const shown = content.length > MAX_HELD_BLANKS ? content : content.trimEnd();
    heldBlanks = content.slice(shown.length);
    if (shown !== '') pending.write(paint('magenta', shown.replaceAll('\n', `\n${thoughtPrefix}`)));
  };
  const endThought = () => {
    if (!thoughtStarted) pending.write(paint('magenta', thoughtPrefix));
    pending.write('\n');
    counts.thinking++;
    inThought = false;
    thoughtStarted = false;
    heldBlanks = '';
  };

  return {
    add(event) {
      switch (event.type) {
        case 'text':
          counts.text += event.text.length;
          break;
        case 'thinking-start':
          inThought = true;
          break;
        case 'thinking-delta':
          if (inThought) thoughtText(event.text);
          break;
        case 'thinking-end':
          endThought();
          break;
        case 'tool-end': {
          const { call } = event;
          counts.calls++;
          const format = call.format === 'xml' ? '' : paint('yellow', ` (${call.format})`);
          const lines: string[] = [];
          for (const [key, value] of Object.entries(call.arguments))
            formatEntry(`${key}: `, value, '    ', lines);
          pending.write(
            `${paint('cyan', `▶ ${call.serverName}/${call.toolName}`)}${format} ${paint('dim', `[${call.id} @${call.start}]`)}\n` +
              `${lines.length === 0 ? paint('dim', '    (no arguments)') : lines.join('\n')}\n`,
          );
          break;
        }
        case 'warning':
          counts.warnings++;
          pending.write(
            `${paint('yellow', `⚠ ${event.code} @${event.offset}: ${event.message}`)}\n`,
          );
          break;
        case 'error':
          counts.errors++;
          pending.write(`${paint('red', `✖ ${event.code} @${event.offset}: ${event.message}`)}\n`);
          break;
      }
    },
    flush: () => pending.flush(),
    async end() {
      pending.write(
        `${paint(
          'dim',
          `${counts.calls} call(s), ${counts.thinking} thinking block(s), ` +
            `${counts.warnings} warning(s), ${counts.errors} error(s), ${counts.text} characters of text`,
        )}\n`,
      );
      await pending.flush();
    },
  };
}
