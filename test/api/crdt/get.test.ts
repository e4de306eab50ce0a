import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, eventually, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';
import { connectYjs } from '../../helpers/yjs.ts';

/** An editor's content as crdt/get answers it. */
interface Editor<D = unknown> {
  id: string;
  data: D;
}

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
    expect(resultOf(all).message).toBe('CRDT data retrieved successfully.');
    expect(dataOf<Editor[]>(all).map((d) => [d.id, d.data])).toEqual([
      ['a', { x: 1 }],
      ['b', 'B'],
    ]);
    const one = await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc', editorId: 'b' });
    expect(dataOf(one)).toEqual([
      { data: 'B', id: 'b', type: 'text', contentKey: 'content', lastUpdate: expect.any(String), lastUpdatedBy: 'rest-api', sessionId: null },
    ]);
  });

  it('reads the same content after a restart (from the stored log)', async () => {
    await t.restart();
    const res = await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc', editorId: 'a' });
    expect(dataOf<Editor[]>(res)[0]!.data).toEqual({ x: 1 });
  });

  it('reads bigints a client stored as decimal strings (JSON has none), and updates around them', async () => {
    await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'doc', editorId: 'big', type: 'map', data: { x: 1 } });
    const client = connectYjs(
      t.url,
      { organizationId: 'acme', documentId: 'doc', editorId: 'big' },
      { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken },
    );
    try {
      await client.synced;
      client.doc.getMap('content').set('n', 1234567890123456789n as never);
      client.doc.getMap('content').set('list', [1n, { deep: -2n }] as never);
      const read = () => t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc', editorId: 'big' });
      const got = await eventually(async () => {
        const res = await read();
        if (dataOf<Array<Editor<Record<string, unknown>>>>(res)[0]?.data.list === undefined) throw new Error('not stored yet');
        return res;
      });
      expect(got.status).toBe(200);
      expect(dataOf<Editor[]>(got)[0]!.data).toEqual({ x: 1, n: '1234567890123456789', list: ['1', { deep: '-2' }] });
      const updated = await t.callK('/v2/crdt/update', {
        organizationId: 'acme',
        documentId: 'doc',
        editorId: 'big',
        type: 'map',
        data: { x: 2, n: '1234567890123456789' },
      });
      expect(updated.status).toBe(200);
      expect(dataOf<Editor[]>(await read())[0]!.data).toEqual({ x: 2, n: '1234567890123456789' });
    } finally {
      client.close();
    }
  });

  it('validates the input and keeps API keys apart', async () => {
    expect(errorOf(await t.callK('/v2/crdt/get', { documentId: 'doc' }))).toEqual({ status: 'INVALID_ARGUMENT', message: 'Organization ID is required' });
    const other = await createWorkspace(t);
    expect(dataOf(await t.callPublic('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc' }, other.headersK))).toEqual([]);
  });
});
