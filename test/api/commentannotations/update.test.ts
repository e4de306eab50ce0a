import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ActivityRecord, activitiesOf, addAnnotation } from '../../helpers/comments.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';

const PATH = '/v2/commentannotations/update';

interface User {
  userId: string;
  name?: string;
  email?: string;
}
/** An annotation as /v2/commentannotations/get answers it (the fields these tests read). */
interface Annotation {
  annotationId: string;
  status: Record<string, unknown>;
  priority: unknown;
  assignedTo: User | null;
  visibility: { type: string; userIds?: string[] };
  resolvedByUserId: string | null;
  from: User;
  lastUpdated: number;
  comments: Array<{
    from: User;
    taggedUserContacts: unknown[];
    mentionedUserIds: string[];
    to: User[];
    reactionAnnotations: Array<{ icon: string; from: User }>;
  }>;
}
/** The per-annotation outcomes of /v2/commentannotations/update, keyed by annotation id. */
type Outcomes = Record<string, { success: boolean; message: string }>;
let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
let id: string;
let second: string;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  id = (
    await addAnnotation(t, {
      location: { id: 'L1', locationName: 'One' },
      commentData: [{ commentText: 'x', from: { userId: 'ann', name: 'Ann' }, triggerActivities: false }],
    })
  ).annotationId;
  second = (await addAnnotation(t, { commentData: [{ commentText: 'y', from: { userId: 'dan' }, triggerActivities: false }] })).annotationId;
  other = await createWorkspace(t);
});
afterAll(() => t.close());

const update = (data: Record<string, unknown>, headers?: Record<string, string>) =>
  t.callK(PATH, { organizationId: 'acme', annotationIds: [id], ...data }, headers);
const get = async (annotationId = id) =>
  dataOf<Annotation[]>(await t.callK('/v2/commentannotations/get', { organizationId: 'acme', annotationIds: [annotationId] }))[0]!;

