import { anthropicXml } from './anthropic-xml.js';
import type { BlockReader } from './block.js';
import { clineReader, clineSelfClosingReader } from './cline.js';
import { hermes } from './hermes.js';
import { qwen3Coder, qwen3CoderBare } from './qwen3-coder.js';

export type { BlockCall, BlockReader, BlockResult } from './block.js';

/** The written forms of tool calls the parser reads. `tagcall` is the `<tool>` protocol. */
export type Dialect = 'tagcall' | 'anthropic-xml' | 'qwen3-coder' | 'hermes' | 'cline';
export const DIALECTS: readonly Dialect[] = [
  'tagcall',
  'anthropic-xml',
  'qwen3-coder',
  'hermes',
  'cline',
];

/** `<tool_call>` in 'auto': Qwen3-Coder when it holds `<function=`, Hermes' JSON otherwise. */
const toolCallAuto: BlockReader = {
  open: '<tool_call>',
  close: '</tool_call>',
  anywhere: true,
  jsonBody: (first) => first === '{' || first === '[',
  read(block, limits) {
    const body = block.slice('<tool_call>'.length).trimStart();
    return body.startsWith('<function')
      ? qwen3Coder.read(block, limits)
      : hermes.read(block, limits);
  },
};

/** Tags other forms own: a tool of that name is not read as a Cline tag (`<think>` stays thinking). */
const RESERVED_TAGS = new Set([
  'tool',
  'think',
  'thinking',
  'tool_call',
  'function_calls',
  'tool_name',
  'server_name',
  'arguments',
]);

/**
 * The block readers for a dialect besides the `<tool>` protocol (which the parser reads
 * itself, streaming). `auto` reads every dialect, each block by its own opening tag; Cline's
 * tags need the tool names.
 */
export function blockReaders(
  dialect: Dialect | 'auto',
  toolNames: readonly string[],
): BlockReader[] {
  const cline = toolNames
    .filter((name) => /^[A-Za-z_][\w.-]*$/.test(name) && !RESERVED_TAGS.has(name))
    .flatMap((name) => [clineReader(name), clineSelfClosingReader(name)]);
  switch (dialect) {
    case 'tagcall':
      return [];
    case 'anthropic-xml':
      return [anthropicXml];
    case 'qwen3-coder':
      return [qwen3Coder, qwen3CoderBare];
    case 'hermes':
      return [hermes];
    case 'cline':
      return cline;
    case 'auto':
      return [anthropicXml, toolCallAuto, qwen3CoderBare, ...cline];
  }
}
