import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { b64, PNG, WEBM } from '../../helpers/media.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';
import type { describeRecording } from '../../../server/services/recordings.ts';
import type { Outcomes } from '../../../server/services/organizations.ts';
import type { ActivityRecord } from '../../helpers/comments.ts';

/** A recording as recordings/get (and, with its id, recordings/add) answers it. */
type Recording = ReturnType<typeof describeRecording>;

let t: TestServer;
let url: string;
const keyOf = (url: string) => url.split('/').pop() as string;
/** Whether the attachment's bytes are stored: a file of the data dir on SQLite, a row of the database on PostgreSQL. */
const stored = async (key: string) => (await t.server.app.storage.attachments.get(key)) !== undefined;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  const res = await t.callK('/v2/recordings/add', {
    organizationId: 'acme',
    documentId: 'doc',
    recording: {
      recordingId: 'r1',
      recordingType: 'video',
      from: { userId: 'ann' },
      recordedTime: { duration: 1 },
      attachments: [{ name: 'v.webm', mimeType: 'video/webm', data: b64(WEBM) }],
    },
  });
  url = dataOf<Recording>(res).attachments[0]!.url;
});
afterAll(() => t.close());

describe('/v2/recordings/delete', () => {
  it('deletes rows and files; the URL stops serving; records recorder.delete', async () => {
    const other = await createWorkspace(t);
    expect(dataOf<Outcomes>(await t.callPublic('/v2/recordings/delete', { organizationId: 'acme', recordingIds: ['r1'] }, other.headersK)).r1!.success).toBe(
      false,
    );
    expect((await fetch(url)).status).toBe(200);
    const res = await t.callK('/v2/recordings/delete', { organizationId: 'acme', recordingIds: ['r1', 'ghost'] });
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Recording(s) deleted successfully.',
      data: { r1: { success: true, message: 'Recording deleted.' }, ghost: { success: false, message: 'Recording does not exist.' } },
    });
    expect((await fetch(url)).status).toBe(404);
    expect(await stored(keyOf(url))).toBe(false);
    const activities = dataOf<ActivityRecord[]>(await t.callK('/v2/activities/get', { organizationId: 'acme', featureTypes: ['recorder'] }));
    expect(activities[0]).toMatchObject({ actionType: 'recorder.delete', targetEntityId: 'r1' });
  });

  it('removes the bytes of a deleted document at the next start', async () => {
    const res = await t.callK('/v2/recordings/add', {
      organizationId: 'acme',
      documentId: 'doc',
      recording: {
        recordingType: 'video',
        from: { userId: 'ann' },
        recordedTime: { duration: 1 },
        attachments: [{ name: 'v.webm', mimeType: 'video/webm', data: b64(WEBM) }],
      },
    });
    const key = dataOf<Recording>(res).attachments[0]!.url.split('/').pop()!;
    await t.callK('/v2/organizations/documents/delete', { organizationId: 'acme', documentIds: ['doc'] });
    expect(await stored(key)).toBe(true);
    await t.restart();
    expect(await stored(key)).toBe(false);
  });

  it('validates the input', async () => {
    expect(errorOf(await t.callK('/v2/recordings/delete', { organizationId: 'acme' })).message).toBe('recordingIds is required.');
  });
});

