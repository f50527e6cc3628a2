import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DIALECTS } from './all.js';
import {
  type KnownDifference,
  type PeerIndex,
  type PeerSuite,
  peerIndex,
  peerSuites,
  readsAsPeerExpects,
} from './peer-suites.js';

// docs/conformance.md: every ported peer case read again, counted per peer and per family. The
// counts come from parsing each case (readsAsPeerExpects, the comparison test/peer-suites.test.ts
// makes), not from counting `known-differences`, so an entry a fix made stale, or a difference
// nobody listed, shows in the table. The text depends on nothing but the fixtures and the parser:
// test/conformance.test.ts regenerates it and fails when the file differs.

export const CONFORMANCE_DOC = fileURLToPath(new URL('../../docs/conformance.md', import.meta.url));
/** The command that rewrites docs/conformance.md (`npm run bench` rewrites it too). */
export const CONFORMANCE_COMMAND = 'npm run conformance';

/** The peers by their directory under fixtures/peers/, in the table's order; others follow. */
const PEER_NAMES: Record<string, string> = {
  vllm: 'vLLM',
  sglang: 'SGLang',
  'llama.cpp': 'llama.cpp',
};
const peerName = (peer: string) => PEER_NAMES[peer] ?? peer;
const peerOrder = (a: string, b: string) => {
  const known = Object.keys(PEER_NAMES);
  const rank = (p: string) => (known.includes(p) ? known.indexOf(p) : known.length);
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
};

/** One case read again: whether it reads as its peer expects, and its listed difference. */
interface CaseOutcome {
  suite: PeerSuite;
  name: string;
  dialect: string;
  read: boolean;
  difference: KnownDifference | undefined;
}

function outcomesOf(suites: readonly PeerSuite[]): CaseOutcome[] {
  return suites.flatMap((suite) => {
    const differences = new Map(suite['known-differences'].map((d) => [d.case, d]));
    return suite.cases.map((c) => ({
      suite,
      name: c.name,
      dialect: c.dialect,
      read: readsAsPeerExpects(c),
      difference: differences.get(c.name),
    }));
  });
}

/** `read/total`, or a dash where there is no case. */
const ratio = (outcomes: readonly CaseOutcome[]) =>
  outcomes.length === 0 ? '—' : `${outcomes.filter((o) => o.read).length}/${outcomes.length}`;
const percent = (outcomes: readonly CaseOutcome[]) =>
  outcomes.length === 0
    ? '—'
    : `${((100 * outcomes.filter((o) => o.read).length) / outcomes.length).toFixed(1)}%`;
