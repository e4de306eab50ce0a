import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation } from '../../../helpers/comments.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, eventually, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

const PATH = '/v2/commentannotations/count/get';

/** One document's counts in /v2/commentannotations/count/get's answer. */
interface Counts {
  total: number;
  unread: number;
}
let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
const ids: Record<string, string> = {};
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [{ documentId: 'doc' }, { documentId: 'doc2' }, { documentId: 'empty' }],
  });
  await t.callK('/v2/workspace/apikeyconfig/update', { enablePrivateComments: true });
  ids.mine = (await addAnnotation(t, { commentData: [{ commentText: 'by ann', from: { userId: 'ann' } }] })).annotationId;
  ids.theirs = (await addAnnotation(t, { status: { id: 'RESOLVED' }, commentData: [{ commentText: 'by bob', from: { userId: 'bob' } }] })).annotationId;
  ids.other = (await addAnnotation(t, { commentData: [{ commentText: 'by cat', from: { userId: 'cat' } }] }, { documentId: 'doc2' })).annotationId;
  ids.private = (
    await addAnnotation(t, { visibility: { type: 'restricted', userIds: ['cat'] }, commentData: [{ commentText: 'private', from: { userId: 'bob' } }] })
  ).annotationId;
  other = await createWorkspace(t);
});
afterAll(() => t.close());

const count = async (userId: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>) => {
  const res = await t.callK(PATH, { organizationId: 'acme', documentIds: ['doc', 'doc2'], userId, ...extra }, headers);
  expect(res.status).toBe(200);
  return dataOf<Record<'doc' | 'doc2', Counts>>(res);
};
/** Unread compares millisecond timestamps: let the clock move on before the next write. */
const nextMillisecond = async () => {
  const now = Date.now();
  await eventually(() => expect(Date.now()).toBeGreaterThan(now));
};

