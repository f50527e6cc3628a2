import { styleText } from 'node:util';
import type { AgentEvent } from '../agent/index.js';

type Style = Parameters<typeof styleText>[0];

export interface SessionViewOptions {
  color: boolean;
  /** Characters of an argument or a result shown before `…`. */
  displayLimit?: number;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * Shows a session as it streams, for people: prose as written, thinking dimmed, each call
 * as it is parsed (its arguments cut for display), a spinner while tools run on a terminal,
 * and each result, shortened.
 */
export function createSessionView(out: NodeJS.WriteStream, options: SessionViewOptions) {
  const limit = options.displayLimit ?? 300;
  const paint = (style: Style, text: string) => (options.color ? styleText(style, text) : text);
  let argumentKey = '';
  let argumentShown = 0;
  /** Whether the current call's `▶` line is out: arguments can come before its name, or without. */
  let headed = false;
  let spinner: NodeJS.Timeout | null = null;
  let running = 0;
  const write = (text: string) => out.write(text);
  const short = (text: string) =>
    text.length > limit ? `${text.slice(0, limit)}… (${text.length} characters)` : text;

  function stopSpinner(): void {
    if (spinner !== null) {
      clearInterval(spinner);
      spinner = null;
      write('\r\u001b[2K');
    }
  }

  return {
    onEvent(event: AgentEvent): void {
      switch (event.type) {
        case 'turn-start':
          write(paint('dim', `\n── turn ${event.turn} ──\n`));
          break;
        case 'text':
          write(event.text);
          break;
        case 'thinking-start':
          write(paint('dim', '💭 '));
          break;
        case 'thinking-delta':
        case 'reasoning-delta':
          write(paint('dim', event.text));
          break;
        case 'thinking-end':
          break;
        case 'tool-start':
          argumentKey = '';
          headed = false;
          break;
        case 'tool-name':
          write(paint('cyan', `${headed ? '\n' : ''}▶ ${event.serverName}/${event.toolName}`));
          headed = true;
          break;
        case 'argument-delta': {
          if (!headed) write(paint('cyan', '▶ a call, its tool not named yet'));
          headed = true;
          const key = event.path.names.join('.');
          if (key !== argumentKey) {
            argumentKey = key;
            argumentShown = 0;
            write(paint('dim', `\n    ${key}: `));
          }
          const room = limit - argumentShown;
          if (room > 0) write(paint('dim', event.text.slice(0, room).replaceAll('\n', '⏎')));
          if (room > 0 && event.text.length >= room) write(paint('dim', '…'));
          argumentShown += event.text.length;
          break;
        }
        case 'tool-end':
          argumentKey = '';
          write('\n');
          break;
        case 'warning':
          write(paint('yellow', `⚠ ${event.message}\n`));
          break;
        case 'error':
          argumentKey = '';
          write(paint('red', `\n✖ ${event.message}; its text follows as written:\n`));
          break;
        case 'malformed':
          write(
            paint(
              'yellow',
              `↺ malformed reply ${event.streak}/3, the error goes back to the model\n`,
            ),
          );
          break;
        case 'restart':
          write(paint('yellow', `\n↻ the stream broke (${event.reason}); asking again\n`));
          break;
        case 'tool-running':
          running++;
          if (out.isTTY && spinner === null) {
            let frame = 0;
            spinner = setInterval(
              () => write(`\r${SPINNER[frame++ % SPINNER.length]} running ${running} tool(s)…`),
              80,
            );
          }
          break;
        case 'tool-result': {
          running--;
          if (running === 0) stopSpinner();
          const mark = event.result.isError ? paint('red', '✖') : paint('green', '✓');
          const name = `${event.call.serverName}/${event.call.toolName}`;
          write(
            `${mark} ${name} ${paint('dim', `(${Math.round(event.durationMs)} ms)`)} ${short(event.result.output).replaceAll('\n', '\n    ')}\n`,
          );
          break;
        }
      }
    },
    close: stopSpinner,
  };
}
