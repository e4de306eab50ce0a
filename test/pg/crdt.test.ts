// The CRDT repository on PostgreSQL answers as on SQLite (test/helpers/pg-parity.ts): rooms created, found, listed
// and settled; appends (bumping the row, refusing a row deleted and created again by its created_at), the log in seq
// order, merged and deleted; snapshots; `stored` (row and log as of one instant), inside a unit of work too; tenant
// isolation between k1 and k2; missing rooms. Updates and snapshots are compared as bytes (Buffers on both).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CrdtRepo, crdtRepo, type RoomId } from '../../server/db/repos/crdt.ts';
import type { TenantScope } from '../../server/db/scope.ts';
import { type BothEngines, bothEngines } from '../helpers/pg-parity.ts';

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
  for (const key of ['k1', 'k2']) {
    await both.insertBoth('INSERT INTO organizations (api_key_id, id, name, disabled, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      key,
      'acme',
      'Acme',
      false,
      '{}',
      1,
      1,
    ]);
    for (const doc of ['d1', 'd2', 'd3'])
      await both.insertBoth(
        'INSERT INTO documents (api_key_id, organization_id, id, name, access_type, disabled, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [key, 'acme', doc, doc, 'organizationPrivate', false, '{}', 1, 1],
      );
  }
});
afterAll(() => both?.close());

const room = (documentId: string, editorId: string): RoomId => ({ organizationId: 'acme', documentId, editorId });
const A = room('d1', 'e1');
const B = room('d1', 'e2');
const C = room('d2', 'e1');
const D = room('d3', 'e1');
const MISSING = room('d9', 'e1');
/** Every byte value, NUL included: bytea must hold what a blob holds. */
const EVERY_BYTE = Uint8Array.from({ length: 256 }, (_, i) => i);

type Tx = <T>(work: () => Promise<T>) => Promise<T>;

