// The admin UI's text diffs (renderer/src/lib/diff.ts): by word for the history (issue 44: "a word-level diff"), by
// character for the live view's marks. Applying a diff's same and added parts gives the new text, its same and
// removed parts the old one, whatever the texts (fast-check); a changed word is replaced whole.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffChars, diffCounts, diffWords, type DiffPart } from '../../renderer/src/lib/diff.ts';

const side = (parts: DiffPart[], kind: 'added' | 'removed') =>
  parts
    .filter((p) => p.kind !== kind)
    .map((p) => p.text)
    .join('');

describe('text diffs', () => {
  it('mark whole words by word, and the changed characters by character', () => {
    expect(diffWords('the quick brown fox', 'the quack brown fox!')).toEqual([
      { kind: 'same', text: 'the ' },
      { kind: 'removed', text: 'quick' },
      { kind: 'added', text: 'quack' },
      { kind: 'same', text: ' brown fox' },
      { kind: 'added', text: '!' },
    ]);
    expect(diffChars('the quick brown fox', 'the quack brown fox!')).toEqual([
      { kind: 'same', text: 'the qu' },
      { kind: 'removed', text: 'i' },
      { kind: 'added', text: 'a' },
      { kind: 'same', text: 'ck brown fox' },
      { kind: 'added', text: '!' },
    ]);
    // words of any script, with their combining marks; counts are in characters
    const parts = diffWords('naïve café — 東京', 'naïve cafe\u0301 — 東京都')!;
    expect(parts.filter((p) => p.kind !== 'same').map((p) => [p.kind, p.text])).toEqual([
      ['removed', 'café'],
      ['added', 'cafe\u0301'],
      ['removed', '東京'],
      ['added', '東京都'],
    ]);
    expect(diffCounts(parts)).toEqual({ added: 8, removed: 6 });
  });

  it('rebuild both texts from any diff, by word and by character', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.string({ unit: 'grapheme', maxLength: 60 }), (before, after) => {
        for (const diff of [diffWords, diffChars]) {
          const parts = diff(before, after)!;
          expect(side(parts, 'removed')).toBe(after);
          expect(side(parts, 'added')).toBe(before);
          // runs of one kind are joined
          for (let i = 1; i < parts.length; i++) expect(parts[i]!.kind).not.toBe(parts[i - 1]!.kind);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('says a text is too large rather than stall', () => {
    const words = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');
    expect(diffWords(words(3_000, 'a'), words(3_000, 'b'))).toBeNull();
    expect(diffWords(words(500, 'a'), words(500, 'b'))).not.toBeNull();
  });
});
