import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CONFORMANCE_COMMAND,
  CONFORMANCE_DOC,
  conformanceMarkdown,
} from './support/conformance.js';
import type { PeerCase, PeerSuite } from './support/peer-suites.js';

// docs/conformance.md is written from the ported peer suites by `npm run conformance`; this test
// writes it again and compares, so the table cannot go stale.

describe('docs/conformance.md', () => {
  it(`is what \`${CONFORMANCE_COMMAND}\` writes from fixtures/peers/`, () => {
    expect(
      readFileSync(CONFORMANCE_DOC, 'utf8'),
      `docs/conformance.md is not what the fixtures give: run \`${CONFORMANCE_COMMAND}\``,
    ).toBe(conformanceMarkdown());
  });
});

describe('the conformance table', () => {
  const call = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>';
  const peerCase = (name: string, calls: PeerCase['calls']): PeerCase => ({
    name,
    source: { repo: 'a/b', path: 't.py', commit: '0'.repeat(40), test: name },
    dialect: 'hermes',
    input: call,
    calls,
  });
  const suite: PeerSuite = {
    file: 'demo/hermes.json',
    peer: 'demo',
    format: 'hermes',
    dialect: 'hermes',
    cases: [
      peerCase('as expected', [{ name: 'f', arguments: { a: 1 } }]),
      peerCase('listed, but read as expected', [{ name: 'f', arguments: { a: 1 } }]),
      peerCase('kept', [{ name: 'f', arguments: { a: 2 } }]),
      peerCase('not listed', [{ name: 'g', arguments: {} }]),
    ],
    'known-differences': [
      {
        case: 'listed, but read as expected',
        kind: 'intended',
        reason: 'an entry a fix made stale',
        calls: [],
      },
      {
        case: 'kept',
        kind: 'intended',
        reason: 'the peer adds one',
        review: { decision: 'keep', why: 'the value as written' },
        calls: [{ name: 'f', arguments: { a: 1 } }],
      },
    ],
  };
  const table = conformanceMarkdown([suite], { read: [], 'not-read': [] });

  it('counts a case by parsing it, not by its known-differences entry', () => {
    expect(table).toContain('| demo | 1 | 4 | 2 (50.0%) | 2 (1 / 0 / 1) | 0 | 0 |');
    expect(table).toContain('| `hermes` | 2/4 | 2/4 |');
    expect(table).toContain('| `demo/hermes.json` | `hermes` | 2/4 |');
  });

  it('flags an entry the reading no longer needs, and a difference no entry lists', () => {
    expect(table).toContain(
      '- `listed, but read as expected` (intended): an entry a fix made stale. Review: **not reviewed**. **Reads as the peer expects now: the entry is stale.**',
    );
    expect(table).toContain(
      '- `not listed`: **read otherwise than the peer expects, and not listed**',
    );
  });

  it('gives each difference its reason and its review', () => {
    expect(table).toContain(
      '- `kept` (intended): the peer adds one. Review: **keep**: the value as written.',
    );
    expect(table).not.toContain('`as expected`');
  });
});