async function script(repo: CrdtRepo, tx: Tx, k1: TenantScope, k2: TenantScope): Promise<unknown[]> {
  const out: unknown[] = [];
  const item = (scope: TenantScope, r: RoomId, rowCreatedAt: number, update: Uint8Array, lastUpdatedBy: string | null = 'ann') => ({
    scope,
    room: r,
    rowCreatedAt,
    update,
    lastUpdatedBy,
  });
  // 0-5: a missing room
  out.push(await repo.find(k1, A), await repo.head(k1, A), await repo.stored(k1, A), await repo.snapshot(k1, A), await repo.log(k1, A));
  out.push(await repo.editors(k1, 'acme', 'd1'));
  // 6-9: rooms of k1, and k2's room with the same ids
  out.push(await repo.create(k1, A, { type: 'xml', contentKey: 'default', infer: 3, now: 100 }));
  out.push(await repo.create(k1, B, { type: 'text', contentKey: 'body', infer: 0, now: 110 }));
  out.push(await repo.create(k1, C, { type: 'map', contentKey: 'm', infer: 1, now: 120 }));
  out.push(await repo.create(k2, A, { type: 'array', contentKey: 'other', infer: 0, now: 130 }));
  // 10-13: editors, all or among some, by id
  out.push(
    await repo.editors(k1, 'acme', 'd1'),
    await repo.editors(k1, 'acme', 'd1', ['e2', 'zz']),
    await repo.editors(k1, 'acme', 'd1', []),
    await repo.editors(k2, 'acme', 'd1'),
  );
  // 14: appends: a row of k1, another, k2's row, a stale created_at (another document), a missing room
  out.push(
    await repo.append(
      [
        item(k1, A, 100, Uint8Array.of(1, 2, 3)),
        item(k1, B, 110, new Uint8Array(0), null),
        item(k2, A, 130, EVERY_BYTE, 'zed'),
        item(k1, A, 99, Uint8Array.of(66)),
        item(k1, MISSING, 100, Uint8Array.of(66)),
      ],
      200,
    ),
  );
  // 15: two more of A in one flush (a view into a larger buffer: only its bytes are written)
  const larger = Uint8Array.of(0, 4, 5, 0);
  out.push(await repo.append([item(k1, A, 100, larger.subarray(1, 2), 'bob'), item(k1, A, 100, larger.subarray(2, 3), 'cy')], 300));
  // 16-22: the log, the head, the row, the stored pair, each tenant's own
  out.push(await repo.log(k1, A), await repo.log(k2, A), await repo.log(k1, B));
  // (46, at the end) the seqs alone, as the log lists them
  const seqsListed = [await repo.logSeqs(k1, A), (await repo.log(k1, A)).map((r) => r.seq), await repo.logSeqs(k2, A), await repo.logSeqs(k1, B)];
  out.push(await repo.head(k1, A), await repo.find(k1, A), await repo.stored(k1, A), await repo.stored(k2, A));
  // 23-25: settled, and a snapshot stored (a view again), the count started over
  out.push(await repo.settle(k1, A, 'text', 'content'), await repo.setSnapshot(k1, A, larger.subarray(0, 3), 400), await repo.find(k1, A));
  // 26-27: snapshots of k1's room and of k2's (none)
  out.push(await repo.snapshot(k1, A), await repo.snapshot(k2, A));
  // 28-30: a merge of the whole log into its first row, then a merge of one row (nothing deleted), the other tenant untouched
  const seqs = (await repo.log(k1, A)).map((r) => r.seq);
  out.push(await repo.mergeLog(k1, A, seqs[0] as number, seqs[2] as number, Uint8Array.of(7, 7), 500));
  await repo.mergeLog(k1, A, seqs[0] as number, seqs[0] as number, Uint8Array.of(8), 510);
  out.push(await repo.log(k1, A), await repo.log(k2, A));
  // 31-33: the log deleted (the row stays)
  out.push(await repo.deleteLog(k1, A), await repo.stored(k1, A), await repo.head(k1, A));
  // 34-38: B removed with its log (by cascade), again (gone), and created again: another document
  out.push(await repo.remove(k1, B), await repo.remove(k1, B), await repo.find(k1, B));
  out.push(await repo.create(k1, B, { type: 'text', contentKey: 'body', infer: 0, now: 700 }), await repo.log(k1, B));
  // 39-40: an append for the old row is refused, one for the new row is taken
  out.push(await repo.append([item(k1, B, 110, Uint8Array.of(1))], 710), await repo.append([item(k1, B, 700, Uint8Array.of(2))], 720));
  // 41: k2's room is untouched by all of k1's
  out.push(await repo.stored(k2, A));
  // 42: inside a unit of work, its own writes are read (stored joins the unit)
  out.push(
    await tx(async () => {
      await repo.create(k1, D, { type: 'text', contentKey: 'd', infer: 0, now: 800 });
      await repo.append([item(k1, D, 800, Uint8Array.of(9))], 810);
      return repo.stored(k1, D);
    }),
  );
  // 43-44: a unit of work rolled back leaves nothing
  const lastSeq = (await repo.log(k1, D))[0]?.seq as number;
  out.push(
    await tx(async () => {
      await repo.create(k1, room('d3', 'e2'), { type: 'text', contentKey: 'd', infer: 0, now: 900 });
      await repo.append([item(k1, room('d3', 'e2'), 900, Uint8Array.of(1))], 910);
      throw new Error('rolled back');
    }).catch((error: Error) => error.message),
    await repo.find(k1, room('d3', 'e2')),
  );
  // 45: later appends still come after every earlier one (seq values themselves may skip: see below)
  const [next] = await repo.append([item(k1, D, 800, Uint8Array.of(10))], 920);
  out.push({ after: (next?.seq as number) > lastSeq, log: (await repo.log(k1, D)).map((r) => [...r.update]) });
  out.push({ same: JSON.stringify(seqsListed[0]) === JSON.stringify(seqsListed[1]), counts: seqsListed.map((l) => l.length) });
  return out;
}

