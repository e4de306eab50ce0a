import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, eventually, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';
import { connectYjs } from '../../helpers/yjs.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  for (const editorId of ['a', 'b', 'c']) await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'doc', editorId, type: 'text', data: editorId });
});
afterAll(() => t.close());

const editors = async () => dataOf<Array<{ id: string }>>(await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc' })).map((d) => d.id);

describe('/v2/crdt/delete', () => {
  it('deletes the named editors and disconnects their clients', async () => {
    const client = connectYjs(
      t.url,
      { organizationId: 'acme', documentId: 'doc', editorId: 'a' },
      { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken },
    );
    await client.synced;
    const closed = new Promise((resolve) => client.provider.ws?.addEventListener('close', resolve));
    const res = await t.callK('/v2/crdt/delete', { organizationId: 'acme', documentId: 'doc', editorIds: ['a', 'ghost'] });
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'CRDT data deleted successfully.',
      data: { a: { success: true, message: 'CRDT data deleted.' }, ghost: { success: false, message: 'No CRDT data found for this editor ID.' } },
    });
    await closed;
    client.close();
    expect(await editors()).toEqual(['b', 'c']);
  });

  it("deletes every editor without editorIds; another key's data is untouched", async () => {
    const other = await createWorkspace(t);
    await t.callPublic('/v2/crdt/delete', { organizationId: 'acme', documentId: 'doc' }, other.headersK);
    expect(await editors()).toEqual(['b', 'c']);
    await t.callK('/v2/crdt/delete', { organizationId: 'acme', documentId: 'doc' });
    await eventually(async () => expect(await editors()).toEqual([]));
  });
});
