import { type Dialect, renderCallIn, type ToolArguments } from './all.js';

/** A call written the way each model family writes it. */
export function renderInDialect(
  dialect: Exclude<Dialect, 'tagcall'>,
  tool: string,
  args: ToolArguments,
): string {
  return renderCallIn(dialect, { toolName: tool, arguments: args });
}
