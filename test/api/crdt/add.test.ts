import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, startTestServer, type TestServer } from '../../helpers/server.ts';

/** An editor's content as crdt/get answers it. */
interface Editor {
  id: string;
  data: unknown;
  lastUpdate: string;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const add = (data: Record<string, unknown>, headers?: Record<string, string>) =>
  t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'doc', ...data }, headers);
const read = async (editorId: string, headers?: Record<string, string>) =>
  dataOf<Editor[]>(await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc', editorId }, headers))[0]!;

describe('/v2/crdt/add', () => {
  it('creates text, map, array and xml content, read back by type', async () => {
    const res = await add({ editorId: 'e-text', type: 'text', data: 'Hello world' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: { status: 'success', message: 'CRDT data added successfully.' } });
    expect(await read('e-text')).toMatchObject({
      data: 'Hello world',
      id: 'e-text',
      lastUpdatedBy: 'rest-api',
      sessionId: null,
      type: 'text',
      contentKey: 'content',
    });
    await add({ editorId: 'e-map', type: 'map', data: { title: 'T', tags: ['a'], nested: { n: 1 } } });
    expect((await read('e-map')).data).toEqual({ title: 'T', tags: ['a'], nested: { n: 1 } });
    await add({ editorId: 'e-array', type: 'array', data: [1, 'two', { three: 3 }] });
    expect((await read('e-array')).data).toEqual([1, 'two', { three: 3 }]);
    await add({
      editorId: 'e-xml',
      type: 'xml',
      contentKey: 'default',
      data: '<paragraph>Hi <bold>there</bold> &amp; you</paragraph><heading level="2">Title</heading>',
    });
    // read back as the fragment's toString() (reference §5.1), which Yjs renders without escaping text
    expect(await read('e-xml')).toMatchObject({
      contentKey: 'default',
      data: '<paragraph>Hi <bold>there</bold> & you</paragraph><heading level="2">Title</heading>',
    });
    expect(new Date((await read('e-xml')).lastUpdate).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('answers ALREADY_EXISTS when the editor has data', async () => {
    const res = await add({ editorId: 'e-text', type: 'text', data: 'again' });
    expect(res.status).toBe(409);
    expect(errorOf(res)).toEqual({ status: 'ALREADY_EXISTS', message: 'CRDT data already exists for this editor ID.' });
    expect((await read('e-text')).data).toBe('Hello world');
  });

  it('checks data against type and requires every field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ editorId: 'x', type: 'text', data: 5 }, 'Data must be a string for type text.'],
      [{ editorId: 'x', type: 'map', data: [1] }, 'Data must be an object for type map.'],
      [{ editorId: 'x', type: 'array', data: { a: 1 } }, 'Data must be an array for type array.'],
      [{ editorId: 'x', type: 'xml', data: { a: 1 } }, 'Data must be a string for type xml.'],
      [{ editorId: 'x', type: 'xml', data: '<p>open' }, 'data is not well-formed XML: <p> is not closed.'],
      [{ editorId: 'x', type: 'xml', data: '<p></q>' }, 'data is not well-formed XML: </q> does not close an open <q>.'],
      [{ editorId: 'x', type: 'json', data: 'x' }, 'type must be one of: text, map, array, xml.'],
      [{ editorId: 'x', type: 'text' }, 'data is required.'],
      [{ type: 'text', data: 'x' }, 'Editor ID is required.'],
    ];
    for (const [data, message] of cases) {
      const res = await add(data);
      expect({ data, status: res.status, error: errorOf(res) }).toEqual({ data, status: 400, error: { status: 'INVALID_ARGUMENT', message } });
    }
    expect(dataOf(await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc', editorId: 'x' }))).toEqual([]);
  });

  it('keeps API keys apart', async () => {
    const other = await createWorkspace(t);
    expect((await add({ editorId: 'e-text', type: 'text', data: 'theirs' }, other.headersK)).status).toBe(200);
    expect((await read('e-text')).data).toBe('Hello world');
    expect((await read('e-text', other.headersK)).data).toBe('theirs');
  });
  it('starts afresh when the document was deleted while its content was loaded (found by fuzzing: a 500)', async () => {
    const gone = { organizationId: 'acme', documentId: 'gone' };
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'gone' }] });
    expect((await t.callK('/v2/crdt/add', { ...gone, editorId: 'e', type: 'text', data: 'old text' })).status).toBe(200);
    expect((await t.callK('/v2/crdt/add', { ...gone, editorId: 'same', type: 'array', data: ['old'] })).status).toBe(200);
    // deleting the document removes its CRDT rows in SQL; the loaded Yjs documents must not outlive them
    expect((await t.callK('/v2/organizations/documents/delete', { organizationId: 'acme', documentIds: ['gone'] })).status).toBe(200);
    const again = await t.callK('/v2/crdt/add', { ...gone, editorId: 'e', type: 'array', data: [[1e-300, null, false], 'x'] });
    expect({ status: again.status, body: again.body }).toEqual({
      status: 200,
      body: { result: { status: 'success', message: 'CRDT data added successfully.' } },
    });
    expect((await t.callK('/v2/crdt/add', { ...gone, editorId: 'same', type: 'array', data: ['new'] })).status).toBe(200);
    const read = await t.callK('/v2/crdt/get', gone);
    expect(dataOf<Editor[]>(read).map((d) => [d.id, d.data])).toEqual([
      ['e', [[1e-300, null, false], 'x']],
      ['same', ['new']],
    ]);
  });
  it('refuses a map value or array item with its own "constructor" key, which Yjs cannot hold (found by fuzzing: a 500)', async () => {
    const data = JSON.parse('{"ok":1,"bad":{"constructor":{"prototype":{"polluted":true}}}}') as Record<string, unknown>;
    const map = await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'doc', editorId: 'ctor-map', type: 'map', data });
    expect([map.status, errorOf(map).status]).toEqual([400, 'INVALID_ARGUMENT']);
    expect(errorOf(map).message).toContain('data.bad cannot be stored');
    const list = await t.callK('/v2/crdt/add', {
      organizationId: 'acme',
      documentId: 'doc',
      editorId: 'ctor-array',
      type: 'array',
      data: [1, JSON.parse('{"constructor":2}')],
    });
    expect(errorOf(list).message).toContain('data[1] cannot be stored');
    // one level deeper it is plain JSON inside a value: stored and read back as given
    const deeper = JSON.parse('{"wrap":{"inner":{"constructor":{"x":1}}}}') as Record<string, unknown>;
    expect((await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'doc', editorId: 'ctor-deep', type: 'map', data: deeper })).status).toBe(200);
    expect((await read('ctor-deep')).data).toEqual(deeper);
  });
});
