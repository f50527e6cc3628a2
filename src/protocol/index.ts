export { DIALECT_VALUES, DIALECTS, type Dialect } from './dialect-names.js';
export { renderCall, renderCallIn } from './dialects/render.js';
export type * from './events.js';
export { MAX_RENDERED_DEPTH, NestingLimitError } from './json-depth.js';
export type { ArgumentSchema } from './markup/arguments-tree.js';
export {
  createFold,
  type ParseError,
  type ParseMarker,
  type ParseOptions,
  type ParseResult,
  type ParseWarning,
  parse,
} from './parse.js';
export { createParser } from './parser.js';
export {
  PARSER_DEFAULTS,
  type Parser,
  type ParserOptions,
  type PrefilledThinking,
} from './parser-options.js';
export { renderArguments } from './render.js';
export { parseStream, ToolCallStream } from './stream.js';
