import type { JsonSchema, ListedTool } from '../tools/index.js';
import {
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
import { printGbnf } from './print-gbnf.js';
import { printLark } from './print-lark.js';

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

const ruleName = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '') || 'x';

/**
 * The grammar of a reply that calls only these tools, with valid arguments: tool names and
 * servers from the list, each tool's `<arguments>` its schema's properties in schema order
 * (required ones present), enums as alternatives, integers and numbers as digits, booleans,
 * nested objects and arrays as nested or repeated elements, strings as text or CDATA.
 * Not expressible, so looser than the schema: `pattern`, `minLength`/`maxLength`, numeric
 * ranges, `oneOf`/`anyOf` (their values read as strings); dispatch validation still checks them.
 */
export function buildToolGrammar(
  tools: readonly ToolLike[],
  options: ToolGrammarOptions = {},
): Grammar {
  const rules: Array<[string, Expr]> = [];
  const names = new Set<string>();
  const define = (wanted: string, expr: Expr): string => {
    let name = ruleName(wanted);
    for (let n = 2; names.has(name); n++) name = `${ruleName(wanted)}-${n}`;
    names.add(name);
    rules.push([name, expr]);
    return name;
  };

  define('root', lit('')); // replaced below, kept first
  const ws = ref(define('ws', star(chars(' \t\n'))));
  const entity = seq(
    lit('&'),
    alt(lit('lt'), lit('gt'), lit('amp'), lit('quot'), lit('apos')),
    lit(';'),
  );
  const textValue = ref(define('text-value', star(alt(chars('<&', true), entity))));
  // CDATA without `]]>`: after one or more `]`, anything but `]` or `>`; trailing `]`s allowed.
  const cdataChar = alt(
    chars(']', true),
    seq(lit(']'), chars(']', true)),
    seq(lit(']]'), star(lit(']')), chars(']>', true)),
  );
  const cdata = ref(
    define('cdata', seq(lit('<![CDATA['), star(cdataChar), star(lit(']')), lit(']]>'))),
  );
  // One alternative per character (CDATA starts with `<`, which text excludes): no ambiguity
  // for llama.cpp's stacks to multiply.
  const stringValue = ref(define('string-value', star(alt(chars('<&', true), entity, cdata))));
  const digits = plus(chars('0-9'));
  const integer = ref(define('integer', seq(opt(lit('-')), digits)));
  const number = ref(
    define(
      'number',
      seq(
        opt(lit('-')),
        digits,
        opt(seq(lit('.'), digits)),
        opt(seq(chars('eE'), opt(chars('+-')), digits)),
      ),
    ),
  );
  const boolean = ref(define('boolean', alt(lit('true'), lit('false'))));

  function valueFor(schema: JsonSchema | undefined, context: string): Expr {
    if (schema?.enum !== undefined && schema.enum.length > 0) {
      return ref(define(`${context}-enum`, alt(...schema.enum.map((v) => lit(String(v))))));
    }
    const type = Array.isArray(schema?.type) ? schema.type.find((t) => t !== 'null') : schema?.type;
    switch (type) {
      case 'integer':
        return integer;
      case 'number':
        return number;
      case 'boolean':
        return boolean;
      case 'object':
        return schema?.properties === undefined
          ? stringValue
          : seq(ws, ref(objectRule(schema, context)), ws);
      default:
        return type === undefined || type === 'string' ? stringValue : textValue;
    }
  }

  /** Properties in schema order; required ones once, optional ones at most once; arrays repeat. */
  function objectRule(schema: JsonSchema, context: string): string {
    const required = new Set(schema.required ?? []);
    const parts: Expr[] = [];
    for (const [property, sub] of Object.entries(schema.properties ?? {})) {
      const isArray =
        sub.type === 'array' || (Array.isArray(sub.type) && sub.type.includes('array'));
      const valueSchema = isArray ? sub.items : sub;
      const element = seq(
        lit(`<${property}>`),
        valueFor(valueSchema, `${context}-${property}`),
        lit(`</${property}>`),
        ws,
      );
      const once = required.has(property) ? element : opt(element);
      parts.push(isArray ? (required.has(property) ? plus(element) : star(element)) : once);
    }
    return define(`${context}-args`, parts.length === 0 ? lit('') : seq(...parts));
  }

  const bodies = tools.map((tool) => {
    const context = `${tool.serverName}-${tool.name}`;
    const server = lit(`<server_name>${tool.serverName}</server_name>`);
    return ref(
      define(
        `body-${context}`,
        seq(
          ws,
          tool.serverName === 'local' ? opt(seq(server, ws)) : seq(server, ws),
          lit(`<tool_name>${tool.name}</tool_name>`),
          ws,
          lit('<arguments>'),
          ws,
          ref(objectRule(tool.inputSchema, context)),
          lit('</arguments>'),
          ws,
        ),
      ),
    );
  });
  const body = alt(...bodies);
  const scope = options.scope ?? 'reply';
  if (scope === 'call-body') {
    rules[0] = ['root', body];
    return { root: 'root', rules };
  }
  const call = ref(define('call', seq(lit('<tool>'), body, lit('</tool>'))));
  const maxCalls = options.maxCalls ?? 4;
  let root: Expr;
  if (options.allowText ?? true) {
    // Any text without `<tool>`; a call starts a line, so text before one ends with a newline.
    const noToolOpen = alt(
      chars('<', true),
      seq(lit('<'), chars('t', true)),
      seq(lit('<t'), chars('o', true)),
      seq(lit('<to'), chars('o', true)),
      seq(lit('<too'), chars('l', true)),
      seq(lit('<tool'), chars('>', true)),
    );
    const text = ref(define('free-text', star(noToolOpen)));
    const more = (n: number) => rep(seq(lit('\n'), call, text), 0, n);
    const startsWithCall = seq(call, text, more(maxCalls - 1));
    // A call starts the reply or a line.
    root = scope === 'trigger' ? startsWithCall : alt(startsWithCall, seq(text, more(maxCalls)));
  } else {
    const thinking = ref(
      define('thinking', seq(lit('['), plus(chars(']\n', true)), lit(']'), lit('\n'))),
    );
    const lead =
      scope === 'trigger'
        ? lit('')
        : (options.allowThinking ?? true)
          ? star(seq(thinking, ws))
          : ws;
    root = seq(lead, call, rep(seq(ws, call), 0, Math.max(0, maxCalls - 1)), ws);
  }
  rules[0] = ['root', root];
  return { root: 'root', rules };
}

/** The grammar as text for the decoder: GBNF for llama.cpp, Lark for vLLM / xgrammar. */
export function toolCallGrammar(
  tools: readonly ToolLike[],
  options: ToolGrammarOptions = {},
): string {
  const grammar = buildToolGrammar(tools, options);
  return (options.format ?? 'gbnf') === 'gbnf' ? printGbnf(grammar) : printLark(grammar);
}