describe('crdt', () => {
  it('answers every call as on SQLite: rooms, appends, the log in order, snapshots, stored, tenants', async () => {
    const { k1, k2 } = both;
    const sqlite = await script(both.storage.crdt, both.storage.transaction, k1, k2);
    const pg = await script(crdtRepo(both.pg), both.engine.transaction, k1, k2);
    expect(pg).toEqual(sqlite);

    // and each answer is what it should be, not only the same on both
    for (const answers of [sqlite, pg]) {
      expect(answers.slice(0, 6)).toEqual([undefined, undefined, undefined, null, [], []]);
      expect(answers.slice(10, 14)).toEqual([['e1', 'e2'], ['e2'], [], ['e1']]);
      const appended = answers[14] as Array<{ updateCount: number; seq: number } | null>;
      expect(appended.map((a) => a?.updateCount ?? null)).toEqual([1, 1, 1, null, null]);
      const [a1, b1, k2a] = appended as unknown as [{ seq: number }, { seq: number }, { seq: number }];
      expect(a1.seq < b1.seq && b1.seq < k2a.seq).toBe(true);
      const twoMore = answers[15] as Array<{ updateCount: number; seq: number }>;
      expect(twoMore.map((a) => a.updateCount)).toEqual([2, 3]);
      const log = answers[16] as Array<{ seq: number; createdAt: number; update: Buffer }>;
      expect(log.map((r) => [r.seq, r.createdAt, [...r.update]])).toEqual([
        [a1.seq, 200, [1, 2, 3]],
        [twoMore[0]?.seq, 300, [4]],
        [twoMore[1]?.seq, 300, [5]],
      ]);
      for (const r of log) expect(Buffer.isBuffer(r.update)).toBe(true);
      expect([...(answers[17] as Array<{ update: Buffer }>)[0]!.update]).toEqual([...EVERY_BYTE]);
      expect((answers[18] as Array<{ update: Buffer }>)[0]!.update.length).toBe(0);
      expect(answers[19]).toEqual({ createdAt: 100, updateCount: 3, updatedAt: 300 });
      expect(answers[20]).toMatchObject({ apiKeyId: 'k1', type: 'xml', contentKey: 'default', infer: 3, snapshot: null, lastUpdatedBy: 'cy' });
      expect(answers[21]).toEqual({ row: answers[20], log });
      expect((answers[22] as { row: { type: string } }).row.type).toBe('array');
      expect(answers[25]).toMatchObject({ type: 'text', contentKey: 'content', infer: 0, updateCount: 0, compactedAt: 400 });
      expect([...(answers[26] as Buffer)]).toEqual([0, 4, 5]);
      expect(Buffer.isBuffer(answers[26])).toBe(true);
      expect(answers[27]).toBeNull();
      expect((answers[29] as Array<{ seq: number; createdAt: number; update: Buffer }>).map((r) => [r.seq, r.createdAt, [...r.update]])).toEqual([
        [a1.seq, 510, [8]],
      ]);
      expect((answers[30] as unknown[]).length).toBe(1);
      expect((answers[32] as { log: unknown[] }).log).toEqual([]);
      expect(answers[33]).toEqual({ createdAt: 100, updateCount: 0, updatedAt: 300 });
      expect(answers.slice(34, 37)).toEqual([true, false, undefined]);
      expect(answers[38]).toEqual([]);
      expect(answers[39]).toEqual([null]);
      expect((answers[40] as Array<{ updateCount: number }>)[0]?.updateCount).toBe(1);
      expect((answers[41] as { log: unknown[] }).log).toHaveLength(1);
      const inUnit = answers[42] as { row: { editorId: string; updateCount: number }; log: Array<{ update: Buffer }> };
      expect([inUnit.row.updateCount, inUnit.log.map((r) => [...r.update])]).toEqual([1, [[9]]]);
      expect(answers.slice(43, 45)).toEqual(['rolled back', undefined]);
      expect(answers[45]).toEqual({ after: true, log: [[9], [10]] });
      expect(answers[46]).toEqual({ same: true, counts: [3, 3, 1, 1] });
    }
  });

  it('reads the row and its log as of one instant while appends commit beside it', async () => {
    const { k1 } = both;
    const repo = crdtRepo(both.pg);
    const E = room('d2', 'e9');
    await repo.create(k1, E, { type: 'text', contentKey: 'e', infer: 0, now: 1 });
    // appends commit while `stored` reads: every answer's count matches its log's length
    let writing = true;
    const reads: Array<{ count: number; length: number }> = [];
    // after each append the writer waits for one more read to end, so that reads land between the appends however
    // the machine schedules them (a loaded CI run once had every read before the first commit or after the last)
    const aReadAfter = async (done: number) => {
      while (reads.length === done) await new Promise((resolve) => setImmediate(resolve));
    };
    const writes = (async () => {
      for (let i = 0; i < 40; i++) {
        const done = reads.length;
        await repo.append([{ scope: k1, room: E, rowCreatedAt: 1, update: Uint8Array.of(i), lastUpdatedBy: null }], 2 + i);
        await aReadAfter(done);
      }
    })().finally(() => {
      writing = false;
    });
    // read for as long as the appends go on, each read beside the appends' commits
    while (writing) {
      const s = await repo.stored(k1, E);
      if (s) reads.push({ count: s.row.updateCount, length: s.log.length });
    }
    await writes;
    // the reads did run while appends committed (else this test would prove nothing)
    expect(reads.some((r) => r.count > 0 && r.count < 40)).toBe(true);
    for (const r of reads) expect(r.count).toBe(r.length);
    expect((await repo.stored(k1, E))?.log.map((r) => r.update[0])).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });
});
