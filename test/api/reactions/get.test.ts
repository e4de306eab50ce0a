import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation } from '../../helpers/comments.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';

interface Reaction {
  reactionId: string;
}
/** A comment as comments/get answers it, with its reactions. */
interface CommentItem {
  commentId: number;
  reactionAnnotations: Reaction[];
}

const PATH = '/v2/reactions/get';
let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
let id: string;
let commentIds: number[];
const added: Reaction[] = [];
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  ({ annotationId: id, commentIds } = await addAnnotation(t, {
    commentData: [{ from: { userId: 'ann' } }, { from: { userId: 'bob' } }, { from: { userId: 'cat' } }],
  }));
  const unrelated = await addAnnotation(t, { commentData: [{ from: { userId: 'ann' } }] });
  await t.callK('/v2/reactions/add', {
    organizationId: 'acme',
    annotationId: unrelated.annotationId,
    commentId: unrelated.commentIds[0],
    icon: 'other',
    from: { userId: 'bob' },
  });
  for (const [commentId, icon, from] of [
    [commentIds[0], 'a', { userId: 'bob', name: 'Bob' }],
    [commentIds[1], 'b', { userId: 'ann' }],
    [commentIds[0], 'c', { userId: 'cat' }],
    [commentIds[1], 'a', { userId: 'cat' }],
  ] as const) {
    added.push(dataOf<Reaction>(await t.callK('/v2/reactions/add', { organizationId: 'acme', annotationId: id, commentId, icon, from })));
  }
  other = await createWorkspace(t);
});
afterAll(() => t.close());

describe('/v2/reactions/get', () => {
  it('lists the reactions of an annotation, oldest first', async () => {
    const res = await t.callK(PATH, { organizationId: 'acme', annotationId: id });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({ status: 'success', message: 'Reactions retrieved successfully.', data: added });
    expect(added[0]).toEqual({
      reactionId: expect.stringMatching(/^[A-Za-z0-9]{20}$/),
      annotationId: id,
      commentId: commentIds[0],
      icon: 'a',
      from: { userId: 'bob', name: 'Bob' },
      createdAt: expect.any(Number),
    });
  });

  it('lists the reactions of one comment', async () => {
    const one = await t.callK(PATH, { organizationId: 'acme', annotationId: id, commentId: commentIds[1] });
    expect(dataOf(one)).toEqual([added[1], added[3]]);
    expect(dataOf(await t.callK(PATH, { organizationId: 'acme', annotationId: id, commentId: commentIds[2] }))).toEqual([]);
    expect(dataOf(await t.callK(PATH, { organizationId: 'acme', annotationId: id, commentId: 1 }))).toEqual([]);
  });

  it('matches what comments/get shows per comment', async () => {
    const comments = dataOf<CommentItem[]>(await t.callK('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId: id }));
    for (const comment of comments) {
      const direct = dataOf<Reaction[]>(await t.callK(PATH, { organizationId: 'acme', annotationId: id, commentId: comment.commentId }));
      expect(comment.reactionAnnotations).toEqual(direct);
    }
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
      [{ organizationId: 'acme', annotationId: id, commentId: 'a' }, 'commentId must be a number, not a string.'],
      [{ organizationId: 'acme', annotationId: '' }, 'annotationId must not be empty.'],
    ];
    for (const [data, message] of cases) {
      const res = await t.callK(PATH, data);
      expect({ data, status: res.status, body: res.body }).toEqual({ data, status: 400, body: { error: { status: 'INVALID_ARGUMENT', message } } });
    }
  });

  it("never shows another API key's reactions", async () => {
    const res = await t.callPublic(PATH, { organizationId: 'acme', annotationId: id }, other.headersK);
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'Annotation not found.' });
    // the other key's annotation with the same id has only its own reactions
    const theirs = await t.callPublic(
      '/v2/commentannotations/add',
      {
        organizationId: 'acme',
        createOrganization: true,
        documentId: 'doc',
        createDocument: true,
        commentAnnotations: [{ annotationId: id, commentData: [{ commentId: commentIds[0], from: { userId: 'x' } }] }],
      },
      other.headersK,
    );
    expect(theirs.status).toBe(200);
    expect(dataOf(await t.callPublic(PATH, { organizationId: 'acme', annotationId: id }, other.headersK))).toEqual([]);
    expect(dataOf(await t.callK(PATH, { organizationId: 'acme', annotationId: id }))).toEqual(added);
  });
});
