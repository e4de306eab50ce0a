// The recordings repository on PostgreSQL answers as on SQLite (test/helpers/pg-parity.ts): versions saved (a new
// recording, a change, attachments numbered after the last), finds, pages (newest first, ties by id, keyset, by
// document, by ids), attachments by recording, lookups by storage key, deletes, and tenant isolation between k1 and k2.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AttachmentRow, type NewAttachment, type RecordingRow, type RecordingsRepo, recordingsRepo } from '../../server/db/repos/recordings.ts';
import { type BothEngines, bothEngines, onBoth } from '../helpers/pg-parity.ts';

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
  for (const key of ['k1', 'k2'])
    await both.insertBoth('INSERT INTO organizations (api_key_id, id, name, disabled, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      key,
      'acme',
      'Acme',
      false,
      '{}',
      1,
      1,
    ]);
});
afterAll(() => both?.close());

const recording = (id: string, documentId: string, createdAt: number): Omit<RecordingRow, 'apiKeyId' | 'organizationId'> => ({
  id,
  documentId,
  recordingType: 'audio',
  mode: 'standard',
  displayName: `Rec ${id}`,
  durationMs: 1234,
  fromUser: { userId: 'ann', name: 'Ann', email: 'ann@x.test' },
  fromUserId: 'ann',
  latestVersion: 1,
  createdAt,
  updatedAt: createdAt,
});
const file = (storageKey: string, name = `${storageKey}.webm`): NewAttachment => ({
  name,
  type: 'audio',
  mimeType: 'audio/webm',
  size: 3_000_000_000,
  sha256: `sha-${storageKey}`,
  storageKey,
});

/** A Map's entries by key: the lists are the contract, the Map's key order is not (callers look up by id). */
const entries = (map: Map<string, AttachmentRow[]>) => [...map].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
const ids = (rows: unknown) => (rows as RecordingRow[]).map((r) => r.id);

