// Document migrations ported to PostgreSQL answer as on SQLite: the same calls on both engines, every answer
// compared (test/helpers/pg-parity.ts sets both engines up).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentMigrationsRepo, type DocumentMigrationsRepo, type MigrationRow } from '../../server/db/repos/document-migrations.ts';
import { type BothEngines, bothEngines, onBoth } from '../helpers/pg-parity.ts';

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
});
afterAll(() => both?.close());

const job = (
  id: string,
  organizationId: string,
  createdAt: number,
  status: MigrationRow['status'] = 'pending',
  attempts = 0,
  leaseUntil: number | null = null,
): Omit<MigrationRow, 'apiKeyId'> => ({
  id,
  organizationId,
  fromDocumentId: `from-${id}`,
  toDocumentId: `to-${id}`,
  status,
  error: null,
  attempts,
  createdAt,
  startedAt: null,
  completedAt: null,
  leaseUntil,
});

const EVERY = Number.MAX_SAFE_INTEGER;

describe('document migrations', () => {
  it('answers every call as on SQLite: insert, find per key and organization, the leased queue across keys, recovery', async () => {
    const { k1, k2 } = both;
    const answers = await onBoth<DocumentMigrationsRepo>(both.storage.documentMigrations, documentMigrationsRepo(both.pg), async (repo) => [
      await repo.claim(100, 1000, 2),
      await repo.find(k1, 'o1', 'j1'),
      await repo.insert(k1, job('j1', 'o1', 20)),
      await repo.insert(k2, job('j2', 'o1', 10)),
      await repo.insert(k1, job('j3', 'o2', 30)),
      // left in progress: by a crash before leases (none), by a holder whose lease ran out, by a live holder
      await repo.insert(k1, job('j4', 'o1', 5, 'in_progress', 2)),
      await repo.insert(k1, job('j5', 'o1', 6, 'in_progress', 1, 150)),
      await repo.insert(k1, job('j6', 'o1', 7, 'in_progress', 1, 500)),
      await repo.find(k1, 'o1', 'j1'),
      await repo.find(k2, 'o1', 'j1'),
      await repo.find(k1, 'o2', 'j1'), // 10
      // j4 fails (abandoned twice), j5 is pending again and, the oldest, taken; j6's holder still holds it
      await repo.claim(200, 1200, 2),
      await repo.find(k1, 'o1', 'j4'),
      await repo.find(k1, 'o1', 'j6'),
      // then the oldest pending job of any key: k2's
      await repo.claim(210, 1210, 2),
      await repo.find(k2, 'o1', 'j2'), // 15
      await repo.markFailed('j1', 'boom', 220, null),
      await repo.markFailed('missing', 'boom', 220, null),
      await repo.find(k1, 'o1', 'j1'),
      await repo.complete(k2, 'j3', 230, null),
      await repo.find(k1, 'o2', 'j3'), // 20
      await repo.complete(k1, 'j3', 230, null),
      await repo.find(k1, 'o2', 'j3'),
      // j6's lease has run out: taken over
      await repo.claim(600, 1600, 2),
      // nothing left that nobody holds
      await repo.claim(700, 1700, 2),
      // the only instance's start: every job in progress is abandoned
      await repo.recover(2, 240, EVERY), // 25
      await repo.find(k1, 'o1', 'j5'),
      await repo.find(k2, 'o1', 'j2'),
      await repo.find(k1, 'o1', 'j6'),
      await repo.claim(800, 1800, 2),
    ]);
    expect(answers.pg).toEqual(answers.sqlite);
    const s = answers.sqlite;
    expect(s[0]).toBeUndefined();
    expect(s[8]).toEqual({ ...job('j1', 'o1', 20), apiKeyId: 'k1' });
    expect(s.slice(9, 11)).toEqual([undefined, undefined]);
    expect(s[11]).toMatchObject({ id: 'j5', status: 'in_progress', attempts: 2, startedAt: 200, leaseUntil: 1200 });
    expect(s[12]).toMatchObject({ status: 'failed', error: 'interrupted 2 times; not retried', completedAt: 200, leaseUntil: null });
    expect(s[13]).toMatchObject({ status: 'in_progress', attempts: 1, leaseUntil: 500 });
    expect(s[14]).toMatchObject({ id: 'j2', apiKeyId: 'k2', attempts: 1, startedAt: 210, leaseUntil: 1210 });
    expect(s[15]).toEqual(s[14]);
    expect(s[18]).toMatchObject({ status: 'failed', error: 'boom', completedAt: 220 });
    expect(s[20]).toMatchObject({ status: 'pending', completedAt: null });
    expect(s[22]).toMatchObject({ status: 'completed', completedAt: 230, error: null });
    expect(s[23]).toMatchObject({ id: 'j6', status: 'in_progress', attempts: 2, startedAt: 600, leaseUntil: 1600 });
    expect(s[24]).toBeUndefined();
    expect(s[26]).toMatchObject({ status: 'failed', error: 'interrupted 2 times; not retried', completedAt: 240, leaseUntil: null });
    expect(s[27]).toMatchObject({ status: 'pending', attempts: 1, leaseUntil: null });
    expect(s[28]).toMatchObject({ status: 'failed', attempts: 2 });
    expect(s[29]).toMatchObject({ id: 'j2', attempts: 2, startedAt: 800 });
  });

  it("refuses a holder's completion or failure once its lease ran out and the job was put back or taken over", async () => {
    const { k1 } = both;
    const answers = await onBoth<DocumentMigrationsRepo>(both.storage.documentMigrations, documentMigrationsRepo(both.pg), async (repo) => [
      // held by an instance under a lease until 1000 (j2 of the test above is held until 1800)
      await repo.insert(k1, job('s1', 'o3', 900, 'in_progress', 1, 1000)),
      await repo.insert(k1, job('s2', 'o3', 901, 'in_progress', 1, 1000)),
      // a look for expired leases at 1500: both back to pending
      await repo.recover(5, 1500, 1500),
      await repo.complete(k1, 's1', 1600, 1000),
      await repo.find(k1, 'o3', 's1'),
      // taken over by another instance: the old holder's outcome is still refused
      await repo.claim(1600, 2600, 5), // 5
      await repo.complete(k1, 's1', 1700, 1000),
      await repo.markFailed('s1', 'late', 1700, 1000),
      await repo.find(k1, 'o3', 's1'),
      // the new holder's applies, once
      await repo.complete(k1, 's1', 1710, 2600),
      await repo.complete(k1, 's1', 1720, 2600), // 10
      await repo.find(k1, 'o3', 's1'),
      await repo.claim(1750, 2750, 5),
      await repo.markFailed('s2', 'boom', 1760, 2750),
      await repo.find(k1, 'o3', 's2'),
    ]);
    expect(answers.pg).toEqual(answers.sqlite);
    const s = answers.sqlite;
    expect(s[3]).toBe(false);
    expect(s[4]).toMatchObject({ status: 'pending', leaseUntil: null, completedAt: null });
    expect(s[5]).toMatchObject({ id: 's1', attempts: 2, leaseUntil: 2600 });
    expect([s[6], s[7]]).toEqual([false, false]);
    expect(s[8]).toMatchObject({ status: 'in_progress', error: null, leaseUntil: 2600 });
    expect([s[9], s[10]]).toEqual([true, false]);
    expect(s[11]).toMatchObject({ status: 'completed', completedAt: 1710, leaseUntil: null });
    expect(s[12]).toMatchObject({ id: 's2', leaseUntil: 2750 });
    expect(s[13]).toBe(true);
    expect(s[14]).toMatchObject({ status: 'failed', error: 'boom', completedAt: 1760 });
  });

  it('gives each job to one taker when instances take at the same moment (PostgreSQL)', async () => {
    const repo = documentMigrationsRepo(both.pg);
    for (let i = 0; i < 30; i++) await repo.insert(both.k1, job(`race${String(i).padStart(2, '0')}`, 'o9', 1_000 + i));
    const taken = await Promise.all(Array.from({ length: 40 }, () => repo.claim(5_000, 9_000, 3)));
    const ids = taken.flatMap((t) => (t && t.organizationId === 'o9' ? [t.id] : []));
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
  });
});
