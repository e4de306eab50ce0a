// A websocket room's ids and content key come from its URL, not from a body: U+0000 there is refused on both engines
// as it is in a body (issue 43, docs/decisions.md "Parity of the two engines"), where PostgreSQL failed to store the
// room (503) and SQLite stored it. This file runs under `npm test` and `npm run test:pg`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs, upgradeAnswer, upgradeStatus } from '../helpers/yjs.ts';

let t: TestServer;
let creds: string;
beforeAll(async () => {
  t = await startTestServer();
  creds = `apiKey=${t.credentials.apiKey}&authToken=${t.credentials.authToken}`;
});
afterAll(() => t.close());

describe('a room URL holding U+0000', () => {
  it('is refused with the field named, and no room is stored', async () => {
    expect(await upgradeAnswer(t.url, `/yjs/acme/d%00c/x?${creds}`)).toEqual({ status: 400, body: 'documentId must not contain the NUL character (U+0000).' });
    expect(await upgradeAnswer(t.url, `/yjs/acme/doc/x?contentKey=a%00b&${creds}`)).toEqual({
      status: 400,
      body: 'contentKey must not contain the NUL character (U+0000).',
    });
    expect(await t.query('SELECT document_id FROM crdt_documents')).toEqual([]);
    // the same room without it opens
    expect(await upgradeStatus(t.url, `/yjs/acme/doc/x?contentKey=ab&${creds}`)).toBe(101);
  });

  it('is never learned as a room’s content key from a root a client named with it', async () => {
    const client = connectYjs(
      t.url,
      { organizationId: 'acme', documentId: 'doc', editorId: 'learned' },
      { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken },
    );
    try {
      await client.synced;
      client.doc.transact(() => {
        client.doc.getText('a\u0000b').insert(0, 'not this');
        client.doc.getText('plain').insert(0, 'this');
      });
      await eventually(async () => {
        const [item] = dataOf<Array<{ contentKey: string; data: unknown }>>(
          await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc', editorId: 'learned' }),
        );
        expect(item).toMatchObject({ contentKey: 'plain', data: 'this' });
      });
    } finally {
      client.close();
    }
  });
});
