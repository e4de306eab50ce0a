import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { b64, PNG, WEBM } from '../../helpers/media.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
});
afterAll(() => t.close());

const recording = (extra: Record<string, unknown> = {}) => ({
  recordingType: 'screen',
  displayName: 'Walkthrough',
  from: { userId: 'ann', name: 'Ann' },
  recordedTime: { duration: 3_723_000 },
  attachments: [{ name: 'rec.webm', mimeType: 'video/webm', data: b64(WEBM) }, { name: 'thumb.png', mimeType: 'image/png', data: b64(PNG) }],
  ...extra,
});
const add = (rec: Record<string, unknown>, extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  t.callK('/v2/recordings/add', { organizationId: 'acme', documentId: 'doc', recording: rec, ...extra }, headers);
const files = () => {
  try {
    return readdirSync(join(t.dataDir, 'attachments')).length;
  } catch {
    return 0;
  }
};

describe('/v2/recordings/add', () => {
  it('stores the recording and serves its attachments back byte for byte', async () => {
    const res = await add(recording({ recordingId: 'rec-1' }));
    expect(res.status).toBe(200);
    expect(res.body.result.message).toBe('Recording added successfully.');
    const data = res.body.result.data;
    expect(data).toMatchObject({ type: 'recorder', annotationId: 'rec-1', recordingType: 'screen', mode: 'floating', displayName: 'Walkthrough', recordedTime: { duration: 3_723_000, display: '01:02:03' }, latestVersion: 1, metadata: { apiKey: t.credentials.apiKey, documentId: 'doc', organizationId: 'acme' } });
    expect(data.attachments.map((a: any) => [a.attachmentId, a.name, a.mimeType, a.type, a.size, a.version])).toEqual([[1, 'rec.webm', 'video/webm', 'video', WEBM.length, 1], [2, 'thumb.png', 'image/png', 'image', PNG.length, 1]]);
    const served = await fetch(data.attachments[0].url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('video/webm');
    expect(Buffer.from(await served.arrayBuffer()).equals(WEBM)).toBe(true);
  });

  it('adds a new version to an existing recording, keeping the earlier attachments', async () => {
    const res = await add(recording({ recordingId: 'rec-1', recordedTime: { duration: 5000 }, attachments: [{ name: 'v2.webm', mimeType: 'video/webm', data: b64(WEBM) }] }));
    expect(res.body.result.data).toMatchObject({ latestVersion: 2, recordedTime: { duration: 5000, display: '00:00:05' } });
    expect(res.body.result.data.attachments.map((a: any) => [a.attachmentId, a.version])).toEqual([[1, 1], [2, 1], [3, 2]]);
    const activities = (await t.callK('/v2/activities/get', { organizationId: 'acme', featureTypes: ['recorder'], order: 'asc' })).body.result.data;
    expect(activities.map((a: any) => [a.actionType, a.targetEntityId])).toEqual([['recorder.add', 'rec-1'], ['recorder.update', 'rec-1']]);
  });

  it('checks attachments: base64, size, MIME type and the bytes matching it; a refused add leaves no file', async () => {
    const before = files();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'x', mimeType: 'video/webm', data: 'not base64!' }, 'recording.attachments[0].data is not valid base64.'],
      [{ name: 'x', mimeType: 'video/webm', data: b64(PNG) }, 'recording.attachments[0] is not a valid video/webm file.'],
      [{ name: 'x', mimeType: 'application/zip', data: b64(PNG) }, 'recording.attachments[0].mimeType must be one of: video/webm, video/mp4, audio/webm, audio/ogg, audio/mpeg, audio/wav, image/png, image/jpeg, image/webp, image/gif.'],
    ];
    for (const [attachment, message] of cases) {
      const res = await add(recording({ attachments: [attachment] }));
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: { status: 'INVALID_ARGUMENT', message } });
    }
    // a valid file with a missing document: refused after the file was written, which is then removed
    expect((await add(recording(), { documentId: 'nope' })).status).toBe(404);
    expect(files()).toBe(before);
  });

  it('refuses an attachment over 8 MiB (with a body limit that lets it through)', async () => {
    const big = await startTestServer({ maxBodyBytes: 16 * 1024 * 1024 });
    try {
      await big.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
      const res = await big.callK('/v2/recordings/add', { organizationId: 'acme', documentId: 'doc', recording: recording({ attachments: [{ name: 'x', mimeType: 'image/png', data: b64(Buffer.concat([PNG, Buffer.alloc(8 * 1024 * 1024)])) }] }) });
      expect(res.body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'recording.attachments[0] is larger than 8388608 bytes.' });
    } finally {
      await big.close();
    }
  });

  it('validates the rest and keeps API keys apart', async () => {
    expect((await add(recording({ recordedTime: {} }))).body.error.message).toBe('recording.recordedTime.duration is required.');
    expect((await add(recording({ recordingType: 'hologram' }))).body.error.message).toBe('recording.recordingType must be one of: screen, video, audio.');
    const other = await createWorkspace(t);
    expect((await add(recording(), {}, other.headersK)).status).toBe(404);
  });
});
