// The gate of SERIALIZABLE units of work (server/db/pg/gate.ts): units run side by side; one that runs again alone
// waits for those in flight, holds back those that arrive after it, and never starves.
import { describe, expect, it } from 'vitest';
import { Gate } from '../../server/db/pg/gate.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Gate', () => {
  it('lets shared units in together', async () => {
    const gate = new Gate();
    await Promise.all([gate.enter(false), gate.enter(false), gate.enter(false)]);
    gate.leave(false);
    gate.leave(false);
    gate.leave(false);
  });

  it('runs an exclusive unit once the shared ones in flight left, before shared ones that came after it', async () => {
    const gate = new Gate();
    const order: string[] = [];
    await gate.enter(false);
    await gate.enter(false);
    const exclusive = gate.enter(true).then(() => order.push('exclusive'));
    const later = gate.enter(false).then(() => order.push('later shared'));
    await tick();
    expect(order).toEqual([]);
    gate.leave(false);
    await tick();
    expect(order).toEqual([]);
    gate.leave(false);
    await exclusive;
    await tick();
    expect(order).toEqual(['exclusive']);
    gate.leave(true);
    await later;
    expect(order).toEqual(['exclusive', 'later shared']);
    gate.leave(false);
  });

  it('lets exclusive units in one at a time, in the order they came', async () => {
    const gate = new Gate();
    const order: number[] = [];
    const entered = [1, 2, 3].map((n) => gate.enter(true).then(() => order.push(n)));
    await tick();
    expect(order).toEqual([1]);
    gate.leave(true);
    await tick();
    expect(order).toEqual([1, 2]);
    gate.leave(true);
    await Promise.all(entered);
    expect(order).toEqual([1, 2, 3]);
    gate.leave(true);
  });
});
