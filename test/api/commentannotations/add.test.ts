import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activitiesOf } from '../../helpers/comments.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
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
  await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'secret', users: [{ userId: 'ann' }] });
  other = await createWorkspace(t);
});
afterAll(() => t.close());

interface StoredComment {
  commentId: number;
  commentText: string | null;
  mentionedUserIds: string[];
  createdAt: number;
  lastUpdated: number;
}
interface Annotation {
  annotationId: string;
  status: Record<string, unknown>;
  suggestion?: Record<string, unknown>;
  visibility: { type: string; userIds?: string[] };
  createdAt: number;
  lastUpdated: number;
  comments: StoredComment[];
}
/** One annotation's outcome in /v2/commentannotations/add's answer, keyed by annotation id. */
interface AddOutcome {
  success: boolean;
  annotationId: string;
  commentIds: number[];
  message: string;
}
type AddOutcomes = Record<string, AddOutcome>;
interface NotificationItem {
  notificationSourceData: { annotationId?: string; commentId?: number };
}

const PATH = '/v2/commentannotations/add';
const add = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK(PATH, { organizationId: 'acme', documentId: 'doc', ...data }, headers);
const getOne = async (annotationId: string) =>
  dataOf<Annotation[]>(await t.callK('/v2/commentannotations/get', { organizationId: 'acme', annotationIds: [annotationId] }))[0];
const inbox = async (userId: string) => dataOf<NotificationItem[]>(await t.callK('/v2/notifications/get', { organizationId: 'acme', userId }));
const mentionsOf = async (userId: string, annotationId: string) => (await inbox(userId)).filter((n) => n.notificationSourceData.annotationId === annotationId);
const byComment = (a: Record<string, any>, b: Record<string, any>) => String(a.targetSubEntityId).localeCompare(String(b.targetSubEntityId));

