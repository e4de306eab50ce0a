import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation } from '../../../helpers/comments.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }, { documentId: 'doc2' }] });
  await t.callK('/v2/workspace/apikeyconfig/update', { enablePrivateComments: true });
});
afterAll(() => t.close());

const count = async (userId: string, extra: Record<string, unknown> = {}) => (await t.callK('/v2/commentannotations/count/get', { organizationId: 'acme', documentIds: ['doc', 'doc2'], userId, ...extra })).body.result.data;

describe('/v2/commentannotations/count/get', () => {
  it('counts total and unread per document; own comments are never unread; reading and new comments move unread', async () => {
    const mine = await addAnnotation(t, { commentData: [{ commentText: 'by ann', from: { userId: 'ann' } }] });
    const theirs = await addAnnotation(t, { status: { id: 'RESOLVED' }, commentData: [{ commentText: 'by bob', from: { userId: 'bob' } }] });
    await addAnnotation(t, { visibility: { type: 'restricted', userIds: ['bob'] }, commentData: [{ commentText: 'private', from: { userId: 'bob' } }] });
    const res = await t.callK('/v2/commentannotations/count/get', { organizationId: 'acme', documentIds: ['doc', 'doc2'], userId: 'ann' });
    expect(res.body.result).toEqual({ status: 'success', message: 'Comment count retrieved successfully.', data: { doc: { total: 2, unread: 1 }, doc2: { total: 0, unread: 0 } } });
    expect(await count('bob')).toEqual({ doc: { total: 3, unread: 1 }, doc2: { total: 0, unread: 0 } });
    expect(await count('ann', { statusIds: ['RESOLVED'] })).toEqual({ doc: { total: 1, unread: 1 }, doc2: { total: 0, unread: 0 } });

    await t.callK('/v2/commentannotations/read/update', { organizationId: 'acme', annotationIds: [theirs.annotationId], userId: 'ann' });
    expect((await count('ann')).doc).toEqual({ total: 2, unread: 0 });
    await t.callK('/v2/commentannotations/comments/add', { organizationId: 'acme', annotationId: mine.annotationId, commentData: [{ commentText: 'reply', from: { userId: 'bob' } }] });
    expect((await count('ann')).doc).toEqual({ total: 2, unread: 1 });
  });

  it('validates the input and keeps API keys apart', async () => {
    expect((await t.callK('/v2/commentannotations/count/get', { organizationId: 'acme', documentIds: ['doc'] })).body.error.message).toBe('userId is required.');
    const other = await createWorkspace(t);
    expect((await t.callPublic('/v2/commentannotations/count/get', { organizationId: 'acme', documentIds: ['doc'], userId: 'ann' }, other.headersK)).body.result.data).toEqual({ doc: { total: 0, unread: 0 } });
  });
});
