import { DEFAULT_DIALECT, isFamilyDialect } from '../protocol/dialect-names.js';
import { TAGCALL_TAGS } from '../protocol/dialects/index.js';
import type { Dialect } from '../protocol/index.js';
import { buildDialectGrammar, dialectTriggers } from './dialect-grammar.js';
import { grammarLiterals } from './model.js';
import { printGbnf } from './print-gbnf.js';
import { buildToolGrammar, type ToolGrammarOptions, type ToolLike } from './tool-grammar.js';
import { type GrammarTrigger, lineStartTrigger, preservedTokens, TriggerType } from './triggers.js';

const TRIGGER = TAGCALL_TAGS.open;

/** Thinking tags, a special token in Qwen's and DeepSeek's vocabularies: kept so the parser sees them. */
const THINKING_TAGS = ['<think>', '</think>'];

export interface LlamaCppGrammarFields {
  grammar: string;
  grammar_lazy: boolean;
  grammar_triggers: GrammarTrigger[];
  /** The grammar's tags and markers, for the server to keep those that are one token (`preservedTokens`). */
  preserved_tokens: string[];
}

export interface DecoderGrammarOptions extends Pick<ToolGrammarOptions, 'maxCalls'> {
  /**
   * `auto` (default): the model may answer in text or call tools; the grammar only engages
   * once it writes `<tool>`. `required`: the reply is calls only (thinking lines allowed).
   */
  toolChoice?: 'auto' | 'required';
  /** The call format to constrain replies to: the `<tool>` protocol (default), or a family's own. */
  dialect?: Dialect;
}

/**
 * The grammar fields of a llama-server `/completion` request (its `/v1/chat/completions`
 * drops `grammar_lazy` and `grammar_triggers` for its chat template's own: docs/grammars.md):
 * with `toolChoice: 'auto'` a lazy grammar that starts where the model opens a call (the
 * triggers sit where the parser reads an opening: `<tool>` at a line start, a family's special
 * token anywhere), so the model writes free text until then; with `required`, a calls-only
 * grammar. `preserved_tokens` lists every tag and marker the grammar and triggers hold.
 */
export function llamaCppGrammarFields(
  tools: readonly ToolLike[],
  options: DecoderGrammarOptions = {},
): LlamaCppGrammarFields {
  const lazy = (options.toolChoice ?? 'auto') === 'auto';
  const dialect = options.dialect ?? DEFAULT_DIALECT;
  const settings = {
    maxCalls: options.maxCalls,
    allowText: lazy,
    scope: lazy ? ('trigger' as const) : ('reply' as const),
  };
  const [grammar, triggers] = isFamilyDialect(dialect)
    ? [buildDialectGrammar(dialect, tools, settings), dialectTriggers(dialect, tools)]
    : [buildToolGrammar(tools, settings), [lineStartTrigger(TRIGGER)]];
  const sent = lazy ? triggers : [];
  return {
    grammar: printGbnf(grammar),
    grammar_lazy: lazy,
    grammar_triggers: sent,
    preserved_tokens: preservedTokens([
      ...grammarLiterals(grammar),
      ...sent.filter((t) => t.type === TriggerType.word).map((t) => t.value),
      ...THINKING_TAGS,
    ]),
  };
}

export interface XgrammarStructuralTag {
  type: 'structural_tag';
  format: {
    type: 'triggered_tags';
    triggers: string[];
    tags: Array<{
      type: 'tag';
      begin: string;
      content: { type: 'grammar'; grammar: string };
      end: string;
    }>;
    at_least_one: boolean;
    stop_after_first: boolean;
  };
}

/**
 * xgrammar's structural tag (vLLM and SGLang take it as `response_format`): text is free
 * until `<tool>`, then the call's body follows the tools' grammar (xgrammar's EBNF, which
 * reads GBNF) up to `</tool>`, after which text is free again. `maxCalls` is not expressible
 * here (`stop_after_first` is all or one); `toolChoice: 'required'` sets `at_least_one`.
 */
export function xgrammarStructuralTag(
  tools: readonly ToolLike[],
  options: DecoderGrammarOptions = {},
): XgrammarStructuralTag {
  const grammar = printGbnf(buildToolGrammar(tools, { scope: 'call-body' }));
  return {
    type: 'structural_tag',
    format: {
      type: 'triggered_tags',
      triggers: [TRIGGER],
      tags: [
        {
          type: 'tag',
          begin: TRIGGER,
          content: { type: 'grammar', grammar },
          end: TAGCALL_TAGS.close,
        },
      ],
      at_least_one: options.toolChoice === 'required',
      stop_after_first: false,
    },
  };
}
