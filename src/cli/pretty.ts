import { styleText } from 'node:util';
import type { JsonValue, ParseResult } from '../protocol/index.js';

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

/** A parse for people: thinking, each call with its arguments, warnings and errors. */
export function formatPretty(source: string, result: ParseResult, color: boolean): string {
  const paint = (style: Style, text: string) => (color ? styleText(style, text) : text);
  const out: string[] = [paint('bold', `# ${source}`)];
  out.push(
    paint(
      'dim',
      `${result.calls.length} call(s), ${result.thinking.length} thinking block(s), ` +
        `${result.warnings.length} warning(s), ${result.errors.length} error(s), ${result.text.length} characters of text`,
    ),
  );
  for (const thought of result.thinking)
    out.push(paint('magenta', indentLines(thought.trim(), '  💭 ')));
  for (const call of result.calls) {
    const format = call.format === 'xml' ? '' : paint('yellow', ` (${call.format})`);
    out.push(
      `${paint('cyan', `▶ ${call.serverName}/${call.toolName}`)}${format} ${paint('dim', `[${call.id} @${call.start}]`)}`,
    );
    const lines: string[] = [];
    for (const [key, value] of Object.entries(call.arguments))
      formatEntry(`${key}: `, value, '    ', lines);
    out.push(lines.length === 0 ? paint('dim', '    (no arguments)') : lines.join('\n'));
  }
  for (const warning of result.warnings)
    out.push(paint('yellow', `⚠ ${warning.code} @${warning.offset}: ${warning.message}`));
  for (const error of result.errors)
    out.push(paint('red', `✖ ${error.code} @${error.offset}: ${error.message}`));
  return `${out.join('\n')}\n`;
}
