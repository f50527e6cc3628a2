export {
  type DecoderGrammarOptions,
  type LlamaCppGrammarFields,
  llamaCppGrammarFields,
  type XgrammarStructuralTag,
  xgrammarStructuralTag,
} from './decoder-requests.js';
export {
  buildDialectGrammar,
  type DialectGrammarOptions,
  dialectOpenings,
  dialectTriggers,
  type GrammarDialect,
} from './dialect-grammar.js';
export type { Grammar } from './model.js';
export { printGbnf } from './print-gbnf.js';
export { printLark } from './print-lark.js';
export { GrammarError } from './schema-types.js';
export {
  buildToolGrammar,
  type ToolGrammarOptions,
  type ToolLike,
  toolCallGrammar,
} from './tool-grammar.js';
