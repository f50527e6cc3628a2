import type { JsonValue, ToolArguments } from './events.js';
import { checkNesting, MAX_RENDERED_DEPTH } from './json-depth.js';

export interface RenderableCall {
  serverName?: string;
  toolName: string;
  arguments: ToolArguments;
}

/**
 * Renders a value as text: CDATA when it holds markup characters or line breaks (so code
 * survives as written), plain otherwise. `]]>` inside is split across two sections.
 */
function renderString(value: string): string {
  if (!/[<>&\n\r]/.test(value) && value.trim() === value) return value;
  return `<![CDATA[${value.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
}

function renderValue(name: string, value: JsonValue, indent: string, out: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) renderValue(name, item, indent, out);
    return;
  }
  if (value !== null && typeof value === 'object') {
    out.push(`${indent}<${name}>`);
    for (const [key, inner] of Object.entries(value)) renderValue(key, inner, `${indent}  `, out);
    out.push(`${indent}</${name}>`);
    return;
  }
  out.push(`${indent}<${name}>${value === null ? '' : renderString(String(value))}</${name}>`);
}

/**
 * The canonical XML of an arguments object, one element per line. XML cannot say everything
 * JSON can: an empty list renders as nothing and an empty object as an empty element (read
 * back as `""`), and a one-element list reads back as a list only with a schema saying so.
 * Throws `NestingLimitError` for arguments nesting deeper than `MAX_RENDERED_DEPTH` (256).
 */
export function renderArguments(args: ToolArguments, indent = '  '): string {
  checkNesting(args, MAX_RENDERED_DEPTH, 'the arguments');
  const out: string[] = [];
  for (const [key, value] of Object.entries(args)) renderValue(key, value, indent, out);
  return out.join('\n');
}
