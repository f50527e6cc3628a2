import fc from 'fast-check';
import { XMLParser } from 'fast-xml-parser';
import sax from 'sax';
import { describe, expect, it } from 'vitest';
import {
  type JsonValue,
  parse,
  renderArguments,
  renderCall,
  type ToolArguments,
} from './support/all.js';
import { treeArbitrary } from './support/trees.js';

/** Any string of whole code points: CDATA carries all of them. */
const anyText = fc.string({ unit: 'grapheme', maxLength: 40 });
/** What XML 1.0 parsers accept as character data: printable, tab, newline. */
const xmlText = fc.string({
  unit: fc.constantFrom(...'ab <>&"\'\n\t]é😀;#x'.split(/(?:)/u)),
  maxLength: 30,
});

describe('render, then parse: the arguments come back unchanged', () => {
  it('for arbitrary trees and strings', () => {
    fc.assert(
      fc.property(treeArbitrary(anyText), (args) => {
        const text = `${renderCall({ toolName: 'probe', arguments: args })}\n`;
        const result = parse(text);
        expect(result.errors).toEqual([]);
        expect(result.calls[0].arguments).toEqual(args);
      }),
      { numRuns: 1000 },
    );
  });
});

/** The same tree rules, built from sax's strict events: the oracle for well-formed blocks. */
function parseWithSax(xml: string): JsonValue {
  const parser = sax.parser(true);
  type Node = { name: string; text: string; children: Array<[string, JsonValue]> };
  const stack: Node[] = [];
  let root: JsonValue = '';
  const onText = (t: string) => {
    if (stack.length > 0) stack[stack.length - 1].text += t;
  };
  parser.onopentag = (tag) => stack.push({ name: tag.name, text: '', children: [] });
  parser.ontext = onText;
  parser.oncdata = onText;
  parser.onclosetag = () => {
    const node = stack.pop() as Node;
    let value: JsonValue = node.text;
    if (node.children.length > 0) {
      const object: { [key: string]: JsonValue } = {};
      for (const [key, child] of node.children) {
        if (!Object.hasOwn(object, key)) object[key] = child;
        else if (
          Array.isArray(object[key]) &&
          (object[key] as JsonValue[]).length > 0 &&
          lists.has(object)
        ) {
          (object[key] as JsonValue[]).push(child);
        } else {
          object[key] = [object[key], child];
          lists.add(object);
        }
      }
      value = object;
    }
    if (stack.length === 0) root = value;
    else stack[stack.length - 1].children.push([node.name, value]);
  };
  const lists = new WeakSet<object>();
  parser.write(xml).close();
  return root;
}

function withoutWhitespaceText(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutWhitespaceText);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key === '#text' && typeof inner === 'string' && inner.trim() === '') continue;
      out[key] = withoutWhitespaceText(inner);
    }
    return out;
  }
  return value;
}

const fxp = new XMLParser({
  parseTagValue: false,
  trimValues: false,
  ignoreAttributes: true,
  processEntities: true,
  htmlEntities: false,
});

/** Renders values with entity references instead of CDATA, so decoding is compared too. */
function renderWithEntities(args: ToolArguments): string {
  const escapeMarkup = (s: string) =>
    s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  const render = (key: string, value: JsonValue): string => {
    if (Array.isArray(value)) return value.map((v) => render(key, v)).join('\n');
    if (value !== null && typeof value === 'object') {
      return `<${key}>\n${Object.entries(value)
        .map(([k, v]) => render(k, v))
        .join('\n')}\n</${key}>`;
    }
    return `<${key}>${escapeMarkup(String(value))}</${key}>`;
  };
  return Object.entries(args)
    .map(([k, v]) => render(k, v))
    .join('\n');
}

describe('differential: on well-formed blocks the tree equals what sax and fast-xml-parser read', () => {
  for (const [label, renderer] of [
    ['CDATA bodies', (args: ToolArguments) => renderArguments(args)],
    ['entity references', renderWithEntities],
  ] as const) {
    it(`with ${label}`, () => {
      fc.assert(
        fc.property(treeArbitrary(xmlText), (args) => {
          const inner = renderer(args);
          const ours = parse(
            `<tool>\n<tool_name>probe</tool_name>\n<arguments>\n${inner}\n</arguments>\n</tool>\n`,
          );
          expect(ours.errors).toEqual([]);
          const xml = `<arguments>\n${inner}\n</arguments>`;
          expect(ours.calls[0].arguments).toEqual(parseWithSax(xml));
          expect(ours.calls[0].arguments).toEqual(withoutWhitespaceText(fxp.parse(xml).arguments));
        }),
        { numRuns: 500 },
      );
    });
  }
});
