import * as Y from 'yjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, eventually, startTestServer, type TestServer } from '../../helpers/server.ts';
import { connectYjs } from '../../helpers/yjs.ts';

/** An editor's content as crdt/get answers it. */
interface Editor {
  id: string;
  data: unknown;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const room = (editorId: string) => ({ organizationId: 'acme', documentId: 'doc', editorId });
const write = (op: 'add' | 'update', editorId: string, type: string, data: unknown, extra: Record<string, unknown> = {}) =>
  t.callK(`/v2/crdt/${op}`, { organizationId: 'acme', documentId: 'doc', editorId, type, data, ...extra });
const creds = () => ({ apiKey: t.credentials.apiKey, authToken: t.credentials.authToken });

describe('/v2/crdt/update', () => {
  it('changes only the changed range of a text, and a connected client receives it as an update', async () => {
    await write('add', 'text', 'text', 'The quick brown fox');
    const client = connectYjs(t.url, room('text'), creds());
    try {
      await client.synced;
      expect(client.doc.getText('content').toString()).toBe('The quick brown fox');
      const deltas: unknown[] = [];
      client.doc.getText('content').observe((event) => deltas.push(event.delta));
      const res = await write('update', 'text', 'text', 'The quick red fox');
      expect(res.body).toEqual({ result: { status: 'success', message: 'CRDT data updated successfully.' } });
      await eventually(() => expect(client.doc.getText('content').toString()).toBe('The quick red fox'));
      expect(deltas).toEqual([[{ retain: 10 }, { delete: 5 }, { insert: 'red' }]]);
    } finally {
      client.close();
    }
  });

  it('sets only changed keys of a map and the changed middle of an array', async () => {
    await write('add', 'map', 'map', { a: 1, b: 2, c: 3 });
    await write('add', 'array', 'array', [1, 2, 3, 4]);
    const mapClient = connectYjs(t.url, room('map'), creds());
    const arrayClient = connectYjs(t.url, room('array'), creds());
    try {
      await Promise.all([mapClient.synced, arrayClient.synced]);
      const keys: string[][] = [];
      mapClient.doc.getMap('content').observe((event) => keys.push([...event.keysChanged].sort()));
      const arrayDeltas: unknown[] = [];
      arrayClient.doc.getArray('content').observe((event) => arrayDeltas.push(event.delta));
      await write('update', 'map', 'map', { a: 1, b: 20, d: 4 });
      await write('update', 'array', 'array', [1, 9, 4]);
      await eventually(() => expect(mapClient.doc.getMap('content').toJSON()).toEqual({ a: 1, b: 20, d: 4 }));
      await eventually(() => expect(arrayClient.doc.getArray('content').toJSON()).toEqual([1, 9, 4]));
      expect(keys).toEqual([['b', 'c', 'd']]);
      expect(arrayDeltas).toEqual([[{ retain: 1 }, { insert: [9] }, { delete: 2 }]]);
    } finally {
      mapClient.close();
      arrayClient.close();
    }
  });

  it('parses xml into elements and text that a rich-text client sees as such', async () => {
    await write('add', 'xml', 'xml', '<paragraph>old</paragraph>', { contentKey: 'default' });
    const client = connectYjs(t.url, room('xml'), creds());
    try {
      await client.synced;
      await write('update', 'xml', 'xml', '<paragraph>new <italic>text</italic></paragraph>', { contentKey: 'default' });
      await eventually(() => expect(client.doc.getXmlFragment('default').toString()).toBe('<paragraph>new <italic>text</italic></paragraph>'));
      const paragraph = client.doc.getXmlFragment('default').get(0) as Y.XmlElement;
      expect(paragraph).toBeInstanceOf(Y.XmlElement);
      expect(paragraph.nodeName).toBe('paragraph');
      expect(paragraph.get(1)).toBeInstanceOf(Y.XmlElement);
    } finally {
      client.close();
    }
  });

  it('records a crdt activity for each REST change in a known organization', async () => {
    await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'acme' }] });
    await write('add', 'logged', 'text', 'one');
    await write('update', 'logged', 'text', 'two');
    const res = await t.callK('/v2/activities/get', { organizationId: 'acme', featureTypes: ['crdt'], order: 'asc' });
    expect(
      dataOf<Array<{ actionType: string; targetEntityId: string; metadata: { documentId: string } }>>(res).map((a) => [
        a.actionType,
        a.targetEntityId,
        a.metadata.documentId,
      ]),
    ).toEqual([
      ['crdt.add', 'logged', 'doc'],
      ['crdt.update', 'logged', 'doc'],
    ]);
  });

  it('converges concurrent edits of two clients and a REST update', async () => {
    await write('add', 'merge', 'text', 'middle');
    const a = connectYjs(t.url, room('merge'), creds());
    const b = connectYjs(t.url, room('merge'), creds());
    try {
      await Promise.all([a.synced, b.synced]);
      a.doc.getText('content').insert(0, 'A:');
      b.doc.getText('content').insert(6, ':B');
      await write('update', 'merge', 'text', 'middle!');
      await eventually(async () => {
        const stored = dataOf<Editor[]>(await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc', editorId: 'merge' }))[0]!.data;
        expect(a.doc.getText('content').toString()).toBe(stored);
        expect(b.doc.getText('content').toString()).toBe(stored);
        // the REST update replaces whatever content it meets; what matters is that all three agree on the merge
        expect(stored).toMatch(/middle.*!/);
      });
    } finally {
      a.close();
      b.close();
    }
  });

  it('loads and syncs a 5 MB document', async () => {
    const big = 'lorem ipsum '.repeat(440_000).slice(0, 5 * 1024 * 1024);
    await write('add', 'big', 'text', 'seed');
    // the body limit is 10 MiB: a 5 MB text goes through REST
    expect((await write('update', 'big', 'text', big)).status).toBe(200);
    await t.restart();
    const client = connectYjs(t.url, room('big'), creds());
    try {
      await client.synced;
      expect(client.doc.getText('content').length).toBe(big.length);
    } finally {
      client.close();
    }
  });

  it('answers NOT_FOUND without data, refuses another type, and keeps API keys apart', async () => {
    const missing = await write('update', 'nope', 'text', 'x');
    expect(missing.status).toBe(404);
    expect(errorOf(missing)).toEqual({ status: 'NOT_FOUND', message: 'No CRDT data found for this editor ID.' });
    expect(errorOf(await write('update', 'text', 'map', {}))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: "type must be text: this editor's data is of type text.",
    });
    // the content stays under the key it was created with: another key is refused, none writes under the stored one
    const rich = { organizationId: 'acme', documentId: 'doc', editorId: 'rich', type: 'xml' };
    expect((await t.callK('/v2/crdt/add', { ...rich, contentKey: 'default', data: '<paragraph>one</paragraph>' })).status).toBe(200);
    expect(errorOf(await t.callK('/v2/crdt/update', { ...rich, contentKey: 'content', data: '<paragraph>lost</paragraph>' }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: "contentKey must be default: this editor's data is stored under default.",
    });
    expect((await t.callK('/v2/crdt/update', { ...rich, data: '<paragraph>two</paragraph>' })).status).toBe(200);
    expect(dataOf<Editor[]>(await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc', editorId: 'rich' }))[0]).toMatchObject({
      contentKey: 'default',
      data: '<paragraph>two</paragraph>',
    });
    const unnamed = [
      [{ ...rich, editorId: undefined, data: 'x' }, 'Editor ID is required.'],
      [{ ...rich, organizationId: undefined, data: 'x' }, 'Organization ID is required.'],
      [{ ...rich, documentId: undefined, data: 'x' }, 'Document ID is required.'],
      [{ ...rich, editorId: 5, data: 'x' }, 'editorId must be a string, not a number.'],
    ] as const;
    for (const [data, message] of unnamed) expect(errorOf(await t.callK('/v2/crdt/update', data))).toEqual({ status: 'INVALID_ARGUMENT', message });
    const other = await createWorkspace(t);
    const res = await t.callPublic(
      '/v2/crdt/update',
      { organizationId: 'acme', documentId: 'doc', editorId: 'text', type: 'text', data: 'hijack' },
      other.headersK,
    );
    expect(res.status).toBe(404);
  });
});