describe('/v2/commentannotations/update', () => {
  it('changes the status, recording comment.statusChange with changes {status: {from, to}}', async () => {
    const before = await get();
    const res = await update({
      annotationIds: [id, 'ghost'],
      actionUser: { userId: 'bob', name: 'Bob' },
      updatedData: { status: { id: 'RESOLVED', name: 'Resolved', type: 'default' } },
    });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Annotations updated successfully.',
      data: { [id]: { success: true, message: 'Updated Successfully' }, ghost: { success: false, message: 'Annotation not found.' } },
    });
    const after = await get();
    expect(after.status).toEqual({ id: 'RESOLVED', name: 'Resolved', type: 'default' });
    expect(after.lastUpdated).toBeGreaterThanOrEqual(before.lastUpdated);
    // nothing else changed
    expect({ ...after, status: null, lastUpdated: null }).toEqual({ ...before, status: null, lastUpdated: null });
    expect(await activitiesOf(t, id)).toEqual([
      expect.objectContaining({
        featureType: 'comment',
        actionType: 'comment.statusChange',
        actionUser: { userId: 'bob', name: 'Bob' },
        targetEntityId: id,
        targetSubEntityId: null,
        changes: { status: { from: 'OPEN', to: 'RESOLVED' } },
        displayMessageTemplate: '{{actionUser}} changed the status to {{status}}',
        displayMessageTemplateData: { actionUser: 'Bob', status: 'Resolved' },
        metadata: { apiKey: t.credentials.apiKey, documentId: 'doc', organizationId: 'acme' },
      }),
    ]);
    // filtering by the new status finds it
    expect(
      dataOf<Annotation[]>(await t.callK('/v2/commentannotations/get', { organizationId: 'acme', statusIds: ['RESOLVED'] })).map((a) => a.annotationId),
    ).toEqual([id]);
  });

  it('records no activity when the status id does not change; without actionUser the author acts', async () => {
    const count = (await activitiesOf(t, id)).length;
    expect(dataOf<Outcomes>(await update({ updatedData: { status: { id: 'RESOLVED', name: 'Done' } } }))[id]!.success).toBe(true);
    expect((await get()).status).toEqual({ id: 'RESOLVED', name: 'Done' });
    expect(await activitiesOf(t, id)).toHaveLength(count);

    await update({ updatedData: { status: { id: 'OPEN' } } });
    const last = (await activitiesOf(t, id)).filter((a) => a.changes?.status?.to === 'OPEN');
    expect(last.map((a) => [a.actionType, a.actionUser, a.changes, a.displayMessageTemplateData])).toEqual([
      ['comment.statusChange', { userId: 'ann' }, { status: { from: 'RESOLVED', to: 'OPEN' } }, { actionUser: 'ann', status: 'OPEN' }],
    ]);
  });

  it('assigns, recording comment.assign with changes {assignedTo: {from, to}}; the same assignee or unassigning records nothing', async () => {
    const assigns = async () => (await activitiesOf(t, id)).filter((a) => a.actionType === 'comment.assign');
    await update({ actionUser: { userId: 'bob', name: 'Bob' }, updatedData: { assignedTo: { userId: 'cat', name: 'Cat' } } });
    expect((await get()).assignedTo).toEqual({ userId: 'cat', name: 'Cat' });
    expect(await assigns()).toEqual([
      expect.objectContaining({
        featureType: 'comment',
        actionType: 'comment.assign',
        actionUser: { userId: 'bob', name: 'Bob' },
        targetEntityId: id,
        changes: { assignedTo: { from: null, to: 'cat' } },
        displayMessageTemplate: '{{actionUser}} assigned the comment to {{assignee}}',
        displayMessageTemplateData: { actionUser: 'Bob', assignee: 'Cat' },
      }),
    ]);
    await update({ updatedData: { assignedTo: { userId: 'cat', name: 'Cat again' } } });
    expect((await get()).assignedTo).toEqual({ userId: 'cat', name: 'Cat again' });
    expect(await assigns()).toHaveLength(1);

    await update({ actionUser: { userId: 'bob' }, updatedData: { assignedTo: { userId: 'dan' } } });
    expect((await assigns()).map((a) => [a.changes, a.displayMessageTemplateData])).toContainEqual([
      { assignedTo: { from: 'cat', to: 'dan' } },
      { actionUser: 'bob', assignee: 'dan' },
    ]);
    expect(await assigns()).toHaveLength(2);

    await update({ updatedData: { assignedTo: null } });
    expect((await get()).assignedTo).toBeNull();
    expect(await assigns()).toHaveLength(2);
  });

  it('updates priority, context, location and resolvedByUserId on several annotations at once, reporting each once', async () => {
    const res = await update({
      annotationIds: [id, second, id],
      updatedData: { priority: 'high', context: { k: 1 }, location: { id: 'L9', locationName: 'Nine' }, resolvedByUserId: 'bob' },
    });
    expect(dataOf<Outcomes>(res)).toEqual({
      [id]: { success: true, message: 'Updated Successfully' },
      [second]: { success: true, message: 'Updated Successfully' },
    });
    for (const annotationId of [id, second]) {
      expect(await get(annotationId)).toMatchObject({
        priority: 'high',
        context: { k: 1 },
        location: { id: 'L9', locationName: 'Nine' },
        locationId: 'L9',
        resolvedByUserId: 'bob',
      });
    }
    expect(dataOf<Annotation[]>(await t.callK('/v2/commentannotations/get', { organizationId: 'acme', locationIds: ['L1'] }))).toEqual([]);
    await update({ updatedData: { resolvedByUserId: null } });
    expect((await get()).resolvedByUserId).toBeNull();
    expect((await get(second)).resolvedByUserId).toBe('bob');
    // none of these are status or assignment changes
    expect((await activitiesOf(t, second)).map((a) => a.actionType)).toEqual([]);
  });

  it('restricted visibility needs enablePrivateComments; then the annotation is hidden from readers not named', async () => {
    const refused = await update({ updatedData: { visibility: { type: 'restricted', userIds: ['bob'] } } });
    expect(refused.status).toBe(400);
    expect(errorOf(refused)).toEqual({
      status: 'FAILED_PRECONDITION',
      message: 'Private comments are disabled for this API key: enable enablePrivateComments with /v2/workspace/apikeyconfig/update.',
    });
    expect((await get()).visibility).toEqual({ type: 'public' });

    await t.callK('/v2/workspace/apikeyconfig/update', { enablePrivateComments: true });
    expect((await update({ updatedData: { visibility: { type: 'restricted', userIds: ['bob'] } } })).status).toBe(200);
    expect((await get()).visibility).toEqual({ type: 'restricted', userIds: ['bob'] });
    const readerSees = async (userId: string) =>
      dataOf<Annotation[]>(await t.callK('/v2/commentannotations/get', { organizationId: 'acme', annotationIds: [id], userId })).length;
    expect([await readerSees('bob'), await readerSees('ann'), await readerSees('cat')]).toEqual([1, 1, 0]);
    await update({ updatedData: { visibility: { type: 'public' } } });
    expect((await get()).visibility).toEqual({ type: 'public' });
    expect(await readerSees('cat')).toBe(1);
  });

  it('validates the input, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ updatedData: {} }, 'updatedData must change at least one field.'],
      [{ updatedData: { unknownField: 1 } }, 'updatedData must change at least one field.'],
      [{ updatedData: undefined }, 'updatedData or updateUsers is required.'],
      [{ annotationIds: [], updatedData: { priority: 1 } }, 'annotationIds must have at least 1 item(s).'],
      [{ organizationId: undefined, updatedData: { priority: 1 } }, 'organizationId is required.'],
      [{ updatedData: { status: {} } }, 'updatedData.status.id is required.'],
      [{ updatedData: { assignedTo: {} } }, 'updatedData.assignedTo.userId is required.'],
      [{ updatedData: { location: {} } }, 'updatedData.location.id is required.'],
      [{ updatedData: { visibility: { type: 'hidden' } } }, 'updatedData.visibility.type must be one of: public, restricted.'],
      [{ updatedData: { resolvedByUserId: '' } }, 'updatedData.resolvedByUserId must not be empty.'],
      [{ actionUser: {}, updatedData: { priority: 1 } }, 'actionUser.userId is required.'],
      [{ updateUsers: [] }, 'updateUsers must have at least 1 item(s).'],
      [{ updateUsers: [{ oldUser: { userId: 'a' } }] }, 'updateUsers[0].newUser is required.'],
      [{ updateUsers: [{ oldUser: {}, newUser: { userId: 'b' } }] }, 'updateUsers[0].oldUser.userId is required.'],
      [
        {
          updateUsers: [
            { oldUser: { userId: 'a' }, newUser: { userId: 'b' } },
            { oldUser: { userId: 'a' }, newUser: { userId: 'c' } },
          ],
        },
        'updateUsers[1].oldUser names a user an earlier entry replaces: a.',
      ],
      [{ documentIds: [], updatedData: { priority: 1 } }, 'documentIds must have at least 1 item(s).'],
      [{ createdAfter: 'yesterday', updatedData: { priority: 1 } }, 'createdAfter must be a number, not a string.'],
    ];
    for (const [data, message] of cases) {
      const res = await update(data);
      expect({ data, status: res.status, body: res.body }).toEqual({ data, status: 400, body: { error: { status: 'INVALID_ARGUMENT', message } } });
    }
  });

  it("cannot change another API key's annotations", async () => {
    const before = await get();
    const count = (await activitiesOf(t, id)).length;
    const res = await update({ updatedData: { priority: 'low', status: { id: 'REJECTED' }, assignedTo: { userId: 'x' } } }, other.headersK);
    expect(res.status).toBe(200);
    expect(dataOf<Outcomes>(res)).toEqual({ [id]: { success: false, message: 'Annotation not found.' } });
    expect(await get()).toEqual(before);
    expect(await activitiesOf(t, id)).toHaveLength(count);
  });
});

