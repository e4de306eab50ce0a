// Recordings' attachments in a cluster (issue 31): the bytes are in PostgreSQL (attachment_blobs), not in the
// data dir of the instance that received them, so every instance serves every attachment; a delete through one
// instance stops them being served by all; and an instance's sweep leaves alone bytes another instance stored a
// moment ago for a unit of work that has not committed yet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { describeRecording } from '../../server/services/recordings.ts';
import { sweepOrphanAttachments } from '../../server/services/recordings.ts';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { b64, PNG, WEBM } from '../helpers/media.ts';
import { dataOf, type TestServer } from '../helpers/server.ts';

let cluster: Cluster;
let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  cluster = await startCluster(2);
  [a, b] = cluster.instances as [TestServer, TestServer];
  await a.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
});
afterAll(() => cluster?.close());

/** The attachment's path, fetched from an instance. */
const fetchFrom = async (instance: TestServer, url: string) => {
  const res = await fetch(`${instance.url}${new URL(url).pathname}`);
  return res.status === 200 ? { type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) } : res.status;
};

describe('recordings across instances', () => {
  it('an attachment received by one instance is served by every instance, until a delete through another', async () => {
    const added = dataOf<ReturnType<typeof describeRecording>>(
      await a.callK('/v2/recordings/add', {
        organizationId: 'acme',
        documentId: 'doc',
        recording: {
          recordingId: 'rec',
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
    const [webm, png] = added.attachments.map((x) => x.url) as [string, string];
    for (const instance of [a, b]) {
      expect(await fetchFrom(instance, webm)).toEqual({ type: 'video/webm', bytes: WEBM });
      expect(await fetchFrom(instance, png)).toEqual({ type: 'image/png', bytes: PNG });
    }
    // nothing of it on either instance's disk
    for (const instance of [a, b]) expect(instance.server.app.storage.attachments.kind).toBe('database');

    const deleted = await b.callK('/v2/recordings/delete', { organizationId: 'acme', recordingIds: ['rec'] });
    expect(deleted.status).toBe(200);
    for (const instance of [a, b]) expect(await fetchFrom(instance, png)).toBe(404);
    expect(await a.server.app.storage.attachments.get(new URL(png).pathname.split('/').pop() as string)).toBeUndefined();
  });

  it("an instance's sweep leaves alone bytes another instance stored a moment ago", async () => {
    // stored by b for a unit of work still running (or whose instance died in between)
    const key = 'P'.repeat(32);
    await b.server.app.storage.attachments.put([{ key, bytes: Buffer.from('in flight') }]);
    expect(await sweepOrphanAttachments(a.server.app)).toBe(0);
    expect(await b.server.app.storage.attachments.get(key)).toEqual(Buffer.from('in flight'));
    // past the grace, nothing will record it any more: swept
    expect(await sweepOrphanAttachments(a.server.app, Date.now() + 11 * 60_000)).toBe(1);
    expect(await b.server.app.storage.attachments.get(key)).toBeUndefined();
  });
});
