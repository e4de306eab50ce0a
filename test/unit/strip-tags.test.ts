import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stripTags } from '../../server/services/memory.ts';

/** What stripTags did before issue 42: the same answer, in time quadratic in the `<` that no `>` follows. */
const byRegex = (html: string) =>
  html
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

describe('stripTags (a comment’s HTML as plain text)', () => {
  it('answers as the regular expression did, on markup made of tags, brackets, text and whitespace', () => {
    const piece = fc.constantFrom('<', '>', '<b>', '</b>', '<a href="x">', 'text', ' ', '\n', '<<', '>>', 'é', '<p', 'x>');
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 40 }).map((parts) => parts.join('')),
        (html) => {
          expect(stripTags(html)).toBe(byRegex(html));
        },
      ),
      { numRuns: 2000, seed: 42 },
    );
  });

  it('keeps a `<` with no `>` after it, and drops the tags before it', () => {
    expect(stripTags('<b>bold</b> 1 < 2 <i')).toBe('bold 1 < 2 <i');
    // the hostile input of issue 42 (200,000 `<`): one pass, the text kept as it is
    const hostile = '<'.repeat(200_000);
    expect(stripTags(`<p>hi</p>${hostile}`)).toBe(`hi ${hostile}`);
  });
});
