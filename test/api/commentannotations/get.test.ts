import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation } from '../../helpers/comments.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
const ids: string[] = [];
let privateId: string;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }, { documentId: 'doc2' }] });
  await t.callK('/v2/workspace/apikeyconfig/update', { enablePrivateComments: true });
  for (let i = 0; i < 9; i++) {
    const author = i % 3 === 0 ? 'ann' : 'bob';
    const { annotationId } = await t
      .callK('/v2/commentannotations/add', {
        organizationId: 'acme',
        documentId: i % 2 ? 'doc2' : 'doc',
        commentAnnotations: [{ annotationId: `a${i}`, location: { id: `L${i % 2}` }, status: { id: i % 4 === 0 ? 'RESOLVED' : 'OPEN' }, commentData: [{ commentText: `c${i}`, from: { userId: author }, taggedUserContacts: i === 4 ? [{ userId: 'cat' }] : [] }] }],
      })
      .then((r) => ({ annotationId: Object.keys(r.body.result.data)[0]! }));
    ids.push(annotationId);
  }
  privateId = (await addAnnotation(t, { annotationId: 'secret', visibility: { type: 'restricted', userIds: ['cat'] }, commentData: [{ commentText: 'psst', from: { userId: 'ann' } }] })).annotationId;
});
afterAll(() => t.close());

async function walk(filters: Record<string, unknown>, pageSize: number) {
  const seen: string[] = [];
  let pageToken: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const res = await t.callK('/v2/commentannotations/get', { organizationId: 'acme', ...filters, pageSize, pageToken });
    expect(res.status).toBe(200);
    expect(res.body.result.message).toBe('Annotation(s) fetched successfully.');
    seen.push(...res.body.result.data.map((a: any) => a.annotationId));
    pageToken = res.body.result.pageToken ?? undefined;
    if (!pageToken) return seen;
  }
  throw new Error('pagination did not end');
}

describe('/v2/commentannotations/get', () => {
  it('walks every annotation exactly once, in both orders, with page sizes 1, 3 and 1000', async () => {
    const all = [...ids, privateId];
    for (const size of [1, 3, 1000]) expect(await walk({ order: 'asc' }, size)).toEqual(all);
    expect(await walk({}, 4)).toEqual([...all].reverse());
  });

  it('applies each filter and combinations', async () => {
    expect(await walk({ documentId: 'doc2', order: 'asc' }, 2)).toEqual(['a1', 'a3', 'a5', 'a7']);
    expect(await walk({ documentIds: ['doc2'], locationIds: ['L1'], order: 'asc' }, 2)).toEqual(['a1', 'a3', 'a5', 'a7']);
    expect(await walk({ userIds: ['ann'], order: 'asc' }, 2)).toEqual(['a0', 'a3', 'a6', 'secret']);
    expect(await walk({ mentionedUserIds: ['cat'] }, 2)).toEqual(['a4']);
    expect(await walk({ statusIds: ['RESOLVED'], order: 'asc' }, 2)).toEqual(['a0', 'a4', 'a8']);
    expect(await walk({ annotationIds: ['a2', 'a5'], order: 'asc' }, 5)).toEqual(['a2', 'a5']);
    expect(await walk({ documentId: 'doc', userIds: ['bob'], statusIds: ['OPEN'], order: 'asc' }, 5)).toEqual(['a2']);
  });

  it('hides restricted annotations from a reader who may not see them', async () => {
    expect(await walk({ userId: 'bob', annotationIds: ['secret', 'a0'] }, 5)).toEqual(['a0']);
    expect(await walk({ userId: 'cat', annotationIds: ['secret', 'a0'] }, 5)).toEqual(['secret', 'a0']);
    expect(await walk({ userId: 'ann', annotationIds: ['secret'] }, 5)).toEqual(['secret']);
  });

  it('refuses forged and foreign page tokens', async () => {
    const token = (await t.callK('/v2/commentannotations/get', { organizationId: 'acme', pageSize: 2 })).body.result.pageToken;
    const bad = async (data: Record<string, unknown>, headers?: Record<string, string>) =>
      expect((await t.callK('/v2/commentannotations/get', { organizationId: 'acme', pageSize: 2, ...data }, headers)).body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'Invalid pageToken.' });
    await bad({ pageToken: `${token}0` });
    await bad({ pageToken: token, documentId: 'doc' });
    const other = await createWorkspace(t);
    await bad({ pageToken: token }, other.headersK);
    expect((await t.callPublic('/v2/commentannotations/get', { organizationId: 'acme' }, other.headersK)).body.result.data).toEqual([]);
  });
});
