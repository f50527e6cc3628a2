// Writes a tiny llama-architecture GGUF with random weights, for sampling under a grammar with
// node-llama-cpp's CPU build (no download: the bytes come from a seed). The model knows nothing;
// what it writes is shaped by the grammar and by a per-token preference built into its output
// layer, so it closes strings and ends replies often enough for a few hundred tokens to cover
// a grammar. The same seed and vocabulary give the same bytes.
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from '../../bench/corpus.js';

export const TINY_MODEL_SHAPE = {
  embedding: 64,
  layers: 2,
  heads: 4,
  keyValueHeads: 2,
  feedForward: 128,
  contextLength: 4096,
};

/** llama.cpp's token types (`llama_token_type`). */
const TokenType = { normal: 1, unknown: 2, control: 3, userDefined: 4, byte: 6 } as const;

export interface TinyVocabulary {
  /** Text pieces (protocol tags, names, words); a space in one is written as SentencePiece's `▁`. */
  pieces: readonly string[];
  /** A model family's special tokens (`<|tool_call_start|>`), written as control tokens. */
  specialTokens?: readonly string[];
  /** Added to a piece's preference (logit) where it matches; others get 0, bytes -1. */
  preference?: (piece: string) => number;
  /** The end-of-reply token's preference. Default 1. */
  endPreference?: number;
  /** The byte tokens' preference. Default -3. */
  bytePreference?: number;
  /** The scale of the output layer's random part: the logits' noise. Default 0.15. */
  noise?: number;
}

interface Token {
  text: string;
  type: number;
  preference: number;
}

/** `<unk>`, `<s>`, `</s>`, the 256 byte tokens, then the special tokens and the pieces. */
function tokensOf(vocabulary: TinyVocabulary): Token[] {
  const tokens: Token[] = [
    { text: '<unk>', type: TokenType.unknown, preference: -20 },
    { text: '<s>', type: TokenType.control, preference: -20 },
    { text: '</s>', type: TokenType.control, preference: vocabulary.endPreference ?? 1 },
  ];
  for (let b = 0; b < 256; b++) {
    const hex = b.toString(16).toUpperCase().padStart(2, '0');
    tokens.push({
      text: `<0x${hex}>`,
      type: TokenType.byte,
      preference: vocabulary.bytePreference ?? -3,
    });
  }
  const seen = new Set(tokens.map((t) => t.text));
  const add = (text: string, type: number) => {
    if (text === '' || seen.has(text)) return;
    seen.add(text);
    tokens.push({ text, type, preference: vocabulary.preference?.(text) ?? 0 });
  };
  for (const s of vocabulary.specialTokens ?? []) add(s, TokenType.control);
  for (const p of vocabulary.pieces) add(p.replaceAll(' ', '\u2581'), TokenType.normal);
  return tokens;
}

function gaussian(next: () => number): () => number {
  return () => {
    const u = Math.max(next(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  };
}

/** GGUF's little-endian writer: strings and arrays carry 64-bit lengths. */
class GgufBytes {
  private parts: Buffer[] = [];
  length = 0;
  push(b: Buffer) {
    this.parts.push(b);
    this.length += b.length;
  }
  u32(n: number) {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    this.push(b);
  }
  i32(n: number) {
    const b = Buffer.alloc(4);
    b.writeInt32LE(n);
    this.push(b);
  }
  u64(n: number) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    this.push(b);
  }
  f32(n: number) {
    const b = Buffer.alloc(4);
    b.writeFloatLE(n);
    this.push(b);
  }
  str(s: string) {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.push(b);
  }
  pad(alignment: number) {
    const rest = this.length % alignment;
    if (rest !== 0) this.push(Buffer.alloc(alignment - rest));
  }
  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}

// gguf_type
const GgufType = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9 } as const;
type Meta =
  | ['u32', number]
  | ['f32', number]
  | ['bool', boolean]
  | ['string', string]
  | ['strings', string[]]
  | ['f32s', number[]]
  | ['i32s', number[]];

/**
 * The model's bytes. The residual stream's last dimension is a constant that no layer writes
 * to, so after the final norm it is a steady input to the output layer, whose last column holds
 * each token's preference: logits are that preference plus the random layers' noise.
 */
