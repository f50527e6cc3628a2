import type { BlockReader, ReadForm, StreamForm } from './block.js';

/**
 * What a server that decodes with spaces between special tokens writes between two that stand
 * together: one blank (vLLM's `_convert_tokens_to_string_with_added_encoders` and transformers'
 * `_decode` join the tokens with `" "`; see docs/dialects.md).
 */
const DECODER_BLANK = ' ';

const spaced = new WeakMap<BlockReader, readonly BlockReader[]>();

/**
 * The readers a declared one stands for: itself, and, when its opening is several special
 * tokens (`openTokens`), one for each way a decoder may have written it, a blank or none
 * between each two tokens. Each is a literal opening of its own, so the openings' tables stay
 * literal tries (one more literal a blank, no pattern) and a block's body starts after the
 * opening as written. Built once per declaration.
 */
export function spacedOpenings(declared: BlockReader): readonly BlockReader[] {
  const tokens = declared.openTokens;
  if (tokens === undefined || tokens.length < 2) return [declared];
  let readers = spaced.get(declared);
  if (readers === undefined) {
    if (tokens.join('') !== declared.open)
      throw new Error(`openTokens ${JSON.stringify(tokens)} do not make ${declared.open}`);
    readers = writings(tokens).map((open) =>
      open === declared.open ? declared : { ...declared, open, reads: reopened(declared, open) },
    );
    spaced.set(declared, readers);
  }
  return readers;
}

/** Every way `tokens` are written one after another, a blank or none between each two. */
function writings(tokens: readonly string[]): string[] {
  let texts = [tokens[0]];
  for (const token of tokens.slice(1))
    texts = texts.flatMap((text) => [text + token, text + DECODER_BLANK + token]);
  return texts;
}

/** `declared`'s form, its opening written as `open`. */
function reopened(declared: BlockReader, open: string): ReadForm {
  const reads = declared.reads;
  if ('byFirstCharacter' in reads)
    return {
      byFirstCharacter: reads.byFirstCharacter.map((choice) => ({
        ...choice,
        ...formOpening(choice, declared.open, open),
      })),
    };
  return formOpening(reads, declared.open, open);
}

/**
 * A body form that begins with the reader's opening, its opening written as `open` (the body
 * engine reads the body from past it). Any other form reads an opening of its own, which the
 * blank would not reach: a declaration with `openTokens` on one is a mistake of the code.
 */
function formOpening(form: StreamForm, declaredOpen: string, open: string): StreamForm {
  if (!('body' in form) || form.body.open !== declaredOpen)
    throw new Error(`openTokens of ${declaredOpen}: only a body form that begins with it reads it`);
  return { body: { ...form.body, open } };
}
