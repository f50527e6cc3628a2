import { charEstimate, type TokenCounter } from '../messages/index.js';
import { isMissingPackage, missingPeerError } from './optional-peer.js';

export type { TokenCounter } from '../messages/index.js';

/**
 * Characters / 4, rounded up (the messages' per-message overhead is added per message). Fast,
 * and wrong by the kind of text: the benchmark reports its error against exact counts for
 * prose, code, JSON and CJK.
 */
export const estimate: TokenCounter = charEstimate;

export type Encoding = 'cl100k_base' | 'o200k_base';

/**
 * Exact counts with gpt-tokenizer's BPE ranks. Loaded on first use (the ranks take a few
 * hundred milliseconds and megabytes to load), so the estimate path pays nothing.
 * gpt-tokenizer is an optional peer dependency (30 MB that only this function needs): without
 * it, this rejects with the command that installs it.
 */
export async function exact(encoding: Encoding = 'o200k_base'): Promise<TokenCounter> {
  try {
    const module =
      encoding === 'cl100k_base'
        ? await import('gpt-tokenizer/encoding/cl100k_base')
        : await import('gpt-tokenizer/encoding/o200k_base');
    return { count: (text) => module.countTokens(text) };
  } catch (error) {
    if (isMissingPackage(error, 'gpt-tokenizer'))
      throw missingPeerError('exact() counts with', 'gpt-tokenizer');
    throw error;
  }
}
