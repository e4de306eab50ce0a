// The response cache (server/http/response-cache.ts): a read operation's answer is served again only while the
// database is unchanged — after any write, by this server or by another connection to its file, the next call
// computes the answer anew. Entries are per caller, bounded by bytes, and the cache can be turned off.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeStampOf } from '../../server/db/change-stamp.ts';
import { ResponseCache } from '../../server/http/response-cache.ts';
import { DATABASE_FILE } from '../../server/index.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { dataOf, startTestServer, type Success, type TestServer } from '../helpers/server.ts';

/** activities/get's items, as far as the tests read them. */
interface ActivityItem {
  actionType: string;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'rc', createOrganization: true, documents: [{ documentId: 'd' }] });
});
afterAll(() => t.close());

const activity = (n: number) => ({
  organizationId: 'rc',
  documentId: 'd',
  activities: [{ featureType: 'custom', actionType: `a${n}`, actionUser: { userId: 'u' }, targetEntityId: `t${n}` }],
});
const read = async (headers?: Record<string, string>) =>
  dataOf<ActivityItem[]>(await t.callK('/v2/activities/get', { organizationId: 'rc', documentId: 'd' }, headers));

describe('the response cache', () => {
  it('answers a repeated read from the cache, and anew after a write through the API', async () => {
    expect((await t.callK('/v2/activities/add', activity(1))).status).toBe(200);
    const first = await read();
    expect(first.map((a) => a.actionType)).toContain('a1');
    const cache = t.server.app.responses;
    const kept = cache.size;
    expect(kept).toBeGreaterThan(0);
    expect(await read()).toEqual(first);
    expect(cache.size).toBe(kept);

    expect((await t.callK('/v2/activities/add', activity(2))).status).toBe(200);
    const after = await read();
    expect(after.map((a) => a.actionType)).toEqual(expect.arrayContaining(['a1', 'a2']));
    expect(after.length).toBe(first.length + 1);
  });

  it('answers anew after another connection wrote to the database file (the CLI, an import)', async () => {
    const before = await read();
    const other = new Database(join(t.server.config.dataDir, DATABASE_FILE));
    try {
      const changed = other.prepare("UPDATE activities SET action_type = 'changed-elsewhere' WHERE action_type = 'a1'").run().changes;
      expect(changed).toBe(1);
    } finally {
      other.close();
    }
    const after = await read();
    expect(after.length).toBe(before.length);
    expect(after.map((a) => a.actionType)).toContain('changed-elsewhere');
    expect(after.map((a) => a.actionType)).not.toContain('a1');
  });

  it('keeps answers apart per API key', async () => {
    const other = await createWorkspace(t);
    const mine = await read();
    expect(mine.length).toBeGreaterThan(0);
    const theirs = await t.callK<Partial<Success<ActivityItem[]>>>('/v2/activities/get', { organizationId: 'rc', documentId: 'd' }, other.headersK);
    expect(theirs.status === 404 || (theirs.body.result?.data ?? []).length === 0).toBe(true);
    expect(await read()).toEqual(mine);
  });

  it('is bounded by bytes, oldest first, and off at 0', () => {
    const sqlite = new Database(':memory:');
    try {
      const stamp = changeStampOf(sqlite);
      const cache = new ResponseCache(() => stamp.current(), 64 * 1024);
      const answer = Buffer.from('x'.repeat(2000));
      for (let i = 0; i < 100; i++) cache.set(`k${i}`, answer, cache.stamp());
      // 64 KiB holds 32 answers of 2,000 bytes and their keys, not more
      expect(cache.size).toBeGreaterThanOrEqual(30);
      expect(cache.size).toBeLessThanOrEqual(32);
      expect(cache.get('k0')).toBeUndefined();
      expect(cache.get('k99')).toBe(answer);
      // an answer computed while something was written is not kept
      const before = cache.stamp();
      sqlite.exec('CREATE TABLE w (x); INSERT INTO w VALUES (1)');
      cache.set('late', answer, before);
      expect(cache.get('late')).toBeUndefined();
      expect(cache.get('k99')).toBeUndefined();
      expect(new ResponseCache(() => stamp.current(), 0).enabled).toBe(false);
    } finally {
      sqlite.close();
    }
  });
});

describe('the response cache turned off', () => {
  it('computes every answer', async () => {
    const off = await startTestServer({ responseCacheMb: 0 });
    try {
      await off.callK('/v2/organizations/documents/add', { organizationId: 'rc', createOrganization: true, documents: [{ documentId: 'd' }] });
      await off.callK('/v2/activities/add', activity(1));
      const res = await off.callK('/v2/activities/get', { organizationId: 'rc', documentId: 'd' });
      expect(res.status).toBe(200);
      expect(off.server.app.responses.size).toBe(0);
    } finally {
      await off.close();
    }
  });
});
