// The calls a text holds by the grammar that wrote it: the grammar's marks (src/grammar/model.ts)
// say which part is a call, a key, an item or a value, and in which syntax a value is written.
// Read independently of the parser, so the sampler test can hold the parser to it.
import type { JsonValue, MarkedSpan } from './all.js';

export interface GrammarCall {
  serverName: string;
  toolName: string;
  arguments: { [key: string]: JsonValue };
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Element text: CDATA sections as written, the five entities decoded elsewhere. */
function xmlText(text: string): string {
  let out = '';
  const cdata = /<!\[CDATA\[([\s\S]*?)\]\]>/g;
  let at = 0;
  for (let m = cdata.exec(text); m !== null; m = cdata.exec(text)) {
    out += text.slice(at, m.index).replace(/&(lt|gt|amp|quot|apos);/g, (_, e) => ENTITIES[e]);
    out += m[1];
    at = m.index + m[0].length;
  }
  return out + text.slice(at).replace(/&(lt|gt|amp|quot|apos);/g, (_, e) => ENTITIES[e]);
}

const PYTHON_ESCAPES: Record<string, string> = { n: '\n', t: '\t', '\\': '\\', "'": "'", '"': '"' };

function leaf(span: MarkedSpan): JsonValue {
  const mark = span.mark;
  if (mark.type !== 'value') throw new Error(`not a value: ${mark.type}`);
  const text = span.text;
  if (mark.as === 'number') return Number(text);
  if (mark.as === 'null') return null;
  if (mark.as === 'boolean') return /^true$/i.test(text);
  switch (mark.syntax) {
    case 'xml':
      return xmlText(text);
    case 'raw':
      return text;
    case 'json':
      return JSON.parse(text) as string;
    case 'python':
      return text.slice(1, -1).replace(/\\(.)/g, (_, c: string) => PYTHON_ESCAPES[c] ?? `\\${c}`);
    default: {
      // Between a quote token, one `<…>` tag: Gemma 4's `<|"|>`, FunctionGemma's `<escape>`.
      const quote = text.slice(0, text.indexOf('>') + 1);
      return text.slice(quote.length, -quote.length);
    }
  }
}

const VALUE_TYPES = new Set(['object', 'array', 'value', 'const']);

/** The value a span (object, list, value or fixed value) stands for. */
function spanValue(span: MarkedSpan): JsonValue {
  const mark = span.mark;
  switch (mark.type) {
    case 'const':
      return mark.value;
    case 'value':
      return leaf(span);
    case 'array':
      return span.children.filter((c) => c.mark.type === 'item').map(inner);
    case 'object': {
      const out: { [key: string]: JsonValue } = {};
      for (const child of span.children) {
        if (child.mark.type === 'key') out[child.mark.key] = inner(child);
        else if (child.mark.type === 'entry') {
          const [key, value] = child.children;
          out[String(spanValue(key))] = spanValue(value);
        } else if (child.mark.type === 'const') return child.mark.value;
      }
      return out;
    }
    default:
      throw new Error(`no value in a ${mark.type}`);
  }
}

/** The value inside a key or an item. */
function inner(span: MarkedSpan): JsonValue {
  const value = span.children.find((c) => VALUE_TYPES.has(c.mark.type));
  if (value === undefined) throw new Error(`a ${span.mark.type} without a value`);
  return spanValue(value);
}

/** Every call marked in the spans, in order, with its arguments. */
export function grammarCalls(spans: readonly MarkedSpan[]): GrammarCall[] {
  const calls: GrammarCall[] = [];
  const visit = (span: MarkedSpan) => {
    if (span.mark.type !== 'call') {
      span.children.forEach(visit);
      return;
    }
    const args = span.children.find((c) => c.mark.type === 'object');
    calls.push({
      serverName: span.mark.serverName,
      toolName: span.mark.toolName,
      arguments: args === undefined ? {} : (spanValue(args) as GrammarCall['arguments']),
    });
  };
  spans.forEach(visit);
  return calls;
}