/** Text for a Markdown table cell: one line, no column break. */
const cell = (text: string) => prose(text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|'));
/**
 * Prose from a fixture for Markdown: a `<` outside code spans is escaped, so a tag it names
 * (`<think>`, `<|tool_call_end|>`) shows instead of being taken for HTML.
 */
const prose = (text: string) =>
  text
    .split(/(`[^`]*`)/)
    .map((part, k) => (k % 2 === 1 ? part : part.replace(/</g, '&lt;')))
    .join('');
const code = (text: string) => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``);

function differenceLine(o: CaseOutcome): string {
  const d = o.difference;
  if (d === undefined)
    return `- ${code(o.name)}: **read otherwise than the peer expects, and not listed** in the file's \`known-differences\`.`;
  const review =
    d.kind === 'bug'
      ? "a bug: the peer's reading is kept as a failing test"
      : d.review === undefined
        ? '**not reviewed**'
        : d.review.decision === 'keep'
          ? `**keep**: ${prose(d.review.why)}`
          : `**port** (still to do): ${prose(d.review.why)}`;
  const stale = o.read ? ' **Reads as the peer expects now: the entry is stale.**' : '';
  return `- ${code(o.name)} (${d.kind}): ${prose(d.reason)}. Review: ${review}.${stale}`;
}

/** The Markdown of docs/conformance.md for these suites (by default, every ported one). */
export function conformanceMarkdown(
  given: readonly PeerSuite[] = peerSuites(),
  index: PeerIndex = peerIndex(),
): string {
  // In the table's order, whatever order the file system lists the peers' folders in.
  const suites = [...given].sort(
    (a, b) => peerOrder(a.peer, b.peer) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0),
  );
  const outcomes = outcomesOf(suites);
  const peers = [...new Set(suites.map((s) => s.peer))].sort(peerOrder);
  const ofPeer = (peer: string) => outcomes.filter((o) => o.suite.peer === peer);
  const notRead = [...index['not-read']].sort((a, b) => peerOrder(a.peer, b.peer));
  const lines: string[] = [];
  const add = (...more: string[]) => lines.push(...more);

  add(
    "# Conformance: the peers' own parser tests, read by tagcall",
    '',
    `<!-- Written by \`${CONFORMANCE_COMMAND}\` (scripts/conformance.ts) from fixtures/peers/; do not edit: test/conformance.test.ts fails when this file is not what the command writes, and \`npm run bench\` rewrites it. -->`,
    '',
    'vLLM, SGLang and llama.cpp each test their tool-call parsers on model text, and none',
    "publishes how its readings compare with another reader's. This is tagcall read against each",
    "peer's own tests: every case ported to `fixtures/peers/<peer>/<format>.json` (each naming the",
    'peer\'s repository, file, commit and test; [dialects.md](dialects.md), "Peer',
    'suites") is parsed in its dialect, and it counts as **read as the peer expects** when the calls',
    "(typed by the case's schemas, as dispatch types them) and, where the peer's test checks it,",
    "the text outside calls (blanks at either end aside) equal what the peer's test expects. Every",
    'other case is a difference listed below with its reason: `intended` (a reading chosen on',
    'purpose, each reviewed against what a user of the family expects: **keep**, with what a user',
    "gains, or **port**, where the peer's reading is what a user expects and ours is still to",
    "change) or `bug` (the peer's reading is kept as a failing test until it is fixed).",
    '',
    '## Totals',
    '',
    '| peer | formats ported | cases | read as the peer expects | intended (keep / port / not reviewed) | bug | formats not ported |',
    '|---|---|---|---|---|---|---|',
  );
  const totalsRow = (
    name: string,
    ofThese: readonly CaseOutcome[],
    files: number,
    skipped: number,
  ) => {
    const intended = ofThese.filter((o) => o.difference?.kind === 'intended');
    const decided = (decision: 'keep' | 'port' | undefined) =>
      intended.filter((o) => o.difference?.review?.decision === decision).length;
    const bugs = ofThese.filter((o) => o.difference?.kind === 'bug').length;
    const read = ofThese.filter((o) => o.read).length;
    return `| ${name} | ${files} | ${ofThese.length} | ${read} (${percent(ofThese)}) | ${intended.length} (${decided('keep')} / ${decided('port')} / ${decided(undefined)}) | ${bugs} | ${skipped} |`;
  };
  for (const peer of peers)
    add(
      totalsRow(
        peerName(peer),
        ofPeer(peer),
        suites.filter((s) => s.peer === peer).length,
        notRead.filter((n) => n.peer === peer).length,
      ),
    );
  add(totalsRow('**all**', outcomes, suites.length, notRead.length), '');

  add(
    '## Per family',
    '',
    'Cases read as the peer expects, of those ported, per dialect (the family that reads the',
    'format) and peer; a dash where a peer has no ported case of the family.',
    '',
    `| dialect | ${peers.map(peerName).join(' | ')} | all |`,
    `|---|${peers.map(() => '---|').join('')}---|`,
  );
  const dialects = [...new Set([...DIALECTS, ...outcomes.map((o) => o.dialect)])].sort();
  for (const dialect of dialects) {
    const ofDialect = outcomes.filter((o) => o.dialect === dialect);
    const perPeer = peers.map((p) => ratio(ofDialect.filter((o) => o.suite.peer === p)));
    add(`| \`${dialect}\` | ${perPeer.join(' | ')} | ${ratio(ofDialect)} |`);
  }
  add('');

  add('## Per peer suite', '');
  for (const peer of peers) {
    add(
      `### ${peerName(peer)}`,
      '',
      '| file | dialect | read as the peer expects |',
      '|---|---|---|',
    );
    for (const suite of suites.filter((s) => s.peer === peer)) {
      const ofSuite = outcomes.filter((o) => o.suite === suite);
      add(`| \`${suite.file}\` | \`${suite.dialect}\` | ${ratio(ofSuite)} |`);
    }
    add('');
  }

  add(
    '## Differences',
    '',
    'Each case not read as the peer expects, with the reason its file gives and the review.',
    '',
  );
  for (const suite of suites) {
    const listed = outcomes.filter(
      (o) => o.suite === suite && (!o.read || o.difference !== undefined),
    );
    if (listed.length === 0) continue;
    add(
      `### \`${suite.file}\` (${peerName(suite.peer)}'s ${suite.format}, read as \`${suite.dialect}\`)`,
      '',
    );
    for (const o of listed) add(differenceLine(o));
    add('');
  }

  add(
    '## Formats not ported',
    '',
    "The peers' formats and test files not ported (`not-read` in `fixtures/peers/index.json`), and why.",
    '',
    '| peer | format | test file | why not |',
    '|---|---|---|---|',
  );
  for (const n of notRead)
    add(`| ${peerName(n.peer)} | ${cell(n.format)} | \`${n.source.path}\` | ${cell(n.reason)} |`);
  return `${lines.join('\n')}\n`;
}

/** Rewrites docs/conformance.md from the fixtures. */
export function writeConformance(): void {
  writeFileSync(CONFORMANCE_DOC, conformanceMarkdown());
}
