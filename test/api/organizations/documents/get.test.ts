import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
const all: string[] = [];
const inFolder: string[] = [];
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/folders/add', { organizationId: 'acme', createOrganization: true, folders: [{ folderId: 'f' }] });
  for (let batch = 0; batch < 5; batch++) {
    const documents = Array.from({ length: 50 }, (_, i) => ({ documentId: `doc-${String(batch * 50 + i).padStart(3, '0')}` }));
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', folderId: batch % 2 ? 'f' : undefined, documents });
    all.push(...documents.map((d) => d.documentId));
    if (batch % 2) inFolder.push(...documents.map((d) => d.documentId));
  }
  all.sort();
});
afterAll(() => t.close());

async function walk(filters: Record<string, unknown>, pageSize?: number) {
  const seen: string[] = [];
  let pageToken: string | undefined;
  for (let pages = 0; pages < 500; pages++) {
    const res = await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', ...filters, pageSize, pageToken });
    expect(res.status).toBe(200);
    expect(res.body.result.message).toBe('Document(s) retrieved successfully.');
    seen.push(...res.body.result.data.map((d: any) => d.id));
    pageToken = res.body.result.pageToken ?? undefined;
    if (!pageToken) return seen;
  }
  throw new Error('pagination did not end');
}

describe('/v2/organizations/documents/get', () => {
  it('walks all 250 documents exactly once with page sizes 1, 7 and 1000 (and the default 1000)', async () => {
    for (const size of [1, 7, 1000]) expect(await walk({}, size)).toEqual(all);
    const whole = await t.callK('/v2/organizations/documents/get', { organizationId: 'acme' });
    expect(whole.body.result.data).toHaveLength(250);
    expect(whole.body.result.pageToken).toBeNull();
  });

  it('walks one folder, and the top level as root', async () => {
    expect(await walk({ folderId: 'f' }, 7)).toEqual(inFolder);
    expect(await walk({ folderId: 'root' }, 13)).toEqual(all.filter((id) => !inFolder.includes(id)));
  });

  it('returns documentIds in request order; at most 30', async () => {
    const res = await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: ['doc-009', 'doc-001', 'doc-120'] });
    expect(res.body.result.data.map((d: any) => d.id)).toEqual(['doc-009', 'doc-001', 'doc-120']);
    expect(res.body.result.data[0]).toMatchObject({ id: 'doc-009', documentName: '', disabled: false, accessType: 'public' });
    const tooMany = await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: all.slice(0, 31) });
    expect(tooMany.body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'documentIds must have at most 30 item(s).' });
  });

  it('fails on a missing id with the breakdown in request order', async () => {
    const res = await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: ['doc-001', 'ghost'] });
    expect(res.status).toBe(404);
    expect(res.body.error.status).toBe('NOT_FOUND');
    expect(res.body.error.message).toBe('Error retrieving document(s).');
    expect(res.body.error.details[0]).toMatchObject({ id: 'doc-001' });
    expect(res.body.error.details[1]).toEqual({ id: 'ghost', success: false, message: 'Document does not exist', code: 'not-found' });
  });

  it('refuses forged, altered and foreign page tokens', async () => {
    const token = (await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', pageSize: 5 })).body.result.pageToken;
    const bad = async (data: Record<string, unknown>, headers?: Record<string, string>) =>
      expect((await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', pageSize: 5, ...data }, headers)).body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'Invalid pageToken.' });
    await bad({ pageToken: Buffer.from('["doc-100"]').toString('base64url') + '.' + token.split('.')[1] });
    await bad({ pageToken: token, folderId: 'f' });
    await bad({ pageToken: token, organizationId: 'other-org' });
    const other = await createWorkspace(t);
    await bad({ pageToken: token }, other.headersK);
  });

  it("shows nothing of another API key's documents", async () => {
    const other = await createWorkspace(t);
    expect((await t.callPublic('/v2/organizations/documents/get', { organizationId: 'acme' }, other.headersK)).body.result.data).toEqual([]);
  });
});
