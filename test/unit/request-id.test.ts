import { describe, expect, it } from 'vitest';
import { requestIds } from '../../server/http/request-id.ts';

const SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('are UUID-shaped (version 8, RFC 9562 variant), unique and in order within one source', () => {
    const next = requestIds();
    const ids = Array.from({ length: 100_000 }, next);
    for (const id of ids) expect(id).toMatch(SHAPE);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.map((id) => parseInt(id.slice(24), 16))).toEqual(ids.map((_, i) => i));
  });

  it('count past 16^k digit boundaries', () => {
    const next = requestIds();
    let last = '';
    for (let i = 0; i <= 0x1_0001; i++) last = next();
    expect(last.slice(24)).toBe('000000010001');
  });

  it('differ between sources (processes) in their random part', () => {
    const prefixes = new Set(Array.from({ length: 50 }, () => requestIds()().slice(0, 24)));
    expect(prefixes.size).toBe(50);
  });
});
