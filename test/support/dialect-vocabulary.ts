// The tiny model's vocabulary for a family's grammars: the family's special tokens as control
// tokens (as its real tokenizer has them), the rest of every literal the grammars hold (tags,
// names, keys, enum values) as pieces, and the pieces any reply needs.
import {
  buildDialectGrammar,
  type Dialect,
  dialectOpenings,
  type Expr,
  type Grammar,
  type ToolLike,
} from './all.js';
import {
  NUMBER_PIECES,
  PROSE_PIECES,
  tagcallVocabulary,
  UNICODE_PIECES,
} from './sampler-schemas.js';
import type { TinyVocabulary } from './tiny-gguf.js';

/** What the families' tokenizers hold as special tokens: `<|…|>`, DeepSeek's `<｜…｜>`, Mistral's `[…]`, Gemma's. */
const SPECIAL =
  /<\|[^<>|\n]{0,40}\|>|<｜[^｜\n]{0,40}｜>|\[(?:TOOL_CALLS|ARGS|CALL_ID)\]|<\|tool_call>|<tool_call\|>/g;

const COMMON = [
  ...PROSE_PIECES,
  'None',
  'True',
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  '"',
  "'",
  ':',
  ': ',
  ',',
  ', ',
  '=',
  ...NUMBER_PIECES,
  '\\',
  '\\n',
  '\\u003c',
  '<',
  '>',
  '&',
  '<b>',
  '</',
  '<think>',
  '</think>',
  '```',
  ...UNICODE_PIECES,
];

function literals(expr: Expr, out: Set<string>): void {
  switch (expr.kind) {
    case 'lit':
      out.add(expr.text);
      return;
    case 'seq':
    case 'alt':
      for (const item of expr.items) literals(item, out);
      return;
    case 'rep':
    case 'mark':
      literals(expr.item, out);
      return;
    default:
  }
}

/** Closings are preferred, so that values close and replies end often enough. */
function preference(piece: string, trigger: ReadonlySet<string>): number {
  if (trigger.has(piece)) return 3;
  if (
    piece.startsWith('</') ||
    /end|close|call\|>|ARGS|tool_call\|>|sep|message/i.test(piece) ||
    [']', '}', ')', '"', "'", '<|"|>'].includes(piece)
  )
    return 2.5;
  return piece.startsWith('<') ? 1 : 0;
}

/**
 * The vocabulary for sampling `grammars`: each literal split into special tokens and the text
 * between them; `triggers` (a lazy grammar's words) preferred most, so that free text reaches a
 * call.
 */
export function dialectVocabulary(
  grammars: readonly Grammar[],
  triggers: readonly string[],
): TinyVocabulary {
  const all = new Set<string>();
  for (const grammar of grammars) for (const [, expr] of grammar.rules) literals(expr, all);
  // Special tokens, and the triggers: no piece runs across one (a token that wrote a trigger
  // and a tool's name would hand a lazy grammar a name of another schema set).
  const literal = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const cuts = new RegExp(
    [SPECIAL.source, ...[...triggers].sort((a, b) => b.length - a.length).map(literal)].join('|'),
    'g',
  );
  const specialTokens = new Set<string>();
  const pieces = new Set<string>(COMMON);
  for (const text of all) {
    let at = 0;
    for (const match of text.matchAll(cuts)) {
      if (new RegExp(`^(?:${SPECIAL.source})$`).test(match[0])) specialTokens.add(match[0]);
      else pieces.add(match[0]);
      if (match.index > at) pieces.add(text.slice(at, match.index));
      at = match.index + match[0].length;
    }
    if (at < text.length) pieces.add(text.slice(at));
  }
  const preferred = new Set<string>();
  for (const t of triggers) {
    const first = t.match(SPECIAL)?.[0];
    if (first !== undefined && t.startsWith(first)) {
      // A special token and text after it (`<|channel|>commentary to=functions.`): both, and
      // the whole as one piece too (the grammar and the parser read text, not token ids), so
      // that a random model writes it often enough.
      preferred.add(first);
      const rest = t.slice(first.length);
      if (rest !== '') {
        pieces.add(rest);
        preferred.add(rest);
        pieces.add(t);
        preferred.add(t);
      }
      continue;
    }
    pieces.add(t);
    pieces.add(`\n${t}`);
    preferred.add(t);
    preferred.add(`\n${t}`);
  }
  return {
    pieces: [...pieces].filter((p) => !specialTokens.has(p)),
    specialTokens: [...specialTokens],
    preference: (piece) => preference(piece, preferred),
    endPreference: 2,
  };
}

/** The tiny model's vocabulary for replies in `dialect` calling `tools`: its tokens, tags and the tools' names. */
export function replyVocabulary(dialect: Dialect, tools: readonly ToolLike[]): TinyVocabulary {
  if (dialect === 'tagcall') return tagcallVocabulary();
  const grammars = [
    buildDialectGrammar(dialect, tools, { allowText: false }),
    buildDialectGrammar(dialect, tools, { scope: 'trigger' }),
  ];
  return dialectVocabulary(grammars, dialectOpenings(dialect, tools));
}