export function tinyGguf(vocabulary: TinyVocabulary, seed: number): Buffer {
  const { embedding: d, layers, heads, keyValueHeads, feedForward: ff } = TINY_MODEL_SHAPE;
  const headSize = d / heads;
  const kv = headSize * keyValueHeads;
  const tokens = tokensOf(vocabulary);
  const n = tokens.length;
  const normal = gaussian(seededRandom(seed));
  const constant = d - 1;
  const steady = 4; // the constant dimension's value; the others are ~N(0, 0.5) per embedding
  // After the norm the constant dimension is about steady / rms ≈ 8 · steady / |h|: measured
  // near 6 for these weights, so each preference column is divided by that.
  const steadyAfterNorm = 6;

  const tensors: Array<{ name: string; dims: number[]; data: Float32Array }> = [];
  const matrix = (name: string, cols: number, rows: number, scale: number, zeroRow = -1) => {
    const data = new Float32Array(cols * rows);
    for (let r = 0; r < rows; r++)
      for (let c = 0; c < cols; c++) data[r * cols + c] = r === zeroRow ? 0 : normal() * scale;
    tensors.push({ name, dims: [cols, rows], data });
    return data;
  };
  const ones = (name: string) =>
    tensors.push({ name, dims: [d], data: new Float32Array(d).fill(1) });

  const embeddings = matrix('token_embd.weight', d, n, 0.5);
  for (let t = 0; t < n; t++) embeddings[t * d + constant] = steady;
  for (let l = 0; l < layers; l++) {
    ones(`blk.${l}.attn_norm.weight`);
    matrix(`blk.${l}.attn_q.weight`, d, d, 1 / Math.sqrt(d));
    matrix(`blk.${l}.attn_k.weight`, d, kv, 1 / Math.sqrt(d));
    matrix(`blk.${l}.attn_v.weight`, d, kv, 1 / Math.sqrt(d));
    matrix(`blk.${l}.attn_output.weight`, d, d, 0.5 / Math.sqrt(d), constant);
    ones(`blk.${l}.ffn_norm.weight`);
    matrix(`blk.${l}.ffn_gate.weight`, d, ff, 1 / Math.sqrt(d));
    matrix(`blk.${l}.ffn_up.weight`, d, ff, 1 / Math.sqrt(d));
    matrix(`blk.${l}.ffn_down.weight`, ff, d, 0.5 / Math.sqrt(ff), constant);
  }
  ones('output_norm.weight');
  const output = matrix('output.weight', d, n, vocabulary.noise ?? 0.15);
  for (let t = 0; t < n; t++) output[t * d + constant] = tokens[t].preference / steadyAfterNorm;

  const meta: Array<[string, Meta]> = [
    ['general.architecture', ['string', 'llama']],
    ['general.name', ['string', 'tagcall-tiny']],
    ['general.alignment', ['u32', 32]],
    ['llama.context_length', ['u32', TINY_MODEL_SHAPE.contextLength]],
    ['llama.embedding_length', ['u32', d]],
    ['llama.block_count', ['u32', layers]],
    ['llama.feed_forward_length', ['u32', ff]],
    ['llama.attention.head_count', ['u32', heads]],
    ['llama.attention.head_count_kv', ['u32', keyValueHeads]],
    ['llama.attention.layer_norm_rms_epsilon', ['f32', 1e-5]],
    ['llama.rope.dimension_count', ['u32', headSize]],
    ['llama.vocab_size', ['u32', n]],
    ['tokenizer.ggml.model', ['string', 'llama']],
    ['tokenizer.ggml.tokens', ['strings', tokens.map((t) => t.text)]],
    // SentencePiece merges by score: longer pieces first.
    [
      'tokenizer.ggml.scores',
      ['f32s', tokens.map((t) => (t.type === TokenType.normal ? t.text.length : 0))],
    ],
    ['tokenizer.ggml.token_type', ['i32s', tokens.map((t) => t.type)]],
    ['tokenizer.ggml.unknown_token_id', ['u32', 0]],
    ['tokenizer.ggml.bos_token_id', ['u32', 1]],
    ['tokenizer.ggml.eos_token_id', ['u32', 2]],
    ['tokenizer.ggml.add_bos_token', ['bool', true]],
    ['tokenizer.ggml.add_eos_token', ['bool', false]],
    ['tokenizer.ggml.add_space_prefix', ['bool', false]],
  ];

  const out = new GgufBytes();
  out.push(Buffer.from('GGUF', 'latin1'));
  out.u32(3);
  out.u64(tensors.length);
  out.u64(meta.length);
  for (const [key, [kind, value]] of meta) {
    out.str(key);
    switch (kind) {
      case 'u32':
        out.u32(GgufType.u32);
        out.u32(value);
        break;
      case 'f32':
        out.u32(GgufType.f32);
        out.f32(value);
        break;
      case 'bool':
        out.u32(GgufType.bool);
        out.push(Buffer.from([value ? 1 : 0]));
        break;
      case 'string':
        out.u32(GgufType.string);
        out.str(value);
        break;
      case 'strings':
        out.u32(GgufType.array);
        out.u32(GgufType.string);
        out.u64(value.length);
        for (const s of value) out.str(s);
        break;
      case 'f32s':
        out.u32(GgufType.array);
        out.u32(GgufType.f32);
        out.u64(value.length);
        for (const x of value) out.f32(x);
        break;
      case 'i32s':
        out.u32(GgufType.array);
        out.u32(GgufType.i32);
        out.u64(value.length);
        for (const x of value) out.i32(x);
        break;
    }
  }
  let offset = 0;
  for (const t of tensors) {
    out.str(t.name);
    out.u32(t.dims.length);
    for (const dim of t.dims) out.u64(dim);
    out.u32(0); // GGML_TYPE_F32
    out.u64(offset);
    offset += Math.ceil(t.data.byteLength / 32) * 32;
  }
  out.pad(32);
  for (const t of tensors) {
    out.push(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    out.pad(32);
  }
  return out.bytes();
}

/**
 * Writes the model to a file under the system's temporary directory (outside the repository),
 * named by a hash of its bytes' inputs, and returns its path; an existing file is reused.
 */
export async function writeTinyGguf(vocabulary: TinyVocabulary, seed: number): Promise<string> {
  const bytes = tinyGguf(vocabulary, seed);
  const { createHash } = await import('node:crypto');
  const name = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), 'tagcall-tiny-gguf');
  const path = join(dir, `${name}.gguf`);
  const known = await stat(path).catch(() => undefined);
  if (known?.size === bytes.length) return path;
  await mkdir(dir, { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, bytes);
  await rename(temporary, path);
  return path;
}
