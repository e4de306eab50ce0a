import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activitiesOf, addAnnotation } from '../../helpers/comments.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }, { documentId: 'secret', accessType: 'restricted' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'ann', name: 'Ann' }, { userId: 'bob', name: 'Bob' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'secret', users: [{ userId: 'ann' }] });
});
afterAll(() => t.close());

const inbox = async (userId: string) => (await t.callK('/v2/notifications/get', { organizationId: 'acme', userId })).body.result.data;

describe('/v2/commentannotations/add', () => {
  it('adds an annotation with every main field and its comments, records comment.add activities', async () => {
    const res = await t.callK('/v2/commentannotations/add', {
      organizationId: 'acme',
      documentId: 'doc',
      commentAnnotations: [
        {
          annotationId: 'ann-1',
          location: { id: 'page-2', locationName: 'Page 2' },
          targetElement: { elementId: 'p7', targetText: 'quick', occurrence: 1 },
          priority: { id: 'P1' },
          assignedTo: { userId: 'bob', name: 'Bob' },
          context: { sheet: 'A' },
          commentType: 'comment',
          commentData: [{ commentText: 'first', commentHtml: '<p>first</p>', from: { userId: 'ann', name: 'Ann' } }, { commentText: 'second', from: { userId: 'bob' } }],
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.result.message).toBe('Comment Annotation(s) added successfully.');
    expect(res.body.result.data['ann-1']).toEqual({ success: true, annotationId: 'ann-1', commentIds: [expect.any(Number), expect.any(Number)], message: 'Added Successfully' });
    const [stored] = (await t.callK('/v2/commentannotations/get', { organizationId: 'acme', annotationIds: ['ann-1'] })).body.result.data;
    expect(stored).toMatchObject({
      annotationId: 'ann-1',
      documentId: 'doc',
      location: { id: 'page-2', locationName: 'Page 2' },
      locationId: 'page-2',
      targetElement: { elementId: 'p7', targetText: 'quick', occurrence: 1 },
      status: { id: 'OPEN', name: 'Open', type: 'default' },
      priority: { id: 'P1' },
      assignedTo: { userId: 'bob', name: 'Bob' },
      context: { sheet: 'A' },
      visibility: { type: 'public' },
      from: { userId: 'ann', name: 'Ann' },
    });
    expect(stored.comments.map((c: any) => [c.commentText, c.commentId >= 100000 && c.commentId < 1000000])).toEqual([['first', true], ['second', true]]);
    const activities = await activitiesOf(t, 'ann-1');
    expect(activities.map((a) => [a.featureType, a.actionType, a.targetSubEntityId, a.displayMessageTemplate])).toEqual([
      ['comment', 'comment.add', String(stored.comments[0].commentId), '{{actionUser}} added a comment'],
      ['comment', 'comment.add', String(stored.comments[1].commentId), '{{actionUser}} added a comment'],
    ]);
  });

  it('generates a 20-character id, and reports an existing annotationId per item', async () => {
    const { annotationId } = await addAnnotation(t, { commentData: [{ commentText: 'x', from: { userId: 'ann' } }] });
    expect(annotationId).toMatch(/^[A-Za-z0-9]{20}$/);
    const again = await t.callK('/v2/commentannotations/add', { organizationId: 'acme', documentId: 'doc', commentAnnotations: [{ annotationId: 'ann-1', commentData: [{ from: { userId: 'ann' } }] }] });
    expect(again.body.result.data['ann-1']).toEqual({ success: false, annotationId: 'ann-1', commentIds: [], message: 'Annotation already exists.' });
  });

  it('notifies mentioned users who can see the document; triggerNotification and triggerActivities false suppress', async () => {
    const { annotationId, commentIds } = await addAnnotation(t, { commentData: [{ commentText: 'hey @Bob', from: { userId: 'ann', name: 'Ann' }, taggedUserContacts: [{ contact: { userId: 'bob', name: 'Bob' } }] }] });
    const bobs = await inbox('bob');
    expect(bobs[0]).toMatchObject({
      notificationSource: 'comment',
      notificationSourceData: { annotationId, commentId: commentIds[0] },
      displayHeadlineMessageTemplate: '{actionUser} mentioned you in a comment',
      displayBodyMessage: 'hey @Bob',
      actionUser: { userId: 'ann', name: 'Ann' },
    });
    const quiet = await addAnnotation(t, { commentData: [{ commentText: 'shh', from: { userId: 'ann' }, taggedUserContacts: [{ userId: 'bob' }], triggerNotification: false, triggerActivities: false }] });
    expect((await inbox('bob')).length).toBe(bobs.length);
    expect(await activitiesOf(t, quiet.annotationId)).toEqual([]);
    // bob has no access to the restricted document: a mention there does not reach him
    await t.callK('/v2/commentannotations/add', { organizationId: 'acme', documentId: 'secret', commentAnnotations: [{ commentData: [{ commentText: '@bob', from: { userId: 'ann' }, taggedUserContacts: [{ userId: 'bob' }] }] }] });
    expect((await inbox('bob')).length).toBe(bobs.length);
  });

  it('needs enablePrivateComments for restricted visibility', async () => {
    const annotation = { visibility: { type: 'restricted', userIds: ['bob'] }, commentData: [{ commentText: 'private', from: { userId: 'ann' } }] };
    const refused = await t.callK('/v2/commentannotations/add', { organizationId: 'acme', documentId: 'doc', commentAnnotations: [annotation] });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toEqual({ status: 'FAILED_PRECONDITION', message: 'Private comments are disabled for this API key: enable enablePrivateComments with /v2/workspace/apikeyconfig/update.' });
    await t.callK('/v2/workspace/apikeyconfig/update', { enablePrivateComments: true });
    const { annotationId } = await addAnnotation(t, annotation);
    const [stored] = (await t.callK('/v2/commentannotations/get', { organizationId: 'acme', annotationIds: [annotationId] })).body.result.data;
    expect(stored.visibility).toEqual({ type: 'restricted', userIds: ['bob'] });
  });

  it('verifyUserPermissions refuses authors without access, with details', async () => {
    const res = await t.callK('/v2/commentannotations/add', { organizationId: 'acme', documentId: 'secret', verifyUserPermissions: true, commentAnnotations: [{ commentData: [{ from: { userId: 'bob' } }] }] });
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({ status: 'PERMISSION_DENIED', message: 'Some comment authors have no access to the document.', details: [{ annotationIndex: 0, usersWithoutAccess: ['bob'] }] });
  });

  it('needs the document unless createDocument, and validates the input', async () => {
    expect((await t.callK('/v2/commentannotations/add', { organizationId: 'acme', documentId: 'nope', commentAnnotations: [{ commentData: [{ from: { userId: 'ann' } }] }] })).status).toBe(404);
    expect((await t.callK('/v2/commentannotations/add', { organizationId: 'acme', documentId: 'made', createDocument: true, commentAnnotations: [{ commentData: [{ from: { userId: 'ann' } }] }] })).status).toBe(200);
    expect((await t.callK('/v2/commentannotations/add', { organizationId: 'acme', documentId: 'doc', commentAnnotations: [{ commentData: [] }] })).body.error.message).toBe('commentAnnotations[0].commentData must have at least 1 item(s).');
    expect((await t.callK('/v2/commentannotations/add', { organizationId: 'acme', documentId: 'doc', commentAnnotations: [{ commentData: [{ commentText: 'x' }] }] })).body.error.message).toBe('commentAnnotations[0].commentData[0].from is required.');
  });

  it('keeps API keys apart', async () => {
    const other = await createWorkspace(t);
    expect((await t.callPublic('/v2/commentannotations/add', { organizationId: 'acme', documentId: 'doc', commentAnnotations: [{ commentData: [{ from: { userId: 'x' } }] }] }, other.headersK)).status).toBe(404);
    expect((await t.callPublic('/v2/commentannotations/get', { organizationId: 'acme', annotationIds: ['ann-1'] }, other.headersK)).body.result.data).toEqual([]);
  });
});
