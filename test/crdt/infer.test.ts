import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { dataOf, errorOf, eventually, resultOf, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';

/** crdt/get's data: one item per editor, its content decoded by type. */
interface CrdtItem {
  data: unknown;
  type: string;
  contentKey: string;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ crdtIdleMs: 200 });
});
afterAll(() => t.close());

const room = (editorId: string) => ({ organizationId: 'acme', documentId: 'doc', editorId });
const params = (extra: Record<string, string> = {}) => ({ apiKey: t.credentials.apiKey, authToken: t.credentials.authToken, ...extra });
const get = async (editorId: string) => {
  const answer = await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc', editorId });
  expect(answer.status).toBe(200);
  return dataOf<CrdtItem[]>(answer)[0]!;
};

/** Opens a room with a real y-websocket client, lets `write` change its doc, and waits until the server stored it. */
async function written(editorId: string, extra: Record<string, string>, write: (doc: Y.Doc) => void, expected: unknown) {
  const client = connectYjs(t.url, room(editorId), params(extra));
  try {
    await client.synced;
    write(client.doc);
    await eventually(async () => expect((await get(editorId)).data).toEqual(expected));
  } finally {
    client.close();
  }
}

describe('a room opened over y-websocket without type or contentKey', () => {
  it('learns a TipTap editor’s XmlFragment `default` from what the client writes, and keeps it across an unload', async () => {
    await written(
      'tiptap',
      {},
      (doc) => {
        const paragraph = new Y.XmlElement('paragraph');
        paragraph.insert(0, [new Y.XmlText('Hello from the editor')]);
        doc.getXmlFragment('default').insert(0, [paragraph]);
      },
      '<paragraph>Hello from the editor</paragraph>',
    );
    expect(await get('tiptap')).toMatchObject({ type: 'xml', contentKey: 'default' });
    // a new server on the same data dir reads it back from SQLite: the learned type and key were stored
    await t.restart({ crdtIdleMs: 200 });
    expect(await get('tiptap')).toMatchObject({ type: 'xml', contentKey: 'default', data: '<paragraph>Hello from the editor</paragraph>' });

    // REST now edits what the editor shows: a connected client receives the update
    const client = connectYjs(t.url, room('tiptap'), params());
    try {
      await client.synced;
      const update = await t.callK('/v2/crdt/update', {
        organizationId: 'acme',
        documentId: 'doc',
        editorId: 'tiptap',
        type: 'xml',
        contentKey: 'default',
        data: '<paragraph>Rewritten by REST</paragraph>',
      });
      expect(resultOf<unknown>(update)).toEqual({ status: 'success', message: 'CRDT data updated successfully.' });
      await eventually(() => expect(client.doc.getXmlFragment('default').toString()).toBe('<paragraph>Rewritten by REST</paragraph>'));
    } finally {
      client.close();
    }
  });

  it('learns a map, an array and a text, each under the root the client used', async () => {
    await written('map', {}, (doc) => doc.getMap('settings').set('theme', 'dark'), { theme: 'dark' });
    expect(await get('map')).toMatchObject({ type: 'map', contentKey: 'settings' });
    await written('array', {}, (doc) => doc.getArray('content').push([1, 'two']), [1, 'two']);
    expect(await get('array')).toMatchObject({ type: 'array', contentKey: 'content' });
    await written('text', {}, (doc) => doc.getText('notes').insert(0, 'plain'), 'plain');
    expect(await get('text')).toMatchObject({ type: 'text', contentKey: 'notes' });
  });

  it('picks `default` among several roots, and keeps the first choice when other roots come later', async () => {
    await written(
      'several',
      {},
      (doc) => {
        doc.transact(() => {
          doc.getMap('meta').set('title', 'T');
          doc.getXmlFragment('default').insert(0, [new Y.XmlElement('hr')]);
        });
      },
      '<hr></hr>',
    );
    await written('several', {}, (doc) => doc.getArray('aaa').push([1]), '<hr></hr>');
    expect(await get('several')).toMatchObject({ type: 'xml', contentKey: 'default' });
  });

  it('reads as empty text before anything is written, without spoiling what comes later', async () => {
    const client = connectYjs(t.url, room('early'), params({ contentKey: 'content' }));
    try {
      await client.synced;
      expect(await get('early')).toMatchObject({ data: '', type: 'text', contentKey: 'content' });
      // written after a REST read of the same key: still learned as XML
      client.doc.getXmlFragment('content').insert(0, [new Y.XmlElement('p')]);
      await eventually(async () => expect(await get('early')).toMatchObject({ data: '<p></p>', type: 'xml', contentKey: 'content' }));
    } finally {
      client.close();
    }
  });
});

describe('a room opened with part of it said', () => {
  it('with type only, learns the key; with contentKey only, learns the type and ignores other roots', async () => {
    await written('type-only', { type: 'xml' }, (doc) => doc.getXmlFragment('default').insert(0, [new Y.XmlText('t')]), 't');
    expect(await get('type-only')).toMatchObject({ type: 'xml', contentKey: 'default' });
    await written(
      'key-only',
      { contentKey: 'body' },
      (doc) => {
        doc.getText('elsewhere').insert(0, 'ignored');
        doc.getMap('body').set('k', 1);
      },
      { k: 1 },
    );
    expect(await get('key-only')).toMatchObject({ type: 'map', contentKey: 'body' });
  });

  it('with both, keeps them: content under another root stays out of REST', async () => {
    await written('both', { type: 'text', contentKey: 'content' }, (doc) => doc.getMap('other').set('k', 1), '');
    await t.callK('/v2/crdt/update', { organizationId: 'acme', documentId: 'doc', editorId: 'both', type: 'text', data: 'set by REST' });
    expect(await get('both')).toMatchObject({ type: 'text', contentKey: 'content', data: 'set by REST' });
  });
});

describe('REST on a room no client has written to yet', () => {
  it('crdt/update says the type and key, and a later client edit keeps them', async () => {
    const client = connectYjs(t.url, room('rest-first'), params());
    try {
      await client.synced;
      const update = await t.callK('/v2/crdt/update', {
        organizationId: 'acme',
        documentId: 'doc',
        editorId: 'rest-first',
        type: 'map',
        contentKey: 'state',
        data: { a: 1 },
      });
      expect(update.status).toBe(200);
      await eventually(() => expect(client.doc.getMap('state').toJSON()).toEqual({ a: 1 }));
      client.doc.getText('content').insert(0, 'not the content');
      client.doc.getMap('state').set('b', 2);
      await eventually(async () => expect(await get('rest-first')).toMatchObject({ type: 'map', contentKey: 'state', data: { a: 1, b: 2 } }));
      // settled: another type is refused as for any editor
      const wrong = await t.callK('/v2/crdt/update', { organizationId: 'acme', documentId: 'doc', editorId: 'rest-first', type: 'text', data: 'x' });
      expect(wrong.status).toBe(400);
      expect(errorOf(wrong).status).toBe('INVALID_ARGUMENT');
    } finally {
      client.close();
    }
  });

  it('crdt/add still finds the room taken (ALREADY_EXISTS)', async () => {
    const client = connectYjs(t.url, room('taken'), params());
    try {
      await client.synced;
      const add = await t.callK('/v2/crdt/add', {
        organizationId: 'acme',
        documentId: 'doc',
        editorId: 'taken',
        type: 'xml',
        contentKey: 'default',
        data: '<p/>',
      });
      expect(errorOf(add)).toMatchObject({ status: 'ALREADY_EXISTS', message: 'CRDT data already exists for this editor ID.' });
    } finally {
      client.close();
    }
  });
});
