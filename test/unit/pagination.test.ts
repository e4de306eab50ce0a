import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createPageTokens, paginate, stableStringify } from '../../server/db/pagination.ts';

const tokens = createPageTokens(randomBytes(32));

describe('page tokens', () => {
  it('round-trip a cursor for the same scope, whatever the key order', () => {
    const token = tokens.encode({ a: 1, b: ['x'] }, [1700000000000, 'id-1']);
    expect(tokens.decode({ b: ['x'], a: 1 }, token)).toEqual([1700000000000, 'id-1']);
  });

  it('refuse another scope, another key, and any altered byte', () => {
    const token = tokens.encode({ q: 1 }, [5, 'k']);
    expect(tokens.decode({ q: 2 }, token)).toBeNull();
    expect(createPageTokens(randomBytes(32)).decode({ q: 1 }, token)).toBeNull();
    for (let i = 0; i < token.length; i++) {
      const altered = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
      if (altered !== token) expect(tokens.decode({ q: 1 }, altered)).toBeNull();
    }
    expect(tokens.decode({ q: 1 }, '')).toBeNull();
    expect(tokens.decode({ q: 1 }, '.')).toBeNull();
  });

  it('paginate splits pageSize + 1 rows into a page and a token', () => {
    const rows = [1, 2, 3].map((n) => ({ n }));
    const page = paginate(rows, 2, (r) => [r.n], tokens, 's');
    expect(page.items).toEqual([{ n: 1 }, { n: 2 }]);
    expect(tokens.decode('s', page.pageToken!)).toEqual([2]);
    expect(paginate(rows, 3, (r) => [r.n], tokens, 's').pageToken).toBeNull();
  });

  it('stableStringify ignores undefined members and sorts keys', () => {
    expect(stableStringify({ b: 1, a: undefined, c: { z: 1, y: [2, { x: 3 }] } })).toBe('{"b":1,"c":{"y":[2,{"x":3}],"z":1}}');
  });
});
