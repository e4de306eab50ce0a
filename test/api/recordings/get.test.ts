import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { b64, WEBM } from '../../helpers/media.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
const ids: string[] = [];
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd1' }, { documentId: 'd2' }] });
  for (let i = 0; i < 7; i++) {
    const res = await t.callK('/v2/recordings/add', { organizationId: 'acme', documentId: i % 2 ? 'd2' : 'd1', recording: { recordingId: `r${i}`, recordingType: 'audio', from: { userId: 'ann' }, recordedTime: { duration: i * 1000 }, attachments: [{ name: 'a.webm', mimeType: 'audio/webm', data: b64(WEBM) }] } });
    ids.push(res.body.result.data.annotationId);
  }
});
afterAll(() => t.close());

async function walk(filters: Record<string, unknown>, pageSize: number) {
  const seen: string[] = [];
  let pageToken: string | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const res = await t.callK('/v2/recordings/get', { organizationId: 'acme', ...filters, pageSize, pageToken });
    expect(res.status).toBe(200);
    expect(res.body.result.message).toBe('Recorder annotations retrieved successfully.');
    seen.push(...res.body.result.data.map((r: any) => r.annotationId));
    pageToken = res.body.result.pageToken ?? undefined;
    if (!pageToken) return seen;
  }
  throw new Error('pagination did not end');
}

describe('/v2/recordings/get', () => {
  it('walks every recording exactly once, newest first, with page sizes 1, 3 and 1000', async () => {
    for (const size of [1, 3, 1000]) expect(await walk({}, size)).toEqual([...ids].reverse());
  });

  it('filters by document and ids', async () => {
    expect(await walk({ documentId: 'd2' }, 2)).toEqual(['r5', 'r3', 'r1']);
    expect(await walk({ recordingIds: ['r0', 'r6', 'zz'] }, 5)).toEqual(['r6', 'r0']);
  });

  it('validates pageSize, refuses foreign tokens, and keeps API keys apart', async () => {
    expect((await t.callK('/v2/recordings/get', { organizationId: 'acme', pageSize: 0 })).body.error.message).toBe('pageSize must be at least 1.');
    const token = (await t.callK('/v2/recordings/get', { organizationId: 'acme', pageSize: 2 })).body.result.pageToken;
    expect((await t.callK('/v2/recordings/get', { organizationId: 'acme', documentId: 'd1', pageToken: token })).body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'Invalid pageToken.' });
    const other = await createWorkspace(t);
    expect((await t.callPublic('/v2/recordings/get', { organizationId: 'acme' }, other.headersK)).body.result.data).toEqual([]);
  });
});
