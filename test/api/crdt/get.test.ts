import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'doc', editorId: 'b', type: 'text', data: 'B' });
  await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'doc', editorId: 'a', type: 'map', data: { x: 1 } });
  await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'other', editorId: 'a', type: 'text', data: 'other doc' });
});
afterAll(() => t.close());

describe('/v2/crdt/get', () => {
  it('returns every editor of the document without editorId, one with it', async () => {
    const all = await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc' });
    expect(all.body.result.message).toBe('CRDT data retrieved successfully.');
    expect(all.body.result.data.map((d: any) => [d.id, d.data])).toEqual([['a', { x: 1 }], ['b', 'B']]);
    const one = await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc', editorId: 'b' });
    expect(one.body.result.data).toEqual([{ data: 'B', id: 'b', type: 'text', contentKey: 'content', lastUpdate: expect.any(String), lastUpdatedBy: 'rest-api', sessionId: null }]);
  });

  it('reads the same content after a restart (from the stored log)', async () => {
    await t.restart();
    const res = await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc', editorId: 'a' });
    expect(res.body.result.data[0].data).toEqual({ x: 1 });
  });

  it('validates the input and keeps API keys apart', async () => {
    expect((await t.callK('/v2/crdt/get', { documentId: 'doc' })).body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'organizationId is required.' });
    const other = await createWorkspace(t);
    expect((await t.callPublic('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc' }, other.headersK)).body.result.data).toEqual([]);
  });
});
