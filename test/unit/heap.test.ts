// server/heap.ts takes V8's `gc` at run time (issue 46): on the Node Hearth supports, that must give a function,
// or RSS would stay at its peak after documents unload without anyone noticing.
import { describe, expect, it } from 'vitest';
import { heapCollector } from '../../server/heap.ts';

describe('heap collection after an unload', () => {
  it('has V8’s gc on this Node, and a collection gives garbage back', () => {
    const collect = heapCollector();
    expect(typeof collect).toBe('function');
    let garbage: unknown[] | undefined = Array.from({ length: 200_000 }, (_, i) => ({ i, s: `x${i}` }));
    expect(garbage.length).toBe(200_000);
    const before = process.memoryUsage().heapUsed;
    garbage = undefined;
    collect?.();
    expect(process.memoryUsage().heapUsed).toBeLessThan(before - 5_000_000);
  });
});
