// Text gathered in pieces (src/protocol/pieces.ts) flattens a tail of short pieces and keeps a
// tail of long ones as it is: either way, joined, it is every piece in order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  clearPieces,
  createPieces,
  isEmptyPieces,
  joinPieces,
  pushPiece,
} from '../src/protocol/pieces.js';

// Short pieces (a 4-char stream), long ones (a value read whole), and both mixed.
const piece = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.string({ minLength: 200, maxLength: 1500 }),
  fc.string({ maxLength: 80, unit: 'grapheme' }),
);

describe('pieces', () => {
  it('joins to every piece pushed, in order, however long the pieces', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (texts) => {
        const pieces = createPieces();
        for (const text of texts) pushPiece(pieces, text);
        expect(joinPieces(pieces)).toBe(texts.join(''));
        expect(isEmptyPieces(pieces)).toBe(texts.join('') === '');
      }),
    );
  });

  it('joins blocks of short pieces, flattened, and long ones, kept, in order', () => {
    // Past several blocks (4 KiB each): 4-char pieces, then long ones, then short again.
    const texts: string[] = [];
    for (let i = 0; i < 3000; i++) texts.push(String(i % 10).repeat(4));
    for (let i = 0; i < 5; i++) texts.push(String.fromCharCode(97 + i).repeat(3000));
    for (let i = 0; i < 1500; i++) texts.push('ab');
    const pieces = createPieces();
    for (const text of texts) pushPiece(pieces, text);
    expect(joinPieces(pieces)).toBe(texts.join(''));
  });

  it('starts over empty when cleared, after short and long pieces alike', () => {
    const pieces = createPieces();
    // Past a block (4 KiB) of short pieces: the flattened block is dropped too.
    for (let i = 0; i < 1200; i++) pushPiece(pieces, 'abcd');
    pushPiece(pieces, 'x'.repeat(3000));
    clearPieces(pieces);
    expect(isEmptyPieces(pieces)).toBe(true);
    pushPiece(pieces, 'y'.repeat(2000));
    pushPiece(pieces, 'z');
    expect(joinPieces(pieces)).toBe(`${'y'.repeat(2000)}z`);
  });
});