describe('/v2/commentannotations/add', () => {
  it('adds an annotation with every main field; the default status is OPEN; comment.add is recorded per comment', async () => {
    const res = await add({
      commentAnnotations: [
        {
          annotationId: 'ann-1',
          location: { id: 'page-2', locationName: 'Page 2' },
          targetElement: { elementId: 'p7', targetText: 'quick', occurrence: 1, selectAllContent: false },
          priority: { id: 'P1', name: 'High' },
          assignedTo: { userId: 'bob', name: 'Bob', email: 'bob@example.com' },
          context: { sheet: 'A', row: 3 },
          commentType: 'comment',
          commentData: [
            { commentText: 'first', commentHtml: '<p>first</p>', from: { userId: 'ann', name: 'Ann' }, context: { draft: false } },
            { commentText: 'second', from: { userId: 'bob' } },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Comment Annotation(s) added successfully.',
      data: { 'ann-1': { success: true, annotationId: 'ann-1', commentIds: [expect.any(Number), expect.any(Number)], message: 'Added Successfully' } },
    });
    const commentIds: number[] = dataOf<AddOutcomes>(res)['ann-1']!.commentIds;
    for (const id of commentIds) expect(id >= 100_000 && id < 1_000_000).toBe(true);

    const stored = await getOne('ann-1');
    expect(stored).toEqual({
      annotationId: 'ann-1',
      documentId: 'doc',
      location: { id: 'page-2', locationName: 'Page 2' },
      locationId: 'page-2',
      targetElement: { elementId: 'p7', targetText: 'quick', occurrence: 1, selectAllContent: false },
      status: { id: 'OPEN', name: 'Open', type: 'default' },
      priority: { id: 'P1', name: 'High' },
      assignedTo: { userId: 'bob', name: 'Bob', email: 'bob@example.com' },
      context: { sheet: 'A', row: 3 },
      visibility: { type: 'public' },
      commentType: 'comment',
      resolvedByUserId: null,
      from: { userId: 'ann', name: 'Ann' },
      metadata: { apiKey: t.credentials.apiKey, documentId: 'doc', organizationId: 'acme' },
      createdAt: expect.any(Number),
      lastUpdated: expect.any(Number),
      comments: [
        expect.objectContaining({
          commentId: commentIds[0],
          type: 'text',
          commentText: 'first',
          commentHtml: '<p>first</p>',
          from: { userId: 'ann', name: 'Ann' },
          context: { draft: false },
          mentionedUserIds: [],
          reactionAnnotations: [],
        }),
        expect.objectContaining({ commentId: commentIds[1], type: 'text', commentText: 'second', commentHtml: null, from: { userId: 'bob' }, context: null }),
      ],
    });

    const activities = (await activitiesOf(t, 'ann-1')).sort(byComment);
    const expected = [
      { commentId: commentIds[0]!, text: 'first', actionUser: { userId: 'ann', name: 'Ann' }, label: 'Ann' },
      { commentId: commentIds[1]!, text: 'second', actionUser: { userId: 'bob' }, label: 'bob' },
    ].sort((a, b) => String(a.commentId).localeCompare(String(b.commentId)));
    expect(activities).toEqual(
      expected.map((e) =>
        expect.objectContaining({
          featureType: 'comment',
          actionType: 'comment.add',
          actionUser: e.actionUser,
          targetEntityId: 'ann-1',
          targetSubEntityId: String(e.commentId),
          entityData: { commentText: e.text },
          displayMessageTemplate: '{{actionUser}} added a comment',
          displayMessageTemplateData: { actionUser: e.label },
          metadata: { apiKey: t.credentials.apiKey, documentId: 'doc', organizationId: 'acme' },
        }),
      ),
    );
  });

  it('keeps comments in the order given, and honours a given status and commentId', async () => {
    const commentData = Array.from({ length: 25 }, (_, i) => ({ commentText: `c${i}`, from: { userId: i % 2 ? 'bob' : 'ann' } }));
    const res = await add({
      commentAnnotations: [
        {
          annotationId: 'ordered',
          status: { id: 'IN_PROGRESS', name: 'In progress', type: 'custom', color: '#f80' },
          commentData: [{ commentId: 42, commentText: 'given', from: { userId: 'ann' } }, ...commentData],
        },
      ],
    });
    expect(dataOf<AddOutcomes>(res).ordered!.commentIds[0]).toBe(42);
    const stored = (await getOne('ordered'))!;
    expect(stored.status).toEqual({ id: 'IN_PROGRESS', name: 'In progress', type: 'custom', color: '#f80' });
    expect(stored.comments.map((c) => c.commentText)).toEqual(['given', ...commentData.map((c) => c.commentText)]);
    expect(stored.comments.map((c) => c.commentId)).toEqual(dataOf<AddOutcomes>(res).ordered!.commentIds);
  });

  it("keeps the hosted comment's other fields as given (attachments, draft, recipients, agent, …) and an annotation's suggestion", async () => {
    const attachment = { attachmentId: 7, name: 'spec.pdf', size: 1024, type: 'application/pdf', url: 'https://files.example.com/spec.pdf' };
    const agent = {
      agentSource: 'custom',
      agentId: 'tone',
      executionId: 'ex1',
      agentName: 'Tone',
      url: 'https://agents.example.com',
      reason: { title: 'Tone', description: 'Too harsh', severity: 'low' },
    };
    const kept = {
      status: 'added',
      isDraft: true,
      to: [{ userId: 'bob', name: 'Bob', email: 'bob@example.com' }],
      attachments: [attachment],
      recorders: [{ recorderId: 'r1', type: 'audio' }],
      customList: [{ id: 'bug', label: 'Bug' }],
      agent,
      isCommentResolverUsed: false,
      isCommentTextAvailable: true,
    };
    const res = await add({
      commentAnnotations: [
        {
          annotationId: 'kept-fields',
          suggestion: { type: 'replace', from: 'colour', to: 'color' },
          commentData: [
            { commentText: 'see attached', from: { userId: 'ann' }, ...kept },
            { commentText: 'plain', from: { userId: 'bob' } },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    const stored = (await getOne('kept-fields'))!;
    expect(stored.suggestion).toEqual({ type: 'replace', from: 'colour', to: 'color' });
    expect(stored.comments[0]).toMatchObject(kept);
    // a comment given none of them reads with the defaults, and without the optional ones
    expect(stored.comments[1]).toMatchObject({ status: 'added', isDraft: false, to: [], attachments: [], recorders: [], customList: [] });
    for (const key of ['agent', 'isCommentResolverUsed', 'isCommentTextAvailable']) expect(stored.comments[1]).not.toHaveProperty(key);
    expect((await getOne('ordered')) ?? {}).not.toHaveProperty('suggestion');
    // the same record through comments/get
    const comments = await t.callK('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId: 'kept-fields' });
    expect(dataOf<unknown[]>(comments)[0]).toEqual(stored.comments[0]);
  });

  it('keeps given createdAt and lastUpdated (an import of older comments); the thread takes its first and latest', async () => {
    const day = 86_400_000;
    const t0 = Date.UTC(2024, 0, 15);
    const before = Date.now();
    const res = await add({
      commentAnnotations: [
        {
          annotationId: 'imported',
          commentData: [
            { commentText: 'first', from: { userId: 'ann' }, createdAt: t0, lastUpdated: t0 + day },
            { commentText: 'second', from: { userId: 'bob' }, createdAt: t0 + 2 * day },
            { commentText: 'only edited', from: { userId: 'bob' }, lastUpdated: t0 + 3 * day },
            { commentText: 'now', from: { userId: 'ann' } },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    const stored = (await getOne('imported'))!;
    const times = stored.comments.map((c) => [c.commentText, c.createdAt, c.lastUpdated] as const);
    expect(times.slice(0, 3)).toEqual([
      ['first', t0, t0 + day],
      ['second', t0 + 2 * day, t0 + 2 * day],
      // given only its last edit, it was written then at the latest
      ['only edited', t0 + 3 * day, t0 + 3 * day],
    ]);
    expect(times[3]![1]).toBeGreaterThanOrEqual(before);
    expect(stored.createdAt).toBe(t0);
    // the latest edit is the comment written now (the thread's time is read a moment before its comments')
    expect(stored.lastUpdated).toBeGreaterThanOrEqual(before);
    expect(stored.lastUpdated).toBeLessThanOrEqual(times[3]![2]);
    // the time filters see the thread's own times
    const old = await t.callK('/v2/commentannotations/get', { organizationId: 'acme', createdBefore: t0 + 1 });
    expect(dataOf<Annotation[]>(old).map((a) => a.annotationId)).toEqual(['imported']);
    // lastUpdated before createdAt is refused, naming the field
    const bad = await add({ commentAnnotations: [{ commentData: [{ from: { userId: 'ann' }, createdAt: t0, lastUpdated: t0 - 1 }] }] });
    expect(bad.body).toEqual({
      error: { status: 'INVALID_ARGUMENT', message: 'commentAnnotations[0].commentData[0].lastUpdated must not be before createdAt.' },
    });
  });

  it('generates 20-alphanumeric annotation ids, one entry per annotation', async () => {
    const res = await add({
      commentAnnotations: [
        { commentData: [{ commentText: 'one', from: { userId: 'ann' } }] },
        { commentData: [{ commentText: 'two', from: { userId: 'bob' } }] },
      ],
    });
    const entries = Object.entries(dataOf<AddOutcomes>(res));
    expect(entries).toHaveLength(2);
    for (const [key, entry] of entries) {
      expect(key).toMatch(/^[A-Za-z0-9]{20}$/);
      expect(entry).toEqual({ success: true, annotationId: key, commentIds: [expect.any(Number)], message: 'Added Successfully' });
    }
    expect(new Set(entries.map(([key]) => key)).size).toBe(2);
    expect((await getOne(entries[1]![0]))!.comments[0]!.commentText).toBe('two');
  });

  it('reports an existing annotationId per item and changes nothing in it, while the other items are added', async () => {
    const before = await getOne('ann-1');
    const activitiesBefore = (await activitiesOf(t, 'ann-1')).length;
    const res = await add({
      commentAnnotations: [
        { annotationId: 'ann-1', status: { id: 'RESOLVED' }, commentData: [{ commentText: 'again', from: { userId: 'cat' } }] },
        { annotationId: 'fresh', commentData: [{ from: { userId: 'cat' } }] },
      ],
    });
    expect(res.status).toBe(200);
    expect(dataOf<AddOutcomes>(res)).toEqual({
      'ann-1': { success: false, annotationId: 'ann-1', commentIds: [], message: 'Annotation already exists.' },
      fresh: { success: true, annotationId: 'fresh', commentIds: [expect.any(Number)], message: 'Added Successfully' },
    });
    expect(await getOne('ann-1')).toEqual(before);
    expect(await activitiesOf(t, 'ann-1')).toHaveLength(activitiesBefore);
  });

  it('refuses an annotationId repeated in one call and a commentId already taken, writing nothing', async () => {
    const repeated = await add({
      commentAnnotations: [
        { annotationId: 'twice', commentData: [{ from: { userId: 'ann' } }] },
        { annotationId: 'twice', commentData: [{ from: { userId: 'bob' } }] },
      ],
    });
    expect(repeated.status).toBe(400);
    expect(errorOf(repeated)).toEqual({ status: 'INVALID_ARGUMENT', message: 'commentAnnotations[1].annotationId repeats an earlier annotation: twice.' });
    expect(await getOne('twice')).toBeUndefined();

    const taken = await add({
      commentAnnotations: [
        {
          annotationId: 'same-comment',
          commentData: [
            { commentId: 7, from: { userId: 'ann' } },
            { commentId: 7, from: { userId: 'bob' } },
          ],
        },
      ],
    });
    expect(taken.status).toBe(409);
    expect(errorOf(taken)).toEqual({ status: 'ALREADY_EXISTS', message: 'Comment already exists: 7.' });
    expect(await getOne('same-comment')).toBeUndefined();
    expect(await activitiesOf(t, 'same-comment')).toEqual([]);
  });

  it('notifies users mentioned by userId or contact.userId with a comment notification', async () => {
    const res = await add({
      commentAnnotations: [
        {
          annotationId: 'mention-1',
          location: { id: 'L1' },
          commentData: [
            {
              commentText: 'hey @Bob @Cat',
              from: { userId: 'ann', name: 'Ann' },
              taggedUserContacts: [{ contact: { userId: 'bob', name: 'Bob' } }, { userId: 'cat' }, { userId: 'bob' }, { userId: 'ann' }],
            },
          ],
        },
      ],
    });
    const commentId = dataOf<AddOutcomes>(res)['mention-1']!.commentIds[0];
    expect((await getOne('mention-1'))!.comments[0]!.mentionedUserIds).toEqual(['bob', 'cat', 'ann']);
    for (const userId of ['bob', 'cat']) {
      const received = await mentionsOf(userId, 'mention-1');
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({
        notificationSource: 'comment',
        notificationSourceData: { annotationId: 'mention-1', commentId },
        displayHeadlineMessageTemplate: '{actionUser} mentioned you in a comment',
        displayHeadlineMessageTemplateData: { actionUser: { userId: 'ann', name: 'Ann' } },
        displayBodyMessage: 'hey @Bob @Cat',
        actionUser: { userId: 'ann', name: 'Ann' },
        locationId: 'L1',
        metadata: { documentId: 'doc', organizationId: 'acme' },
        notifyUsersByUserId: { bob: true, cat: true },
      });
    }
    // the author's own mention does not notify the author
    expect(await mentionsOf('ann', 'mention-1')).toEqual([]);
  });

  it('triggerNotification: false suppresses the notification only; triggerActivities: false the activity only', async () => {
    const quietNotification = await add({
      commentAnnotations: [
        {
          annotationId: 'no-notify',
          commentData: [{ commentText: 'shh', from: { userId: 'ann' }, taggedUserContacts: [{ userId: 'bob' }], triggerNotification: false }],
        },
      ],
    });
    expect(quietNotification.status).toBe(200);
    expect(await mentionsOf('bob', 'no-notify')).toEqual([]);
    expect((await activitiesOf(t, 'no-notify')).map((a) => a.actionType)).toEqual(['comment.add']);

    await add({
      commentAnnotations: [
        {
          annotationId: 'no-activity',
          commentData: [{ commentText: 'hi', from: { userId: 'ann' }, taggedUserContacts: [{ userId: 'bob' }], triggerActivities: false }],
        },
      ],
    });
    expect(await activitiesOf(t, 'no-activity')).toEqual([]);
    expect(await mentionsOf('bob', 'no-activity')).toHaveLength(1);

    await add({
      commentAnnotations: [
        {
          annotationId: 'silent',
          commentData: [{ from: { userId: 'ann' }, taggedUserContacts: [{ userId: 'bob' }], triggerNotification: false, triggerActivities: false }],
        },
      ],
    });
    expect(await activitiesOf(t, 'silent')).toEqual([]);
    expect(await mentionsOf('bob', 'silent')).toEqual([]);
  });

  it('does not notify a mentioned user without access to a restricted document', async () => {
    const res = await add({
      documentId: 'secret',
      commentAnnotations: [
        {
          annotationId: 'in-secret',
          commentData: [{ commentText: '@bob @ann', from: { userId: 'cat' }, taggedUserContacts: [{ userId: 'bob' }, { userId: 'ann' }] }],
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(await mentionsOf('bob', 'in-secret')).toEqual([]);
    // ann is a member of the restricted document
    expect(await mentionsOf('ann', 'in-secret')).toHaveLength(1);
  });

  it('verifyUserPermissions refuses authors without access, with details, and writes nothing', async () => {
    const res = await add({
      documentId: 'secret',
      verifyUserPermissions: true,
      commentAnnotations: [
        { annotationId: 'v0', commentData: [{ from: { userId: 'ann' } }] },
        { annotationId: 'v1', commentData: [{ from: { userId: 'bob' } }, { from: { userId: 'ann' } }, { from: { userId: 'cat' } }] },
      ],
    });
    expect(res.status).toBe(403);
    expect(errorOf(res)).toEqual({
      status: 'PERMISSION_DENIED',
      message: 'Some comment authors have no access to the document.',
      details: [{ annotationIndex: 1, usersWithoutAccess: ['bob', 'cat'] }],
    });
    expect(await getOne('v0')).toBeUndefined();
    // authors with access pass
    const ok = await add({
      documentId: 'secret',
      verifyUserPermissions: true,
      commentAnnotations: [{ annotationId: 'v2', commentData: [{ from: { userId: 'ann' } }] }],
    });
    expect(dataOf<AddOutcomes>(ok).v2!.success).toBe(true);
  });

  it('restricted visibility is FAILED_PRECONDITION until enablePrivateComments; then only the author and the named users are notified', async () => {
    const annotation = {
      annotationId: 'private-1',
      visibility: { type: 'restricted', userIds: ['bob'] },
      commentData: [{ commentText: 'private', from: { userId: 'ann' }, taggedUserContacts: [{ userId: 'bob' }, { userId: 'cat' }] }],
    };
    const refused = await add({ commentAnnotations: [{ annotationId: 'public-too', commentData: [{ from: { userId: 'ann' } }] }, annotation] });
    expect(refused.status).toBe(400);
    expect(errorOf(refused)).toEqual({
      status: 'FAILED_PRECONDITION',
      message: 'Private comments are disabled for this API key: enable enablePrivateComments with /v2/workspace/apikeyconfig/update.',
    });
    expect(await getOne('public-too')).toBeUndefined();

    expect((await t.callK('/v2/workspace/apikeyconfig/update', { enablePrivateComments: true })).status).toBe(200);
    const res = await add({
      commentAnnotations: [annotation, { annotationId: 'private-2', visibility: { type: 'restricted' }, commentData: [{ from: { userId: 'cat' } }] }],
    });
    expect(dataOf<AddOutcomes>(res)['private-1']!.success).toBe(true);
    expect((await getOne('private-1'))!.visibility).toEqual({ type: 'restricted', userIds: ['bob'] });
    expect((await getOne('private-2'))!.visibility).toEqual({ type: 'restricted' });
    expect(await mentionsOf('bob', 'private-1')).toHaveLength(1);
    expect(await mentionsOf('cat', 'private-1')).toEqual([]);
  });

  it('needs the organization unless createOrganization and the document unless createDocument', async () => {
    const one = [{ commentData: [{ from: { userId: 'ann' } }] }];
    let res = await t.callK(PATH, { organizationId: 'neworg', documentId: 'd1', commentAnnotations: one });
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'Organization does not exist: neworg. Pass createOrganization: true to create it.' });
    res = await t.callK(PATH, { organizationId: 'neworg', createOrganization: true, documentId: 'd1', commentAnnotations: one });
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'Document does not exist: d1. Pass createDocument: true to create it.' });
    // the failed call created nothing, not even the organization
    expect(dataOf<unknown[]>(await t.callK('/v2/organizations/get', { organizationIds: ['neworg'] }))).toEqual([]);

    res = await t.callK(PATH, { organizationId: 'neworg', createOrganization: true, documentId: 'd1', createDocument: true, commentAnnotations: one });
    expect(res.status).toBe(200);
    expect(dataOf<Array<{ id: string }>>(await t.callK('/v2/organizations/get', { organizationIds: ['neworg'] })).map((o) => o.id)).toEqual(['neworg']);
    expect((await t.callK('/v2/organizations/documents/get', { organizationId: 'neworg', documentIds: ['d1'] })).status).toBe(200);
    res = await add({ documentId: 'made', createDocument: true, commentAnnotations: one });
    expect(res.status).toBe(200);
  });

  it('validates the input, naming the field', async () => {
    const from = { userId: 'ann' };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ organizationId: undefined }, 'organizationId is required.'],
      [{ organizationId: ' ' }, 'organizationId must not be empty.'],
      [{ documentId: undefined }, 'documentId is required.'],
      [{ commentAnnotations: undefined }, 'commentAnnotations is required.'],
      [{ commentAnnotations: {} }, 'commentAnnotations must be an array, not an object.'],
      [{ commentAnnotations: [] }, 'commentAnnotations must have at least 1 item(s).'],
      [{ commentAnnotations: [{}] }, 'commentAnnotations[0].commentData is required.'],
      [{ commentAnnotations: [{ commentData: [] }] }, 'commentAnnotations[0].commentData must have at least 1 item(s).'],
      [{ commentAnnotations: [{ commentData: [{ commentText: 'x' }] }] }, 'commentAnnotations[0].commentData[0].from is required.'],
      [{ commentAnnotations: [{ commentData: [{ from: {} }] }] }, 'commentAnnotations[0].commentData[0].from.userId is required.'],
      [{ commentAnnotations: [{ commentData: [{ from: { userId: '' } }] }] }, 'commentAnnotations[0].commentData[0].from.userId must not be empty.'],
      [
        { commentAnnotations: [{ commentData: [{ from, commentText: 5 }] }] },
        'commentAnnotations[0].commentData[0].commentText must be a string, not a number.',
      ],
      [{ commentAnnotations: [{ commentData: [{ from, commentId: 0 }] }] }, 'commentAnnotations[0].commentData[0].commentId must be at least 1.'],
      [
        { commentAnnotations: [{ commentData: [{ from, triggerNotification: 'no' }] }] },
        'commentAnnotations[0].commentData[0].triggerNotification must be a boolean, not a string.',
      ],
      [
        { commentAnnotations: [{ commentData: [{ from, taggedUserContacts: [{ text: '@x' }] }] }] },
        'commentAnnotations[0].commentData[0].taggedUserContacts[0] needs userId or contact.userId.',
      ],
      [
        { commentAnnotations: [{ commentData: [{ from, taggedUserContacts: [{ contact: { name: 'X' } }] }] }] },
        'commentAnnotations[0].commentData[0].taggedUserContacts[0].contact.userId is required.',
      ],
      [{ commentAnnotations: [{ commentData: [{ from }], annotationId: '' }] }, 'commentAnnotations[0].annotationId must not be empty.'],
      [
        { commentAnnotations: [{ commentData: [{ from }], annotationId: 'has space' }] },
        'commentAnnotations[0].annotationId may contain only letters, digits, _ and -.',
      ],
      [{ commentAnnotations: [{ commentData: [{ from }], status: { name: 'x' } }] }, 'commentAnnotations[0].status.id is required.'],
      [{ commentAnnotations: [{ commentData: [{ from }], location: {} }] }, 'commentAnnotations[0].location.id is required.'],
      [
        { commentAnnotations: [{ commentData: [{ from }], visibility: { type: 'secret' } }] },
        'commentAnnotations[0].visibility.type must be one of: public, restricted.',
      ],
      [{ commentAnnotations: [{ commentData: [{ from }], assignedTo: {} }] }, 'commentAnnotations[0].assignedTo.userId is required.'],
      [{ verifyUserPermissions: 'yes', commentAnnotations: [{ commentData: [{ from }] }] }, 'verifyUserPermissions must be a boolean, not a string.'],
      [{ commentAnnotations: [{ commentData: [{ from, isDraft: 'yes' }] }] }, 'commentAnnotations[0].commentData[0].isDraft must be a boolean, not a string.'],
      [{ commentAnnotations: [{ commentData: [{ from, to: [{}] }] }] }, 'commentAnnotations[0].commentData[0].to[0].userId is required.'],
      [
        { commentAnnotations: [{ commentData: [{ from, attachments: {} }] }] },
        'commentAnnotations[0].commentData[0].attachments must be an array, not an object.',
      ],
      [{ commentAnnotations: [{ commentData: [{ from, createdAt: -1 }] }] }, 'commentAnnotations[0].commentData[0].createdAt must be at least 0.'],
      [{ commentAnnotations: [{ commentData: [{ from, status: '' }] }] }, 'commentAnnotations[0].commentData[0].status must not be empty.'],
    ];
    for (const [data, message] of cases) {
      const res = await add(data);
      expect({ data, status: res.status, body: res.body }).toEqual({ data, status: 400, body: { error: { status: 'INVALID_ARGUMENT', message } } });
    }
    // a non-object targetElement is refused naming the field (the exact wording comes from the shared validator)
    const res = await add({ commentAnnotations: [{ commentData: [{ from }], targetElement: 'p7' }] });
    expect(res.status).toBe(400);
    expect(errorOf(res).status).toBe('INVALID_ARGUMENT');
    expect(errorOf(res).message).toMatch(/^commentAnnotations\[0\]\.targetElement must be /);
  });

  it('keeps API keys apart: another key can neither see nor add to these annotations, and has its own ids', async () => {
    const one = [{ annotationId: 'ann-1', commentData: [{ commentText: 'theirs', from: { userId: 'x' } }] }];
    const refused = await add({ commentAnnotations: one }, other.headersK);
    expect(refused.status).toBe(404);
    expect(errorOf(refused)).toEqual({ status: 'NOT_FOUND', message: 'Organization does not exist: acme. Pass createOrganization: true to create it.' });
    // the other key's own acme/doc, with the same annotation id: no clash
    const theirs = await add({ createOrganization: true, createDocument: true, commentAnnotations: one }, other.headersK);
    expect(dataOf<AddOutcomes>(theirs)['ann-1']).toEqual({
      success: true,
      annotationId: 'ann-1',
      commentIds: [expect.any(Number)],
      message: 'Added Successfully',
    });
    const seenByOther = dataOf<Annotation[]>(await t.callPublic('/v2/commentannotations/get', { organizationId: 'acme' }, other.headersK));
    expect(seenByOther.map((a) => [a.annotationId, a.comments.map((c) => c.commentText)])).toEqual([['ann-1', ['theirs']]]);
    expect((await getOne('ann-1'))!.comments.map((c) => c.commentText)).toEqual(['first', 'second']);
    expect((await activitiesOf(t, 'ann-1')).every((a) => a.actionUser.userId !== 'x')).toBe(true);
  });
});
