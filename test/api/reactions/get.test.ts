import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation } from '../../helpers/comments.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
let id: string;
let commentIds: number[];
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  ({ annotationId: id, commentIds } = await addAnnotation(t, { commentData: [{ from: { userId: 'ann' } }, { from: { userId: 'bob' } }] }));
  await t.callK('/v2/reactions/add', { organizationId: 'acme', annotationId: id, commentId: commentIds[0], icon: 'a', from: { userId: 'bob' } });
  await t.callK('/v2/reactions/add', { organizationId: 'acme', annotationId: id, commentId: commentIds[1], icon: 'b', from: { userId: 'ann' } });
});
afterAll(() => t.close());

describe('/v2/reactions/get', () => {
  it('lists the reactions of an annotation or of one comment', async () => {
    const all = await t.callK('/v2/reactions/get', { organizationId: 'acme', annotationId: id });
    expect(all.body.result.message).toBe('Reactions retrieved successfully.');
    expect(all.body.result.data.map((r: any) => r.icon)).toEqual(['a', 'b']);
    const one = await t.callK('/v2/reactions/get', { organizationId: 'acme', annotationId: id, commentId: commentIds[1] });
    expect(one.body.result.data.map((r: any) => [r.icon, r.from.userId])).toEqual([['b', 'ann']]);
  });

  it('answers NOT_FOUND for an unknown annotation and keeps API keys apart', async () => {
    expect((await t.callK('/v2/reactions/get', { organizationId: 'acme', annotationId: 'ghost' })).status).toBe(404);
    const other = await createWorkspace(t);
    expect((await t.callPublic('/v2/reactions/get', { organizationId: 'acme', annotationId: id }, other.headersK)).status).toBe(404);
  });
});