describe('/v2/recordings/delete: every version, activities, isolation', () => {
  const addRec = (recordingId: string, from: Record<string, string>, headers?: Record<string, string>) =>
    (headers ? (path: string, data: unknown) => t.callPublic(path, data, headers) : t.callK)('/v2/recordings/add', {
      organizationId: 'acme',
      documentId: 'doc2',
      createDocument: true,
      createOrganization: true,
      recording: {
        recordingId,
        recordingType: 'screen',
        from,
        recordedTime: { duration: 1000 },
        attachments: [
          { name: 'v.webm', mimeType: 'video/webm', data: b64(WEBM) },
          { name: 'p.png', mimeType: 'image/png', data: b64(PNG) },
        ],
      },
    });

  it('removes every version: rows (gone from get), the served files and the files on disk', async () => {
    await addRec('multi', { userId: 'cy', name: 'Cy' });
    const v2 = dataOf<Recording>(await addRec('multi', { userId: 'dee' }));
    await addRec('keep', { userId: 'cy' });
    expect(v2.latestVersion).toBe(2);
    const urls: string[] = v2.attachments.map((a) => a.url);
    expect(urls).toHaveLength(4);
    for (const url of urls) expect(await stored(keyOf(url))).toBe(true);

    const res = await t.callK('/v2/recordings/delete', { organizationId: 'acme', recordingIds: ['multi', 'multi'] });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Recording(s) deleted successfully.',
      data: { multi: { success: true, message: 'Recording deleted.' } },
    });
    for (const url of urls) {
      expect(await stored(keyOf(url))).toBe(false);
      const served = await fetch(url);
      expect(served.status).toBe(404);
      expect(await served.text()).toBe('Not Found');
    }
    const left = await t.callK('/v2/recordings/get', { organizationId: 'acme', documentId: 'doc2' });
    expect(dataOf<Recording[]>(left).map((r) => r.annotationId)).toEqual(['keep']);
    const again = await t.callK('/v2/recordings/delete', { organizationId: 'acme', recordingIds: ['multi'] });
    expect(dataOf(again)).toEqual({ multi: { success: false, message: 'Recording does not exist.' } });
  });

  it('records recorder.delete in the name of the recording author', async () => {
    const res = await t.callK('/v2/activities/get', { organizationId: 'acme', featureTypes: ['recorder'], targetEntityId: 'multi' });
    // (sorted by action: calls within one millisecond share a timestamp)
    const rank = ['recorder.add', 'recorder.update', 'recorder.delete'];
    const byAction = [...dataOf<ActivityRecord[]>(res)].sort((a, b) => rank.indexOf(a.actionType) - rank.indexOf(b.actionType));
    expect(byAction.map((a) => a.actionType)).toEqual(rank);
    expect(byAction[2]).toMatchObject({
      featureType: 'recorder',
      actionUser: { userId: 'cy', name: 'Cy' },
      targetEntityId: 'multi',
      displayMessageTemplate: '{{actionUser}} deleted a recording',
      displayMessageTemplateData: { actionUser: 'Cy' },
      metadata: { apiKey: t.credentials.apiKey, documentId: 'doc2', organizationId: 'acme' },
    });
    // a failed delete (unknown id) records nothing
    const ghost = await t.callK('/v2/activities/get', { organizationId: 'acme', targetEntityId: 'ghost' });
    expect(dataOf(ghost)).toEqual([]);
  });

  it('another API key can neither delete these recordings nor touch their files; its own are separate', async () => {
    const other = await createWorkspace(t);
    const theirs = dataOf<Recording>(await addRec('keep', { userId: 'eve' }, other.headersK));
    const mine = dataOf<Recording[]>(await t.callK('/v2/recordings/get', { organizationId: 'acme', recordingIds: ['keep'] }))[0]!;
    const res = await t.callPublic('/v2/recordings/delete', { organizationId: 'acme', recordingIds: ['keep', 'r1'] }, other.headersK);
    expect(dataOf(res)).toEqual({
      keep: { success: true, message: 'Recording deleted.' },
      r1: { success: false, message: 'Recording does not exist.' },
    });
    expect((await fetch(theirs.attachments[0]!.url)).status).toBe(404);
    // the first key's recording of the same id is still there, files included
    const still = await t.callK('/v2/recordings/get', { organizationId: 'acme', recordingIds: ['keep'] });
    expect(dataOf(still)).toEqual([mine]);
    for (const a of mine.attachments) {
      const served = await fetch(a.url);
      expect(served.status).toBe(200);
      expect(await stored(keyOf(a.url))).toBe(true);
    }
  });

  it('validates recordingIds and organizationId', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ recordingIds: ['r1'] }, 'organizationId is required.'],
      [{ organizationId: 'acme', recordingIds: [] }, 'recordingIds must have at least 1 item(s).'],
      [{ organizationId: 'acme', recordingIds: Array.from({ length: 1001 }, (_, i) => `r${i}`) }, 'recordingIds must have at most 1000 item(s).'],
    ];
    for (const [data, message] of cases) {
      const res = await t.callK('/v2/recordings/delete', data);
      expect({ status: res.status, error: errorOf(res) }).toEqual({ status: 400, error: { status: 'INVALID_ARGUMENT', message } });
    }
  });
});