describe('/v2/commentannotations/update by filters and updateUsers', () => {
  const org = 'globex';
  const call = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK(PATH, { organizationId: org, ...data }, headers);
  const thread = (documentId: string, annotation: Record<string, unknown>) =>
    addAnnotation(t, annotation, { organizationId: org, documentId, createOrganization: true, createDocument: true });
  const read = async (annotationId: string) =>
    dataOf<Annotation[]>(await t.callK('/v2/commentannotations/get', { organizationId: org, annotationIds: [annotationId] }))[0]!;

  it('changes every annotation the filters select, and says which; ids no filter selects are not found', async () => {
    const a = await thread('d1', { location: { id: 'p1' }, commentData: [{ commentText: 'a', from: { userId: 'ann' } }] });
    const b = await thread('d1', { location: { id: 'p2' }, commentData: [{ commentText: 'b', from: { userId: 'bob' } }] });
    const c = await thread('d2', { location: { id: 'p1' }, commentData: [{ commentText: 'c', from: { userId: 'ann' } }] });
    const priorities = async () => Promise.all([a, b, c].map(async (x) => (await read(x.annotationId)).priority));
    // a document
    let res = await call({ documentId: 'd1', updatedData: { priority: 'P1' } });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Annotations updated successfully.',
      data: { [a.annotationId]: { success: true, message: 'Updated Successfully' }, [b.annotationId]: { success: true, message: 'Updated Successfully' } },
    });
    expect(await priorities()).toEqual(['P1', 'P1', null]);
    // a location across documents, narrowed by an author
    res = await call({ locationIds: ['p1'], userIds: ['ann'], updatedData: { priority: 'P2' } });
    expect(Object.keys(dataOf<Outcomes>(res)).sort()).toEqual([a.annotationId, c.annotationId].sort());
    expect(await priorities()).toEqual(['P2', 'P1', 'P2']);
    // annotationIds with a filter: an id the filter does not select is reported not found, and not changed
    res = await call({ annotationIds: [b.annotationId, c.annotationId, 'ghost'], documentIds: ['d2'], updatedData: { priority: 'P3' } });
    expect(dataOf<Outcomes>(res)).toEqual({
      [b.annotationId]: { success: false, message: 'Annotation not found.' },
      [c.annotationId]: { success: true, message: 'Updated Successfully' },
      ghost: { success: false, message: 'Annotation not found.' },
    });
    expect(await priorities()).toEqual(['P2', 'P1', 'P3']);
    // a status filter, and a status change recorded for each selected one
    res = await call({ statusIds: ['OPEN'], documentId: 'd1', updatedData: { status: { id: 'RESOLVED', name: 'Resolved' } } });
    expect(Object.keys(dataOf<Outcomes>(res)).sort()).toEqual([a.annotationId, b.annotationId].sort());
    const changes = await t.callK('/v2/activities/get', { organizationId: org, actionTypes: ['comment.statusChange'] });
    expect(
      dataOf<ActivityRecord[]>(changes)
        .map((x) => x.targetEntityId)
        .sort(),
    ).toEqual([a.annotationId, b.annotationId].sort());
    // nothing selected: success with no entries
    res = await call({ documentId: 'nowhere', updatedData: { priority: 'P9' } });
    expect(dataOf<Outcomes>(res)).toEqual({});
  });

  it('refuses filters that select more than 1,000 annotations, changing none', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => ({ annotationId: `bulk-${i}`, commentData: [{ commentText: String(i), from: { userId: 'ann' } }] }));
    for (let i = 0; i < many.length; i += 100) {
      const res = await t.callK('/v2/commentannotations/add', {
        organizationId: 'bulk',
        documentId: 'd',
        createOrganization: true,
        createDocument: true,
        commentAnnotations: many.slice(i, i + 100),
      });
      expect(res.status).toBe(200);
    }
    const res = await t.callK(PATH, { organizationId: 'bulk', updatedData: { priority: 'high' } });
    expect(res.body).toEqual({
      error: { status: 'INVALID_ARGUMENT', message: 'The filters select more than 1000 annotations: narrow them (annotationIds, documentIds, …).' },
    });
    const page = await t.callK('/v2/commentannotations/get', { organizationId: 'bulk', pageSize: 1000 });
    expect(dataOf<Annotation[]>(page).every((x) => x.priority === null)).toBe(true);
    // narrower: fine
    const narrow = await t.callK(PATH, { organizationId: 'bulk', annotationIds: ['bulk-0', 'bulk-1000'], updatedData: { priority: 'high' } });
    expect(Object.values(dataOf<Outcomes>(narrow))).toEqual([
      { success: true, message: 'Updated Successfully' },
      { success: true, message: 'Updated Successfully' },
    ]);
  });

  it("puts the new user in the old one's place everywhere in the selected threads", async () => {
    await t.callK('/v2/workspace/apikeyconfig/update', { enablePrivateComments: true });
    const guest = { userId: 'guest-1', name: 'Guest' };
    const gus = { userId: 'gus', name: 'Gus', email: 'gus@example.com' };
    const x = await thread('users', {
      assignedTo: guest,
      visibility: { type: 'restricted', userIds: ['guest-1', 'ann'] },
      commentData: [
        { commentText: 'from the guest', from: guest },
        {
          commentText: 'hi @Guest',
          from: { userId: 'ann' },
          taggedUserContacts: [{ userId: 'guest-1' }, { contact: { ...guest }, text: '@Guest' }],
          to: [guest],
        },
      ],
    });
    const untouched = await thread('users', { commentData: [{ commentText: 'elsewhere', from: guest }] });
    await t.callK('/v2/reactions/add', { organizationId: org, annotationId: x.annotationId, commentId: x.commentIds[1], icon: 'heart', from: guest });
    await t.callK('/v2/reactions/add', { organizationId: org, annotationId: x.annotationId, commentId: x.commentIds[1], icon: 'heart', from: gus });
    await t.callK('/v2/reactions/add', { organizationId: org, annotationId: x.annotationId, commentId: x.commentIds[1], icon: 'thumbsup', from: guest });
    await t.callK(PATH, { organizationId: org, annotationIds: [x.annotationId], updatedData: { resolvedByUserId: 'guest-1' } });
    expect((await t.callK('/v2/commentannotations/read/update', { organizationId: org, annotationIds: [x.annotationId], userId: 'guest-1' })).status).toBe(200);

    const res = await call({ annotationIds: [x.annotationId], updateUsers: [{ oldUser: { userId: 'guest-1' }, newUser: gus }] });
    expect(dataOf<Outcomes>(res)).toEqual({ [x.annotationId]: { success: true, message: 'Updated Successfully' } });
    const after = await read(x.annotationId);
    expect(after.assignedTo).toEqual(gus);
    expect(after.resolvedByUserId).toBe('gus');
    expect(after.visibility).toEqual({ type: 'restricted', userIds: ['gus', 'ann'] });
    expect(after.from).toEqual(gus);
    expect(after.comments[0]!.from).toEqual(gus);
    expect(after.comments[1]!.taggedUserContacts).toEqual([{ userId: 'gus' }, { contact: gus, text: '@Guest' }]);
    expect(after.comments[1]!.mentionedUserIds).toEqual(['gus']);
    expect(after.comments[1]!.to).toEqual([gus]);
    // gus had a heart already: one heart each, the thumbs-up moves
    expect(after.comments[1]!.reactionAnnotations.map((r) => [r.icon, r.from.userId])).toEqual([
      ['heart', 'gus'],
      ['thumbsup', 'gus'],
    ]);
    expect(JSON.stringify(after)).not.toContain('guest-1');
    // the thread is gus's now: his filters find it, the guest's do not
    const byAuthor = async (userId: string) =>
      dataOf<Annotation[]>(await t.callK('/v2/commentannotations/get', { organizationId: org, documentId: 'users', userIds: [userId] })).map(
        (a) => a.annotationId,
      );
    expect(await byAuthor('gus')).toEqual([x.annotationId]);
    expect(await byAuthor('guest-1')).toEqual([untouched.annotationId]);
    // and the private thread is visible to gus as a reader
    const asReader = await t.callK('/v2/commentannotations/get', { organizationId: org, annotationIds: [x.annotationId], userId: 'gus' });
    expect(dataOf<Annotation[]>(asReader)).toHaveLength(1);
    // the guest's read mark is gus's: of the two threads only the other one is unread for him
    const counts = await t.callK('/v2/commentannotations/count/get', { organizationId: org, documentIds: ['users'], userId: 'gus' });
    expect(dataOf<{ users: { unread: number } }>(counts).users.unread).toBe(1);
  });

  it('applies replacements at once (a → b, b → c), after updatedData, and only in the calling key', async () => {
    const y = await thread('chain', {
      assignedTo: { userId: 'a' },
      commentData: [
        { commentText: '1', from: { userId: 'a' } },
        { commentText: '2', from: { userId: 'b' } },
      ],
    });
    const res = await call({
      documentId: 'chain',
      updatedData: { assignedTo: { userId: 'b' } },
      updateUsers: [
        { oldUser: { userId: 'a' }, newUser: { userId: 'b', name: 'Bea' } },
        { oldUser: { userId: 'b' }, newUser: { userId: 'c' } },
      ],
    });
    expect(dataOf<Outcomes>(res)).toEqual({ [y.annotationId]: { success: true, message: 'Updated Successfully' } });
    const after = await read(y.annotationId);
    expect(after.comments.map((c) => c.from)).toEqual([{ userId: 'b', name: 'Bea' }, { userId: 'c' }]);
    // updatedData assigned b, whom the replacement then moved to c
    expect(after.assignedTo).toEqual({ userId: 'c' });
    // another key: nothing selected, nothing changed
    const foreign = await t.callK(
      PATH,
      { organizationId: org, documentId: 'chain', updateUsers: [{ oldUser: { userId: 'b' }, newUser: { userId: 'z' } }] },
      other.headersK,
    );
    expect(dataOf<Outcomes>(foreign)).toEqual({});
    expect((await read(y.annotationId)).comments[0]!.from).toEqual({ userId: 'b', name: 'Bea' });
  });
});
