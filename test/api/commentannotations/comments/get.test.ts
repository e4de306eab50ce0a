import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation } from '../../../helpers/comments.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

const PATH = '/v2/commentannotations/comments/get';

/** A comment as /v2/commentannotations/comments/get answers it (the fields these tests read). */
interface StoredComment {
  commentId: number;
  commentText: string | null;
  reactionAnnotations: Array<{ reactionId: string; icon: string; from: { userId: string } }>;
}
let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
let id: string;
let commentIds: number[];
const reactionIds: string[] = [];
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  ({ annotationId: id, commentIds } = await addAnnotation(t, {
    commentData: [
      {
        commentText: 'a',
        commentHtml: '<b>a</b>',
        from: { userId: 'ann', name: 'Ann' },
        context: { c: 1 },
        taggedUserContacts: [{ userId: 'bob' }, { contact: { userId: 'cat', name: 'Cat' }, text: '@Cat' }],
      },
      { commentText: 'b', from: { userId: 'bob' } },
      { commentText: 'c', from: { userId: 'cat' } },
    ],
  }));
  for (const [commentId, icon, userId] of [
    [commentIds[0], 'heart', 'bob'],
    [commentIds[0], 'thumbsup', 'cat'],
    [commentIds[0], 'heart', 'cat'],
    [commentIds[2], 'eyes', 'ann'],
  ] as const) {
    reactionIds.push(
      dataOf<{ reactionId: string }>(await t.callK('/v2/reactions/add', { organizationId: 'acme', annotationId: id, commentId, icon, from: { userId } }))
        .reactionId,
    );
  }
  other = await createWorkspace(t);
});
afterAll(() => t.close());

describe('/v2/commentannotations/comments/get', () => {
  it('returns every comment in order, each with its reactions', async () => {
    const res = await t.callK(PATH, { organizationId: 'acme', annotationId: id });
    expect(res.status).toBe(200);
    expect(resultOf(res).status).toBe('success');
    expect(resultOf(res).message).toBe('Comments retrieved successfully.');
    const data = dataOf<StoredComment[]>(res);
    expect(data.map((c) => c.commentId)).toEqual(commentIds);
    expect(data[0]).toEqual({
      commentId: commentIds[0],
      type: 'text',
      // the hosted record's fields this comment was not given, as the hosted SDK's defaults
      status: 'added',
      isDraft: false,
      commentText: 'a',
      commentHtml: '<b>a</b>',
      from: { userId: 'ann', name: 'Ann' },
      to: [],
      taggedUserContacts: [{ userId: 'bob' }, { contact: { userId: 'cat', name: 'Cat' }, text: '@Cat' }],
      mentionedUserIds: ['bob', 'cat'],
      attachments: [],
      recorders: [],
      customList: [],
      context: { c: 1 },
      createdAt: expect.any(Number),
      lastUpdated: expect.any(Number),
      reactionAnnotationIds: reactionIds.slice(0, 3),
      reactionAnnotations: [
        { reactionId: reactionIds[0], annotationId: id, commentId: commentIds[0], icon: 'heart', from: { userId: 'bob' }, createdAt: expect.any(Number) },
        { reactionId: reactionIds[1], annotationId: id, commentId: commentIds[0], icon: 'thumbsup', from: { userId: 'cat' }, createdAt: expect.any(Number) },
        { reactionId: reactionIds[2], annotationId: id, commentId: commentIds[0], icon: 'heart', from: { userId: 'cat' }, createdAt: expect.any(Number) },
      ],
    });
    expect(data[1]).toMatchObject({
      commentText: 'b',
      commentHtml: null,
      context: null,
      taggedUserContacts: [],
      mentionedUserIds: [],
      reactionAnnotationIds: [],
      reactionAnnotations: [],
    });
    expect(data[2]!.reactionAnnotations.map((r) => [r.reactionId, r.icon, r.from.userId])).toEqual([[reactionIds[3], 'eyes', 'ann']]);
  });

  it('filters by commentIds, leaving out unknown ids', async () => {
    const res = await t.callK(PATH, { organizationId: 'acme', annotationId: id, commentIds: [commentIds[2], commentIds[1], 1] });
    expect(dataOf<StoredComment[]>(res).map((c) => c.commentText)).toEqual(['b', 'c']);
    expect(dataOf<StoredComment[]>(await t.callK(PATH, { organizationId: 'acme', annotationId: id, commentIds: [1] }))).toEqual([]);
  });

  it('answers an empty list for an annotation whose comments were all deleted', async () => {
    const {
      annotationId,
      commentIds: [only],
    } = await addAnnotation(t, { commentData: [{ from: { userId: 'ann' } }] });
    await t.callK('/v2/commentannotations/comments/delete', { organizationId: 'acme', annotationId, commentIds: [only] });
    const res = await t.callK(PATH, { organizationId: 'acme', annotationId });
    expect(res.status).toBe(200);
    expect(dataOf<StoredComment[]>(res)).toEqual([]);
  });

  it('answers NOT_FOUND for an unknown annotation, in this or another organization', async () => {
    for (const data of [
      { organizationId: 'acme', annotationId: 'ghost' },
      { organizationId: 'elsewhere', annotationId: id },
    ]) {
      const res = await t.callK(PATH, data);
      expect(res.status).toBe(404);
      expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'Annotation not found.' });
    }
  });

  it('validates the input, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ organizationId: 'acme' }, 'annotationId is required.'],
      [{ annotationId: id }, 'organizationId is required.'],
      [{ organizationId: 'acme', annotationId: id, commentIds: [] }, 'commentIds must have at least 1 item(s).'],
      [{ organizationId: 'acme', annotationId: id, commentIds: ['1'] }, 'commentIds[0] must be a number, not a string.'],
      [{ organizationId: 'acme', annotationId: id, commentIds: 1 }, 'commentIds must be an array, not a number.'],
    ];
    for (const [data, message] of cases) {
      const res = await t.callK(PATH, data);
      expect({ data, status: res.status, body: res.body }).toEqual({ data, status: 400, body: { error: { status: 'INVALID_ARGUMENT', message } } });
    }
  });

  it("never shows another API key's comments", async () => {
    const res = await t.callPublic(PATH, { organizationId: 'acme', annotationId: id }, other.headersK);
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'Annotation not found.' });
    // the other key's own annotation with the same id holds only its own comments
    await t.callPublic(
      '/v2/commentannotations/add',
      {
        organizationId: 'acme',
        createOrganization: true,
        documentId: 'doc',
        createDocument: true,
        commentAnnotations: [{ annotationId: id, commentData: [{ commentText: 'theirs', from: { userId: 'x' } }] }],
      },
      other.headersK,
    );
    const theirs = await t.callPublic(PATH, { organizationId: 'acme', annotationId: id }, other.headersK);
    expect(dataOf<StoredComment[]>(theirs).map((c) => [c.commentText, c.reactionAnnotations])).toEqual([['theirs', []]]);
    expect(dataOf<StoredComment[]>(await t.callK(PATH, { organizationId: 'acme', annotationId: id })).map((c) => c.commentText)).toEqual(['a', 'b', 'c']);
  });
});