describe('/v2/commentannotations/count/get', () => {
  it('counts, per document, the annotations a user may see and those with unread comments by others', async () => {
    const res = await t.callK(PATH, { organizationId: 'acme', documentIds: ['doc', 'doc2', 'empty', 'unknown'], userId: 'ann' });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Comment count retrieved successfully.',
      data: { doc: { total: 2, unread: 1 }, doc2: { total: 1, unread: 1 }, empty: { total: 0, unread: 0 }, unknown: { total: 0, unread: 0 } },
    });
    // the private annotation counts for its author (bob) and the named user (cat) only
    expect(await count('bob')).toEqual({ doc: { total: 3, unread: 1 }, doc2: { total: 1, unread: 1 } });
    expect(await count('cat')).toEqual({ doc: { total: 3, unread: 3 }, doc2: { total: 1, unread: 0 } });
    expect(await count('dan')).toEqual({ doc: { total: 2, unread: 2 }, doc2: { total: 1, unread: 1 } });
  });

  it('filters by statusIds (an empty list filters nothing)', async () => {
    expect(await count('ann', { statusIds: ['RESOLVED'] })).toEqual({ doc: { total: 1, unread: 1 }, doc2: { total: 0, unread: 0 } });
    expect(await count('cat', { statusIds: ['OPEN'] })).toEqual({ doc: { total: 2, unread: 2 }, doc2: { total: 1, unread: 0 } });
    expect(await count('ann', { statusIds: ['OPEN', 'RESOLVED'] })).toEqual(await count('ann'));
    expect(await count('ann', { statusIds: [] })).toEqual(await count('ann'));
    expect(await count('ann', { statusIds: ['NONE'] })).toEqual({ doc: { total: 0, unread: 0 }, doc2: { total: 0, unread: 0 } });
  });

  it("never counts a user's own comments as unread; reading and others' new comments move unread", async () => {
    // ann's reply marks bob's thread read for her
    await t.callK('/v2/commentannotations/comments/add', {
      organizationId: 'acme',
      annotationId: ids.theirs,
      commentData: [{ commentText: 'ann replies', from: { userId: 'ann' } }],
    });
    expect((await count('ann')).doc).toEqual({ total: 2, unread: 0 });
    // ... and is news for bob
    expect((await count('bob')).doc).toEqual({ total: 3, unread: 2 });

    await nextMillisecond();
    await t.callK('/v2/commentannotations/comments/add', {
      organizationId: 'acme',
      annotationId: ids.mine,
      commentData: [{ commentText: 'bob replies', from: { userId: 'bob' } }],
    });
    expect((await count('ann')).doc).toEqual({ total: 2, unread: 1 });

    await nextMillisecond();
    await t.callK('/v2/commentannotations/read/update', { organizationId: 'acme', annotationIds: [ids.mine, ids.other], userId: 'ann' });
    expect(await count('ann')).toEqual({ doc: { total: 2, unread: 0 }, doc2: { total: 1, unread: 0 } });

    await nextMillisecond();
    await t.callK('/v2/commentannotations/comments/add', {
      organizationId: 'acme',
      annotationId: ids.mine,
      commentData: [{ commentText: 'cat too', from: { userId: 'cat' } }],
    });
    expect((await count('ann')).doc).toEqual({ total: 2, unread: 1 });
    // bob's own reply is older than cat's: the thread is unread for bob too
    expect((await count('bob')).doc.unread).toBe(2);
  });

  it('counts a restricted annotation for everyone once it is made public', async () => {
    expect((await count('dan')).doc.total).toBe(2);
    await t.callK('/v2/commentannotations/update', { organizationId: 'acme', annotationIds: [ids.private], updatedData: { visibility: { type: 'public' } } });
    expect((await count('dan')).doc.total).toBe(3);
    await t.callK('/v2/commentannotations/update', {
      organizationId: 'acme',
      annotationIds: [ids.private],
      updatedData: { visibility: { type: 'restricted', userIds: ['cat'] } },
    });
    expect((await count('dan')).doc.total).toBe(2);
  });

  it('validates the input, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ organizationId: 'acme', documentIds: ['doc'] }, 'userId is required.'],
      [{ organizationId: 'acme', documentIds: ['doc'], userId: '' }, 'userId must not be empty.'],
      [{ organizationId: 'acme', userId: 'ann' }, 'documentIds is required.'],
      [{ organizationId: 'acme', userId: 'ann', documentIds: [] }, 'documentIds must have at least 1 item(s).'],
      [{ organizationId: 'acme', userId: 'ann', documentIds: Array.from({ length: 31 }, (_, i) => `d${i}`) }, 'documentIds must have at most 30 item(s).'],
      [{ organizationId: 'acme', userId: 'ann', documentIds: ['doc'], statusIds: 'OPEN' }, 'statusIds must be an array, not a string.'],
      [{ userId: 'ann', documentIds: ['doc'] }, 'organizationId is required.'],
    ];
    for (const [data, message] of cases) {
      const res = await t.callK(PATH, data);
      expect({ data, status: res.status, body: res.body }).toEqual({ data, status: 400, body: { error: { status: 'INVALID_ARGUMENT', message } } });
    }
  });

  it("never counts another API key's annotations", async () => {
    expect(await count('ann', {}, other.headersK)).toEqual({ doc: { total: 0, unread: 0 }, doc2: { total: 0, unread: 0 } });
    await t.callPublic(
      '/v2/commentannotations/add',
      {
        organizationId: 'acme',
        createOrganization: true,
        documentId: 'doc',
        createDocument: true,
        commentAnnotations: [{ commentData: [{ from: { userId: 'bob' } }] }],
      },
      other.headersK,
    );
    expect(await count('ann', {}, other.headersK)).toEqual({ doc: { total: 1, unread: 1 }, doc2: { total: 0, unread: 0 } });
    expect((await count('ann')).doc.total).toBe(2);
  });
});
