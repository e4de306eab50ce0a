// The nesting scan that refuses a long body before JSON.parse (dispatch.ts) must count levels as the check on the
// parsed value does, brackets inside strings (escaped quotes and backslashes included) not counting.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonScan, nestedDeeperThan, parseData, scanJson } from '../../server/http/dispatch.ts';

/** Levels of objects and arrays, the outer one counting 1 (0 for a primitive). */
function levels(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  for (const child of Object.values(value)) deepest = Math.max(deepest, levels(child));
  return 1 + deepest;
}

// strings made of the characters that could mislead a scanner
const tricky = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', ',', ':', '\u00e9') });
const leaf = fc.oneof(tricky, fc.integer(), fc.boolean(), fc.constant(null));

/** A chain of `depth` objects and arrays, each with tricky siblings, around a leaf. */
const nested = fc
  .integer({ min: 0, max: 80 })
  .chain((depth) =>
    fc
      .tuple(fc.array(fc.tuple(fc.boolean(), tricky, fc.array(leaf, { maxLength: 3 })), { minLength: depth, maxLength: depth }), leaf)
      .map(([wrappers, inner]) =>
        wrappers.reduce<unknown>(
          (child, [asArray, key, siblings]) =>
            asArray ? [...siblings, child] : { ...Object.fromEntries(siblings.map((s, i) => [`${key}${i}`, s])), [key]: child },
          inner,
        ),
      ),
  );

describe('nestedDeeperThan', () => {
  it('counts the levels of objects and arrays as the parsed value has them', () => {
    fc.assert(
      fc.property(nested, (value) => {
        const body = { data: value };
        expect(nestedDeeperThan(JSON.stringify(body), 64)).toBe(levels(body) > 64);
      }),
      { numRuns: 2_000 },
    );
  });

  it('stops at the first level too many of a body of brackets', () => {
    expect(nestedDeeperThan(`{"data":${'['.repeat(5_000_000)}`, 64)).toBe(true);
    expect(nestedDeeperThan(`{"data":${'['.repeat(63)}${']'.repeat(63)}}`, 64)).toBe(false);
    expect(nestedDeeperThan(`{"data":${'['.repeat(64)}${']'.repeat(64)}}`, 64)).toBe(true);
  });
});

describe('parseData on a long body', () => {
  const pad = `"${'[{\\"'.repeat(100_000)}"`; // 400 KB of brackets and escaped quotes inside a string
  it('refuses one nested more than 64 levels before parsing it', () => {
    // the body, its data and 63 arrays: 65 levels
    expect(() => parseData(`{"data":{"pad":${pad},"deep":${'['.repeat(63)}${']'.repeat(63)}}}`)).toThrow(
      'Bad Request: the body is nested more than 64 levels deep.',
    );
    // unclosed: JSON.parse would call it invalid (after 2 s); the scan answers first
    expect(() => parseData(`{"data":${'['.repeat(5_000_000)}`)).toThrow('nested more than 64 levels');
  });

  it('parses one of 64 levels, whatever its strings hold', () => {
    const data = parseData(`{"data":{"pad":${pad},"deep":${'['.repeat(62)}${']'.repeat(62)}}}`) as { pad: string };
    expect(data.pad.length).toBe(300_000);
  });
});

describe('JsonScan (the same scan over bytes, as a body arrives in chunks)', () => {
  it('finds what scanJson finds, wherever the chunks are cut', () => {
    const text = fc.oneof(
      nested.map((value) => JSON.stringify({ data: value })),
      fc.array(fc.constantFrom('[', ']', '{', '}', ',', '"', '\\', 'é', 'a', ':'), { maxLength: 200 }).map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 6 }), fc.integer({ min: 1, max: 70 }), fc.integer({ min: 1, max: 40 }), (body, cuts, depth, values) => {
        const bytes = Buffer.from(body);
        const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const scan = new JsonScan(depth, values);
        let found: ReturnType<JsonScan['feed']> = null;
        let from = 0;
        for (const to of [...at, bytes.length]) {
          found ??= scan.feed(bytes.subarray(from, to));
          from = to;
        }
        expect(found).toBe(scanJson(body, depth, values));
      }),
      { numRuns: 500, seed: 7 },
    );
  });
});
