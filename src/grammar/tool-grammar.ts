import { TAGCALL_TAGS, THINK_TAGS } from '../protocol/dialects/index.js';
import type { ListedTool } from '../tools/index.js';
import type { TextLimits } from './free-text.js';
import { alt, chars, type Expr, type Grammar, lit, mark, opt, plus, seq, star } from './model.js';
import { printGbnf } from './print-gbnf.js';
import { printLark } from './print-lark.js';
import { replyRoot } from './reply.js';
import { createRules, type Rules } from './rules.js';
import { checkSchemaDepth } from './schema-types.js';
import { xmlValues } from './xml-values.js';

export interface ToolGrammarOptions {
  format?: 'gbnf' | 'lark';
  /** Free text (and thinking) before and between calls. Default true; false: calls only. */
  allowText?: boolean;
  /** With `allowText: false`, still allow `[thinking]` lines before calls. Default true. */
  allowThinking?: boolean;
  /** Most calls in one reply. Default 4. */
  maxCalls?: number;
  /**
   * Where the grammar begins. `reply` (default): the whole reply. `trigger`: at the first
   * `<tool>`, for lazy grammars (llama.cpp's `grammar_lazy` with the word trigger `<tool>`:
   * the text before it is free, the grammar applies from the trigger on). `call-body`: inside
   * one call, between `<tool>` and `</tool>` (xgrammar's triggered tags hold the delimiters).
   */
  scope?: 'reply' | 'trigger' | 'call-body';
}

export type ToolLike = Pick<ListedTool, 'serverName' | 'name' | 'inputSchema'>;

/**
 * The thinking tags the parser reads at a line start (src/protocol/scanner.ts), but those
 * that begin with `[` (Magistral's `[THINK]`), which free text's line-start `[` already keeps out.
 */
const THINKING_OPENINGS = THINK_TAGS.map(([open]) => open).filter((open) => !open.startsWith('['));

/**
 * What free text around `<tool>` calls may not hold, so that every call the grammar writes is
 * read as one: no `<tool>`, `[`, fence or thinking tag at a line start (each would make a
 * later call prose, thinking or quoted), and no `</think>` (before the first call it would
 * make all before it thinking).
 */
export const TAGCALL_TEXT: TextLimits = {
  anywhere: ['</think>'],
  lineStart: [TAGCALL_TAGS.open, '[', '```', '~~~', ...THINKING_OPENINGS],
};

const element = (name: string, text: string) => `<${name}>${text}</${name}>`;

/**
 * A thinking line: `[`, brackets balanced (nested at most three deep), `]`, a newline; not one
 * of Markdown's task boxes (`[ ]`, `[x]`), which are text.
 */
function thinkingLine(rules: Rules): Expr {
  const plain = chars('[]\n', true);
  let nested: Expr = star(plain);
  for (let depth = 0; depth < 2; depth++)
    nested = star(alt(plain, seq(lit('['), nested, lit(']'))));
  const piece = alt(plain, seq(lit('['), nested, lit(']')));
  const lone = alt(chars('[]\n xX', true), seq(lit('['), nested, lit(']')));
  return rules.define(
    'thinking',
    seq(lit('['), alt(seq(piece, plus(piece)), lone), lit(']'), lit('\n')),
  );
}

/**
 * The grammar of a reply that calls only these tools, with valid arguments: tool names and
 * servers from the list, each tool's `<arguments>` its schema's properties in schema order
 * (required ones present), enums as alternatives, integers and numbers as digits, booleans,
 * nested objects and arrays as nested or repeated elements, strings as text or CDATA.
 * Not expressible, so looser than the schema: `pattern`, `minLength`/`maxLength`, numeric
 * ranges, `oneOf`/`anyOf` (their values read as strings); dispatch validation still checks them.
 * Throws a `GrammarError` for what it cannot write at all (a required property whose name is
 * no XML name, a schema nesting deeper than `SCHEMA_LIMITS.maxDepth`).
 */
export function buildToolGrammar(
  tools: readonly ToolLike[],
  options: ToolGrammarOptions = {},
): Grammar {
  checkSchemaDepth(tools);
  const rules = createRules();
  const values = xmlValues(rules);
  const { ws } = values;
  const bodies = tools.map((tool) => {
    const context = `${tool.serverName}-${tool.name}`;
    const server = lit(element(TAGCALL_TAGS.server, tool.serverName));
    return mark(
      { type: 'call', serverName: tool.serverName, toolName: tool.name },
      rules.define(
        `body-${context}`,
        seq(
          ws,
          tool.serverName === 'local' ? opt(seq(server, ws)) : seq(server, ws),
          lit(element(TAGCALL_TAGS.tool, tool.name)),
          ws,
          lit(`<${TAGCALL_TAGS.container}>`),
          ws,
          values.objectOf(tool.inputSchema, context, true),
          lit(`</${TAGCALL_TAGS.container}>`),
          ws,
        ),
      ),
    );
  });
  const body = alt(...bodies);
  const scope = options.scope ?? 'reply';
  if (scope === 'call-body') return rules.grammar(body);
  const call = rules.define('call', seq(lit(TAGCALL_TAGS.open), body, lit(TAGCALL_TAGS.close)));
  const thinking = thinkingLine(rules);
  const blanks = star(chars(' \t'));
  const root = replyRoot(
    rules,
    {
      call,
      text: TAGCALL_TEXT,
      callAtLineStart: true,
      lead: (options.allowThinking ?? true) ? star(seq(thinking, ws)) : ws,
      // A call opens at a line start: one after another needs a newline between.
      between: seq(blanks, lit('\n'), ws),
      trailing: ws,
    },
    {
      allowText: options.allowText ?? true,
      maxCalls: options.maxCalls ?? 4,
      scope,
    },
  );
  return rules.grammar(root);
}

/** The grammar as text for the decoder: GBNF for llama.cpp, Lark for vLLM / xgrammar. */
export function toolCallGrammar(
  tools: readonly ToolLike[],
  options: ToolGrammarOptions = {},
): string {
  const grammar = buildToolGrammar(tools, options);
  return (options.format ?? 'gbnf') === 'gbnf' ? printGbnf(grammar) : printLark(grammar);
}
