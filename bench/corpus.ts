/**
 * A deterministic corpus shaped like assistant output: prose with `a < b`, `R&D` and
 * `Array<string>`, links, code fences, `[thinking]` lines, and about one tool call per 3 KB
 * with nested arguments and CDATA bodies of 200 B to 20 KB. Same seed, same bytes.
 */

export interface Corpus {
  /** The messages, each a separate stream. */
  messages: string[];
  /** Every tool block alone, exactly as it stands in a message: what strict XML parsers can read. */
  toolBlocks: string[];
  /** Tool blocks written, so a parser's count can be checked. */
  calls: number;
}

/** mulberry32: numbers in [0, 1) that a seed repeats (corpora, chunkings, random weights). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    // mulberry32: small, fast, and the same on every machine.
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS =
  'the parser reads each chunk as it streams and the agent calls a tool when the model asks for one so we check the config update the test and fix the bug in the buffer'.split(
    ' ',
  );
const INLINE = [
  'a < b',
  'R&D',
  'Array<string>',
  'x && y',
  'Map<K, V>',
  'i<n',
  '5 > 3',
  'Tom & Jerry',
  '<div>',
];
const CODE = [
  'if (a < b && c > d) { return x & 0xff; }',
  'const m = new Map<string, Array<number>>();',
  'for (let i = 0; i < n; i++) total += arr[i];',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: sample code for the corpus, not a template
  'const html = `<div class="x">${name} &amp; more</div>`;',
  "const s = '</content>'; // a closing tag inside code",
  'if (grid[row[0]]>limit) break; // ]]> inside CDATA',
  'return a<<2 | b>>>1;',
  'const unicode = "héllo → 世界 😀";',
  '    return { ok: true, value: items.filter((x) => x.id !== id) };',
];

export function generateCorpus(targetBytes: number, seed = 42): Corpus {
  const rnd = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)];
  const between = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const logBetween = (lo: number, hi: number) =>
    Math.round(Math.exp(Math.log(lo) + rnd() * Math.log(hi / lo)));

  const sentence = () => {
    const words: string[] = [];
    for (let i = between(6, 16); i > 0; i--) {
      const r = rnd();
      if (r < 0.05) words.push(`\`${pick(INLINE)}\``);
      else if (r < 0.08) words.push(`[${pick(WORDS)} docs](https://example.com/${pick(WORDS)})`);
      else if (r < 0.1) words.push(pick(INLINE));
      else words.push(pick(WORDS));
    }
    const s = words.join(' ');
    return `${s[0].toUpperCase()}${s.slice(1)}.`;
  };
  const code = (bytes: number) => {
    const lines: string[] = [];
    for (let length = 0; length < bytes; length += lines[lines.length - 1].length + 1)
      lines.push(pick(CODE));
    return lines.join('\n');
  };
  const block = () => {
    const r = rnd();
    if (r < 0.45) return Array.from({ length: between(1, 4) }, sentence).join(' ');
    if (r < 0.6) return Array.from({ length: between(2, 4) }, () => `- ${sentence()}`).join('\n');
    if (r < 0.75) return `\`\`\`ts\n${code(between(80, 500))}\n\`\`\``;
    if (r < 0.9) return `[${sentence()}]`;
    return '| a | b |\n|---|---|\n| x < y | R&D |';
  };
  const cdata = (s: string) => `<![CDATA[${s.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
  const toolBlocks: string[] = [];
  const call = () => {
    const r = rnd();
    let name: string;
    let args: string;
    if (r < 0.35) {
      name = 'write_to_file';
      args = `  <path>src/${pick(WORDS)}.ts</path>\n  <content>${cdata(code(logBetween(200, 20_000)))}</content>`;
    } else if (r < 0.5) {
      name = 'replace_in_file';
      args = `  <path>src/${pick(WORDS)}.ts</path>\n  <diff>\n    <search>${cdata(code(logBetween(100, 2000)))}</search>\n    <replace>${cdata(code(logBetween(100, 2000)))}</replace>\n  </diff>`;
    } else if (r < 0.8) {
      name = 'read_file';
      args = `  <path>src/${pick(WORDS)}/${pick(WORDS)}.ts</path>`;
    } else {
      name = 'search_files';
      args =
        '  <path>src</path>\n  <regex>&lt;tool&gt;|&amp;[a-z]+;</regex>\n  <options>\n    <case_sensitive>true</case_sensitive>\n    <max_results>50</max_results>\n  </options>';
    }
    const text = `<tool>\n<server_name>${pick(['local', 'local', 'github'])}</server_name>\n<tool_name>${name}</tool_name>\n<arguments>\n${args}\n</arguments>\n</tool>`;
    toolBlocks.push(text);
    return text;
  };
  const prose = (bytes: number) => {
    const parts: string[] = [];
    for (let length = 0; length < bytes; length += parts[parts.length - 1].length + 2)
      parts.push(block());
    return parts.join('\n\n');
  };

  const messages: string[] = [];
  let total = 0;
  while (total < targetBytes) {
    const parts = [`[${sentence()}]`];
    for (let i = between(0, 5); i > 0; i--) parts.push(prose(between(200, 1500)), call());
    parts.push(prose(between(100, 1200)));
    const message = parts.join('\n\n');
    messages.push(message);
    total += message.length;
  }
  return { messages, toolBlocks, calls: toolBlocks.length };
}

/** One message of about `bytes` characters, made of many corpus messages' parts. */
export function generateMessage(bytes: number, seed = 7): string {
  const { messages } = generateCorpus(bytes, seed);
  const text = messages.join('\n\n').slice(0, bytes);
  // Cut before a tool block the slice broke, so the message stays well formed.
  const last = text.lastIndexOf('<tool>');
  return last !== -1 && text.indexOf('</tool>', last) === -1 ? text.slice(0, last) : text;
}

const SHELL = [
  'ls -la src',
  'grep -rn "TODO" src | head -20',
  'npm test 2>&1 | tail -5',
  'cat package.json',
  'sed -n 10,40p src/parser.ts',
  'git diff --stat && git status',
  'find . -name "*.ts" -newer dist/index.js',
  'node -e "console.log(1 < 2 && 3 > 2)"',
];

/**
 * Replies of an agent with one tool of one argument (a shell, as SWE-bench agents have): a
 * short line, then `bash` with its `command`, in every reply. Every call stores the same
 * argument name: the shape where a name read fresh from each call cost the most (names.ts).
 */
export function generateOneToolReplies(targetBytes: number, seed = 5): Corpus {
  const rnd = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)];
  const messages: string[] = [];
  const toolBlocks: string[] = [];
  for (let total = 0; total < targetBytes; total += messages[messages.length - 1].length) {
    const block = `<tool>\n<server_name>local</server_name>\n<tool_name>bash</tool_name>\n<arguments>\n  <command><![CDATA[${pick(SHELL)}]]></command>\n</arguments>\n</tool>`;
    toolBlocks.push(block);
    messages.push(`Next I ${pick(WORDS)} the ${pick(WORDS)}.\n\n${block}`);
  }
  return { messages, toolBlocks, calls: toolBlocks.length };
}
