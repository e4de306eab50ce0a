import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { b64, WEBM } from '../../helpers/media.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
let url: string;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  const res = await t.callK('/v2/recordings/add', { organizationId: 'acme', documentId: 'doc', recording: { recordingId: 'r1', recordingType: 'video', from: { userId: 'ann' }, recordedTime: { duration: 1 }, attachments: [{ name: 'v.webm', mimeType: 'video/webm', data: b64(WEBM) }] } });
  url = res.body.result.data.attachments[0].url;
});
afterAll(() => t.close());

describe('/v2/recordings/delete', () => {
  it('deletes rows and files; the URL stops serving; records recorder.delete', async () => {
    const other = await createWorkspace(t);
    expect((await t.callPublic('/v2/recordings/delete', { organizationId: 'acme', recordingIds: ['r1'] }, other.headersK)).body.result.data.r1.success).toBe(false);
    expect((await fetch(url)).status).toBe(200);
    const res = await t.callK('/v2/recordings/delete', { organizationId: 'acme', recordingIds: ['r1', 'ghost'] });
    expect(res.body.result).toEqual({ status: 'success', message: 'Recording(s) deleted successfully.', data: { r1: { success: true, message: 'Recording deleted.' }, ghost: { success: false, message: 'Recording does not exist.' } } });
    expect((await fetch(url)).status).toBe(404);
    expect(readdirSync(join(t.dataDir, 'attachments'))).toEqual([]);
    const activities = (await t.callK('/v2/activities/get', { organizationId: 'acme', featureTypes: ['recorder'] })).body.result.data;
    expect(activities[0]).toMatchObject({ actionType: 'recorder.delete', targetEntityId: 'r1' });
  });

  it('removes the files of a deleted document at the next start', async () => {
    const res = await t.callK('/v2/recordings/add', { organizationId: 'acme', documentId: 'doc', recording: { recordingType: 'video', from: { userId: 'ann' }, recordedTime: { duration: 1 }, attachments: [{ name: 'v.webm', mimeType: 'video/webm', data: b64(WEBM) }] } });
    const key = res.body.result.data.attachments[0].url.split('/').pop();
    await t.callK('/v2/organizations/documents/delete', { organizationId: 'acme', documentIds: ['doc'] });
    expect(existsSync(join(t.dataDir, 'attachments', key))).toBe(true);
    await t.restart();
    expect(existsSync(join(t.dataDir, 'attachments', key))).toBe(false);
  });

  it('validates the input', async () => {
    expect((await t.callK('/v2/recordings/delete', { organizationId: 'acme' })).body.error.message).toBe('recordingIds is required.');
  });
});
