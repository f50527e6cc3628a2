export {
  type DecoderGrammarOptions,
  type LlamaCppGrammarFields,
  llamaCppGrammarFields,
  type XgrammarStructuralTag,
  xgrammarStructuralTag,
} from './decoder-requests.js';
export {
  alt,
  chars,
  type Expr,
  type Grammar,
  lit,
  opt,
  plus,
  ref,
  rep,
  seq,
  star,
} from './model.js';
export { printGbnf } from './print-gbnf.js';
export { printLark } from './print-lark.js';
export { recognize } from './recognize.js';
export {
  buildToolGrammar,
  type ToolGrammarOptions,
  type ToolLike,
  toolCallGrammar,
} from './tool-grammar.js';
