import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activitiesOf, addAnnotation } from '../../../helpers/comments.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

const PATH = '/v2/commentannotations/comments/add';

interface StoredComment {
  commentId: number;
  commentText: string | null;
  mentionedUserIds: string[];
}
interface Annotation {
  lastUpdated: number;
  comments: StoredComment[];
}
interface NotificationItem {
  notificationSourceData: { annotationId?: string };
}
let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
let id: string;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [{ documentId: 'doc' }, { documentId: 'secret', accessType: 'restricted' }],
  });
  await t.callK('/v2/users/add', {
    organizationId: 'acme',
    users: [
      { userId: 'ann', name: 'Ann' },
      { userId: 'bob', name: 'Bob' },
      { userId: 'cat', name: 'Cat' },
    ],
  });
  await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'secret', users: [{ userId: 'ann' }, { userId: 'bob' }] });
  id = (await addAnnotation(t, { location: { id: 'L3' }, commentData: [{ commentText: 'first', from: { userId: 'ann' }, triggerActivities: false }] }))
    .annotationId;
  other = await createWorkspace(t);
});
afterAll(() => t.close());

const addComments = (annotationId: string, commentData: unknown[], headers?: Record<string, string>) =>
  t.callK(PATH, { organizationId: 'acme', annotationId, commentData }, headers);
