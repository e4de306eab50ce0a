// Where recordings' attachment bytes live (db/repos/attachments.ts): files of the data dir on SQLite, rows of
// attachment_blobs on PostgreSQL (so that every instance of a cluster serves them; test/cluster/attachments.test.ts).
// On either engine: the bytes are served back through GET /attachments/<key>; bytes no row points at (a crash
// between the store and the commit, a deleted document's) are swept, but only once older than the unit of work that
// could still record them; and a server's start sweeps what its previous run left.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { describeRecording } from '../../../server/services/recordings.ts';
import { sweepOrphanAttachments } from '../../../server/services/recordings.ts';
import { b64, PNG, WEBM } from '../../helpers/media.ts';
import { dataOf, startTestServer, type TestServer } from '../../helpers/server.ts';

type Added = ReturnType<typeof describeRecording> & { recordingId: string };

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [{ documentId: 'kept' }, { documentId: 'gone' }],
  });
});
afterAll(() => t.close());

const store = () => t.server.app.storage.attachments;
const add = async (documentId: string) =>
  dataOf<Added>(
    await t.callK('/v2/recordings/add', {
      organizationId: 'acme',
      documentId,
      recording: {
        recordingType: 'screen',
        from: { userId: 'ann' },
        recordedTime: { duration: 1000 },
        attachments: [
          { name: 'rec.webm', mimeType: 'video/webm', data: b64(WEBM) },
          { name: 'thumb.png', mimeType: 'image/png', data: b64(PNG) },
        ],
      },
    }),
  );
const keyOf = (url: string) => url.split('/').pop() as string;
const served = async (url: string) => {
  const res = await fetch(url);
  return res.status === 200 ? Buffer.from(await res.arrayBuffer()) : res.status;
};

describe('the attachment store', () => {
  it('keeps the bytes where the engine keeps them, and serves them back', async () => {
    expect(store().kind).toBe(t.server.app.storage.engine.kind === 'postgres' ? 'database' : 'files');
    const recording = await add('kept');
    const [webm, png] = recording.attachments;
    expect(await served(webm!.url)).toEqual(WEBM);
    expect(await served(png!.url)).toEqual(PNG);
    expect(await store().get(keyOf(png!.url))).toEqual(PNG);
    expect(await store().get('B'.repeat(32))).toBeUndefined();
  });

  it('sweeps bytes no row points at once they are older than the grace, and only those', async () => {
    const kept = (await add('kept')).attachments.map((a) => keyOf(a.url));
    const gone = (await add('gone')).attachments.map((a) => keyOf(a.url));
    // bytes stored by a request whose unit of work never committed (its instance died in between)
    const orphan = 'O'.repeat(32);
    await store().put([{ key: orphan, bytes: Buffer.from('left behind') }]);
    // the document's delete drops its rows; its bytes stay until a sweep, and are no longer served
    await t.callK('/v2/organizations/documents/delete', { organizationId: 'acme', documentIds: ['gone'] });
    expect(await served(`${t.url}/attachments/${gone[0]}`)).toBe(404);
    // stored after the cut: left alone (a unit of work may still record them)
    expect(await store().sweep(Date.now() - 60_000)).toBe(0);
    expect(await store().get(orphan)).toEqual(Buffer.from('left behind'));
    const removed = await store().sweep(Date.now() + 1_000);
    expect(removed).toBe(3);
    for (const key of [orphan, ...gone]) expect(await store().get(key)).toBeUndefined();
    for (const key of kept) expect(await store().get(key)).toBeDefined();
    // an instance of a cluster sweeps with the grace, the database's only instance everything
    await store().put([{ key: orphan, bytes: Buffer.from('again') }]);
    expect(await sweepOrphanAttachments({ storage: t.server.app.storage, cluster: {} })).toBe(0);
    expect(await sweepOrphanAttachments({ storage: t.server.app.storage }, Date.now() + 1_000)).toBe(1);
  });

  it("a server's start sweeps what its previous run left behind", async () => {
    const orphan = 'R'.repeat(32);
    await store().put([{ key: orphan, bytes: Buffer.from('from the last run') }]);
    const recording = await add('kept');
    await t.restart();
    expect(await store().get(orphan)).toBeUndefined();
    expect(await served(recording.attachments[0]!.url.replace(/^http:\/\/[^/]+/, t.url))).toEqual(WEBM);
  });

  it('a failed add removes the bytes it stored', async () => {
    const res = await t.callK('/v2/recordings/add', {
      organizationId: 'acme',
      documentId: 'missing',
      recording: {
        recordingType: 'audio',
        from: { userId: 'ann' },
        recordedTime: { duration: 1 },
        attachments: [{ name: 'a', mimeType: 'image/png', data: b64(PNG) }],
      },
    });
    expect(res.status).toBe(404);
    // nothing left for a sweep to find: the add removed what it stored
    expect(await store().sweep(Date.now() + 1_000)).toBe(0);
  });
});