describe('recordings', () => {
  it('answers every call as on SQLite: versions, finds, pages, attachments, storage keys, deletes, tenant isolation', async () => {
    const { k1, k2 } = both;
    const answers = await onBoth<RecordingsRepo>(both.storage.recordings, recordingsRepo(both.pg), async (repo) => {
      const out: unknown[] = [];
      const key = (k: string) => `key-${k}`;
      out.push(await repo.find(k1, 'acme', 'r1'), await repo.withAttachments(k1, 'acme', 'r1'));
      out.push(
        await repo.saveVersion(k1, 'acme', { insert: recording('r1', 'd1', 100) }, { version: 1, createdAt: 100, files: [file(key('a')), file(key('b'))] }),
      );
      out.push(await repo.saveVersion(k1, 'acme', { insert: recording('r2', 'd1', 200) }, { version: 1, createdAt: 200, files: [file(key('c'))] }));
      out.push(await repo.saveVersion(k1, 'acme', { insert: recording('r3', 'd2', 200) }, { version: 1, createdAt: 200, files: [] }));
      out.push(await repo.saveVersion(k1, 'acme', { insert: recording('R4', 'd1', 100) }, { version: 1, createdAt: 100, files: [file(key('d'))] }));
      out.push(await repo.saveVersion(k1, 'acme', { insert: recording('r5', 'd2', 50) }, { version: 1, createdAt: 50, files: [] }));
      // the same recording id in the other key
      out.push(await repo.saveVersion(k2, 'acme', { insert: recording('r1', 'd1', 300) }, { version: 1, createdAt: 300, files: [file(key('k2'))] }));
      // a second version: the change, and its attachments numbered after the last (3)
      out.push(
        await repo.saveVersion(
          k1,
          'acme',
          { id: 'r1', change: { latestVersion: 2, durationMs: 99, displayName: 'Renamed', updatedAt: 150 } },
          { version: 2, createdAt: 150, files: [file(key('e')), file(key('f'))] },
        ),
      );
      // a change of k1's r3 from k2's scope changes nothing: refused as a recording that is not there (ConcurrentChange,
      // which runs an add's unit of work again, there to find it gone)
      out.push(
        await repo.saveVersion(k2, 'acme', { id: 'r3', change: { displayName: 'Stolen' } }, { version: 9, createdAt: 1, files: [] }).then(
          () => 'changed',
          (error: Error) => error.name,
        ),
      );
      out.push(await repo.find(k1, 'acme', 'r1'), await repo.find(k1, 'acme', 'r3'), await repo.find(k2, 'acme', 'r1'), await repo.find(k1, 'other', 'r1'));
      out.push(await repo.withAttachments(k1, 'acme', 'r1'), await repo.withAttachments(k1, 'acme', 'r3'), await repo.withAttachments(k2, 'acme', 'r1'));
      out.push(await repo.withAttachments(k2, 'acme', 'r2'));
      // pages: newest first, ties by id descending (code point order: 'r' after 'R')
      out.push(await repo.page(k1, { organizationId: 'acme' }, null, 10));
      out.push(await repo.page(k1, { organizationId: 'acme' }, null, 2));
      out.push(await repo.page(k1, { organizationId: 'acme' }, [200, 'r2'], 2));
      out.push(await repo.page(k1, { organizationId: 'acme' }, [100, 'r1'], 10));
      out.push(await repo.page(k1, { organizationId: 'acme', documentId: 'd1' }, null, 10));
      out.push(await repo.page(k1, { organizationId: 'acme', documentId: 'd1' }, [200, 'r2'], 10));
      out.push(await repo.page(k1, { organizationId: 'acme', recordingIds: ['R4', 'r1', 'nope', 'r5'] }, null, 10));
      out.push(await repo.page(k1, { organizationId: 'acme', recordingIds: [] }, null, 10));
      out.push(await repo.page(k1, { organizationId: 'acme', documentId: 'd2', recordingIds: ['r3', 'r2'] }, [300, 'x'], 10));
      out.push(await repo.page(k2, { organizationId: 'acme' }, null, 10), await repo.page(k1, { organizationId: 'other' }, null, 10));
      out.push(entries(await repo.attachments(k1, 'acme', ['r1', 'r2', 'r3', 'R4', 'nope'])));
      out.push(entries(await repo.attachments(k1, 'acme', [])), entries(await repo.attachments(k2, 'acme', ['r1', 'r2'])));
      out.push(await repo.attachmentByStorageKey(key('k2')), await repo.attachmentByStorageKey(key('e')), await repo.attachmentByStorageKey('nope'));
      out.push([...(await repo.storedKeys([key('f'), 'nope', key('a'), key('k2'), key('a')]))], [...(await repo.storedKeys([]))]);
      // deletes: in the order asked, those that exist, each with its attachments' storage keys; none of another key's
      out.push(await repo.delete(k2, 'acme', ['R4', 'r2']));
      out.push(await repo.delete(k1, 'acme', ['r2', 'nope', 'r1', 'r1', 'r3']));
      out.push(await repo.find(k1, 'acme', 'r1'), await repo.attachmentByStorageKey(key('a')), await repo.find(k2, 'acme', 'r1'));
      out.push(await repo.page(k1, { organizationId: 'acme' }, null, 10), entries(await repo.attachments(k1, 'acme', ['r1', 'R4'])));
      out.push([...(await repo.storedKeys([key('a'), key('d'), key('k2')]))]);
      return out;
    });
    expect(answers.pg).toEqual(answers.sqlite);
    // and the answers are what they must be
    const a = answers.sqlite;
    expect(answers.sqlite[0]).toBeUndefined();
    expect(answers.sqlite[1]).toBeUndefined();
    const r1 = answers.sqlite[10] as RecordingRow;
    expect(r1).toMatchObject({ apiKeyId: 'k1', latestVersion: 2, durationMs: 99, displayName: 'Renamed', updatedAt: 150, createdAt: 100 });
    expect(r1.fromUser).toEqual({ userId: 'ann', name: 'Ann', email: 'ann@x.test' });
    expect((answers.sqlite[11] as RecordingRow).displayName).toBe('Rec r3');
    expect((answers.sqlite[12] as RecordingRow).createdAt).toBe(300);
    expect(answers.sqlite[13]).toBeUndefined();
    const withR1 = answers.pg[14] as { attachments: AttachmentRow[] };
    expect(withR1.attachments.map((x) => [x.attachmentId, x.version, x.storageKey, x.size])).toEqual([
      [1, 1, 'key-a', 3_000_000_000],
      [2, 1, 'key-b', 3_000_000_000],
      [3, 2, 'key-e', 3_000_000_000],
      [4, 2, 'key-f', 3_000_000_000],
    ]);
    expect((answers.sqlite[15] as { attachments: unknown[] }).attachments).toEqual([]);
    expect((answers.sqlite[16] as { attachments: AttachmentRow[] }).attachments.map((x) => x.storageKey)).toEqual(['key-k2']);
    expect(answers.sqlite[17]).toBeUndefined();
    expect(ids(answers.sqlite[18])).toEqual(['r3', 'r2', 'r1', 'R4', 'r5']);
    expect(ids(answers.sqlite[19])).toEqual(['r3', 'r2']);
    expect(ids(answers.sqlite[20])).toEqual(['r1', 'R4']);
    expect(ids(answers.sqlite[21])).toEqual(['R4', 'r5']);
    expect(ids(answers.sqlite[22])).toEqual(['r2', 'r1', 'R4']);
    expect(ids(answers.sqlite[23])).toEqual(['r1', 'R4']);
    expect(ids(answers.sqlite[24])).toEqual(['r1', 'R4', 'r5']);
    expect(ids(answers.sqlite[25])).toEqual(['r3', 'r2', 'r1', 'R4', 'r5']);
    expect(ids(answers.sqlite[26])).toEqual(['r3']);
    expect(ids(answers.sqlite[27])).toEqual(['r1']);
    expect(answers.sqlite[28]).toEqual([]);
    expect((a[29] as Array<[string, AttachmentRow[]]>).map(([id, list]) => [id, list.map((x) => x.storageKey)])).toEqual([
      ['R4', ['key-d']],
      ['r1', ['key-a', 'key-b', 'key-e', 'key-f']],
      ['r2', ['key-c']],
    ]);
    expect(answers.sqlite[30]).toEqual([]);
    expect((a[31] as Array<[string, AttachmentRow[]]>).map(([id]) => id)).toEqual(['r1']);
    expect(answers.sqlite[32]).toMatchObject({ apiKeyId: 'k2', recordingId: 'r1', attachmentId: 1 });
    expect(answers.sqlite[33]).toMatchObject({ apiKeyId: 'k1', recordingId: 'r1', attachmentId: 3, version: 2 });
    expect(answers.sqlite[34]).toBeUndefined();
    expect(answers.pg[35]).toEqual(['key-f', 'key-a', 'key-k2']);
    expect(answers.sqlite[36]).toEqual([]);
    expect(answers.sqlite[37]).toEqual([]);
    expect((a[38] as Array<{ row: RecordingRow; storageKeys: string[] }>).map((d) => [d.row.id, d.storageKeys])).toEqual([
      ['r2', ['key-c']],
      ['r1', ['key-a', 'key-b', 'key-e', 'key-f']],
      ['r3', []],
    ]);
    expect(answers.sqlite[39]).toBeUndefined();
    expect(answers.sqlite[40]).toBeUndefined();
    expect((answers.sqlite[41] as RecordingRow).apiKeyId).toBe('k2');
    expect(ids(answers.sqlite[42])).toEqual(['R4', 'r5']);
    expect((a[43] as Array<[string]>).map(([id]) => id)).toEqual(['R4']);
    expect(answers.sqlite[44]).toEqual(['key-d', 'key-k2']);
  });
});