const commentsOf = async (annotationId: string) =>
  dataOf<StoredComment[]>(await t.callK('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId }));
const mentionsOf = async (userId: string, annotationId: string) =>
  dataOf<NotificationItem[]>(await t.callK('/v2/notifications/get', { organizationId: 'acme', userId })).filter(
    (n) => n.notificationSourceData.annotationId === annotationId,
  );

describe('/v2/commentannotations/comments/add', () => {
  it('adds comments in order and answers the array of their new numeric ids', async () => {
    const before = dataOf<Annotation[]>(await t.callK('/v2/commentannotations/get', { organizationId: 'acme', annotationIds: [id] }))[0]!;
    const res = await addComments(id, [
      { commentText: 'reply @ann', commentHtml: '<p>reply</p>', from: { userId: 'bob', name: 'Bob' }, context: { v: 1 } },
      { commentText: 'more', from: { userId: 'bob' } },
      { commentId: 123, commentText: 'given id', from: { userId: 'cat' } },
    ]);
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({ status: 'success', message: 'Comment(s) added successfully.', data: [expect.any(Number), expect.any(Number), 123] });
    const [a, b] = dataOf<number[]>(res);
    for (const n of [a!, b!]) expect(n >= 100_000 && n < 1_000_000).toBe(true);
    const comments = await commentsOf(id);
    expect(comments.map((c) => [c.commentId, c.commentText])).toEqual([
      [comments[0]!.commentId, 'first'],
      [a, 'reply @ann'],
      [b, 'more'],
      [123, 'given id'],
    ]);
    expect(comments[1]).toMatchObject({ commentHtml: '<p>reply</p>', from: { userId: 'bob', name: 'Bob' }, context: { v: 1 }, mentionedUserIds: [] });
    const after = dataOf<Annotation[]>(await t.callK('/v2/commentannotations/get', { organizationId: 'acme', annotationIds: [id] }))[0]!;
    expect(after.lastUpdated).toBeGreaterThanOrEqual(before.lastUpdated);
    expect(after.comments).toHaveLength(4);
  });

  it('records comment.add for each new comment', async () => {
    const { annotationId } = await addAnnotation(t, { commentData: [{ from: { userId: 'ann' }, triggerActivities: false }] });
    const res = await addComments(annotationId, [
      { commentText: 'one', from: { userId: 'bob', name: 'Bob' } },
      { commentText: 'two', from: { userId: 'cat' } },
    ]);
    const [one, two] = dataOf<number[]>(res);
    const activities = (await activitiesOf(t, annotationId)).sort((x, y) => (x.targetSubEntityId ?? '').localeCompare(y.targetSubEntityId ?? ''));
    const expected = [
      { sub: String(one), actionUser: { userId: 'bob', name: 'Bob' }, label: 'Bob', text: 'one' },
      { sub: String(two), actionUser: { userId: 'cat' }, label: 'cat', text: 'two' },
    ].sort((x, y) => x.sub.localeCompare(y.sub));
    expect(activities).toEqual(
      expected.map((e) =>
        expect.objectContaining({
          featureType: 'comment',
          actionType: 'comment.add',
          actionUser: e.actionUser,
          targetEntityId: annotationId,
          targetSubEntityId: e.sub,
          entityData: { commentText: e.text },
          displayMessageTemplate: '{{actionUser}} added a comment',
          displayMessageTemplateData: { actionUser: e.label },
          metadata: { apiKey: t.credentials.apiKey, documentId: 'doc', organizationId: 'acme' },
        }),
      ),
    );
  });

  it('notifies mentioned users; triggerNotification and triggerActivities false suppress each', async () => {
    const { annotationId } = await addAnnotation(t, { location: { id: 'L7' }, commentData: [{ from: { userId: 'ann' }, triggerActivities: false }] });
    const res = await addComments(annotationId, [
      {
        commentText: 'look @ann @cat',
        from: { userId: 'bob', name: 'Bob' },
        taggedUserContacts: [{ userId: 'ann' }, { contact: { userId: 'cat', name: 'Cat' } }, { userId: 'bob' }],
      },
    ]);
    const [commentId] = dataOf<number[]>(res);
    expect((await commentsOf(annotationId))[1]!.mentionedUserIds).toEqual(['ann', 'cat', 'bob']);
    for (const userId of ['ann', 'cat']) {
      const received = await mentionsOf(userId, annotationId);
      expect(received).toEqual([
        expect.objectContaining({
          notificationSource: 'comment',
          notificationSourceData: { annotationId, commentId },
          displayHeadlineMessageTemplate: '{actionUser} mentioned you in a comment',
          displayHeadlineMessageTemplateData: { actionUser: { userId: 'bob', name: 'Bob' } },
          displayBodyMessage: 'look @ann @cat',
          actionUser: { userId: 'bob', name: 'Bob' },
          locationId: 'L7',
        }),
      ]);
    }
    expect(await mentionsOf('bob', annotationId)).toEqual([]);

    const activitiesBefore = (await activitiesOf(t, annotationId)).length;
    await addComments(annotationId, [{ commentText: 'quiet', from: { userId: 'bob' }, taggedUserContacts: [{ userId: 'ann' }], triggerNotification: false }]);
    expect(await mentionsOf('ann', annotationId)).toHaveLength(1);
    expect(await activitiesOf(t, annotationId)).toHaveLength(activitiesBefore + 1);
    await addComments(annotationId, [{ commentText: 'unlogged', from: { userId: 'bob' }, taggedUserContacts: [{ userId: 'ann' }], triggerActivities: false }]);
    expect(await mentionsOf('ann', annotationId)).toHaveLength(2);
    expect(await activitiesOf(t, annotationId)).toHaveLength(activitiesBefore + 1);
  });

  it('notifies only mentioned users who may see the annotation and open the document', async () => {
    const secret = (await addAnnotation(t, { commentData: [{ from: { userId: 'ann' } }] }, { documentId: 'secret' })).annotationId;
    await addComments(secret, [{ commentText: '@bob @cat', from: { userId: 'ann' }, taggedUserContacts: [{ userId: 'bob' }, { userId: 'cat' }] }]);
    expect(await mentionsOf('bob', secret)).toHaveLength(1);
    expect(await mentionsOf('cat', secret)).toEqual([]);

    await t.callK('/v2/workspace/apikeyconfig/update', { enablePrivateComments: true });
    const restricted = (await addAnnotation(t, { visibility: { type: 'restricted', userIds: ['cat'] }, commentData: [{ from: { userId: 'ann' } }] }))
      .annotationId;
    await addComments(restricted, [{ commentText: '@all', from: { userId: 'cat' }, taggedUserContacts: [{ userId: 'ann' }, { userId: 'bob' }] }]);
    expect(await mentionsOf('ann', restricted)).toHaveLength(1);
    expect(await mentionsOf('bob', restricted)).toEqual([]);
  });

  it('answers NOT_FOUND for an unknown annotation and ALREADY_EXISTS for a taken commentId, writing nothing', async () => {
    const missing = await addComments('ghost', [{ from: { userId: 'ann' } }]);
    expect(missing.status).toBe(404);
    expect(errorOf(missing)).toEqual({ status: 'NOT_FOUND', message: 'Annotation not found.' });

    const before = await commentsOf(id);
    const taken = await addComments(id, [
      { commentText: 'new', from: { userId: 'ann' } },
      { commentId: 123, commentText: 'clash', from: { userId: 'ann' } },
    ]);
    expect(taken.status).toBe(409);
    expect(errorOf(taken)).toEqual({ status: 'ALREADY_EXISTS', message: 'Comment already exists: 123.' });
    expect(await commentsOf(id)).toEqual(before);
  });

  it('validates the input, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ organizationId: 'acme', annotationId: id }, 'commentData is required.'],
      [{ organizationId: 'acme', annotationId: id, commentData: [] }, 'commentData must have at least 1 item(s).'],
      [{ organizationId: 'acme', annotationId: id, commentData: [{}] }, 'commentData[0].from is required.'],
      [
        { organizationId: 'acme', annotationId: id, commentData: [{ from: { userId: 'ann' } }, { from: { name: 'x' } }] },
        'commentData[1].from.userId is required.',
      ],
      [
        { organizationId: 'acme', annotationId: id, commentData: [{ from: { userId: 'ann' }, commentId: 1.5 }] },
        'commentData[0].commentId must be an integer, not a number.',
      ],
      [
        { organizationId: 'acme', annotationId: id, commentData: [{ from: { userId: 'ann' }, taggedUserContacts: [{}] }] },
        'commentData[0].taggedUserContacts[0] needs userId or contact.userId.',
      ],
      [{ organizationId: 'acme', commentData: [{ from: { userId: 'ann' } }] }, 'annotationId is required.'],
      [{ annotationId: id, commentData: [{ from: { userId: 'ann' } }] }, 'organizationId is required.'],
    ];
    for (const [data, message] of cases) {
      const res = await t.callK(PATH, data);
      expect({ data, status: res.status, body: res.body }).toEqual({ data, status: 400, body: { error: { status: 'INVALID_ARGUMENT', message } } });
    }
  });

  it("cannot add comments to another API key's annotation", async () => {
    const before = await commentsOf(id);
    const activities = (await activitiesOf(t, id)).length;
    const res = await addComments(id, [{ commentText: 'intruder', from: { userId: 'x' } }], other.headersK);
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'Annotation not found.' });
    expect(await commentsOf(id)).toEqual(before);
    expect(await activitiesOf(t, id)).toHaveLength(activities);
  });
});
