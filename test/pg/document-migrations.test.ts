// Document migrations ported to PostgreSQL answer as on SQLite: the same calls on both engines, every answer
// compared (test/helpers/pg-parity.ts sets both engines up).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentMigrationsRepoPg } from '../../server/db/pg/repos/document-migrations.ts';
import type { DocumentMigrationsRepo, MigrationRow } from '../../server/db/repos/document-migrations.ts';
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
});

describe('document migrations', () => {
  it('answers every call as on SQLite: insert, find per key and organization, the queue across keys, recovery', async () => {
    const { k1, k2 } = both;
    const answers = await onBoth<DocumentMigrationsRepo>(both.storage.documentMigrations, documentMigrationsRepoPg(both.engine), async (repo) => [
      await repo.next(),
      await repo.find(k1, 'o1', 'j1'),
      await repo.insert(k1, job('j1', 'o1', 20)),
      await repo.insert(k2, job('j2', 'o1', 10)),
      await repo.insert(k1, job('j3', 'o2', 30)),
      await repo.insert(k1, job('j4', 'o1', 5, 'in_progress', 2)),
      await repo.insert(k1, job('j5', 'o1', 6, 'in_progress', 1)),
      await repo.find(k1, 'o1', 'j1'),
      await repo.find(k2, 'o1', 'j1'),
      await repo.find(k1, 'o2', 'j1'),
      // the oldest pending job of any key: k2's
      await repo.next(),
      await repo.markStarted({ id: 'j2', attempts: 0 }, 100),
      await repo.markStarted({ id: 'missing', attempts: 0 }, 100),
      await repo.find(k2, 'o1', 'j2'),
      await repo.next(),
      await repo.markFailed('j1', 'boom', 110),
      await repo.markFailed('missing', 'boom', 110),
      await repo.find(k1, 'o1', 'j1'),
      await repo.complete(k2, 'j3', 120),
      await repo.find(k1, 'o2', 'j3'),
      await repo.complete(k1, 'j3', 120),
      await repo.find(k1, 'o2', 'j3'),
      await repo.next(),
      await repo.recover(2, 130),
      await repo.find(k1, 'o1', 'j4'),
      await repo.find(k1, 'o1', 'j5'),
      await repo.find(k2, 'o1', 'j2'),
      await repo.next(),
    ]);
    expect(answers.pg).toEqual(answers.sqlite);
    const s = answers.sqlite;
    expect(s[0]).toBeUndefined();
    expect(s[7]).toEqual({ ...job('j1', 'o1', 20), apiKeyId: 'k1' });
    expect(s.slice(8, 10)).toEqual([undefined, undefined]);
    expect((s[10] as MigrationRow).id).toBe('j2');
    expect(s[13]).toMatchObject({ status: 'in_progress', attempts: 1, startedAt: 100 });
    expect((s[14] as MigrationRow).id).toBe('j1');
    expect(s[17]).toMatchObject({ status: 'failed', error: 'boom', completedAt: 110 });
    expect(s[19]).toMatchObject({ status: 'pending', completedAt: null });
    expect(s[21]).toMatchObject({ status: 'completed', completedAt: 120, error: null });
    expect(s[22]).toBeUndefined();
    expect(s[24]).toMatchObject({ status: 'failed', error: 'interrupted 2 times; not retried', completedAt: 130 });
    expect(s[25]).toMatchObject({ status: 'pending', attempts: 1, completedAt: null });
    expect(s[26]).toMatchObject({ status: 'pending', attempts: 1 });
    expect((s[27] as MigrationRow).id).toBe('j5');
  });
});
