import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activitiesOf, addAnnotation } from '../../../helpers/comments.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

const PATH = '/v2/commentannotations/comments/update';

/** A comment as /v2/commentannotations/comments/get answers it (the fields these tests read). */
interface StoredComment {
  commentText: string | null;
  status: string;
  mentionedUserIds: string[];
  taggedUserContacts: unknown[];
  lastUpdated: number;
}
let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
let id: string;
let commentIds: number[];
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  ({ annotationId: id, commentIds } = await addAnnotation(t, {
    commentData: [
      {
        commentText: 'old',
        commentHtml: '<p>old</p>',
        from: { userId: 'ann', name: 'Ann' },
        taggedUserContacts: [{ userId: 'cat' }],
        context: { a: 1 },
        triggerActivities: false,
      },
      { commentText: 'other', from: { userId: 'bob' }, triggerActivities: false },
    ],
  }));
  other = await createWorkspace(t);
});
afterAll(() => t.close());

const update = (data: Record<string, unknown>, headers?: Record<string, string>) =>
  t.callK(PATH, { organizationId: 'acme', annotationId: id, ...data }, headers);
const comments = async () => dataOf<StoredComment[]>(await t.callK('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId: id }));
const mentioning = async (userId: string) =>
  dataOf<Array<{ annotationId: string }>>(await t.callK('/v2/commentannotations/get', { organizationId: 'acme', mentionedUserIds: [userId] })).map(
    (a) => a.annotationId,
  );

describe('/v2/commentannotations/comments/update', () => {
  it('edits the text per id, recording comment.update with the change; the author acts unless actionUser is given', async () => {
    const [before] = await comments();
    const res = await update({ commentIds: [commentIds[0], 1, commentIds[0]], updatedData: { commentText: 'new' } });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Comment updated successfully.',
      data: { [commentIds[0]!]: { success: true, message: 'Updated successfully' }, 1: { success: false, message: 'Not found' } },
    });
    const [after, untouched] = await comments();
    // an edited text marks the comment updated, as the hosted SDK does
    expect(before!.status).toBe('added');
    expect(after).toEqual({ ...before, commentText: 'new', status: 'updated', lastUpdated: expect.any(Number) });
    expect(after!.lastUpdated).toBeGreaterThanOrEqual(before!.lastUpdated);
    expect(untouched!.commentText).toBe('other');
    expect(await activitiesOf(t, id)).toEqual([
      expect.objectContaining({
        featureType: 'comment',
        actionType: 'comment.update',
        actionUser: { userId: 'ann', name: 'Ann' },
        targetEntityId: id,
        targetSubEntityId: String(commentIds[0]),
        changes: { commentText: { from: 'old', to: 'new' } },
        displayMessageTemplate: '{{actionUser}} edited a comment',
        displayMessageTemplateData: { actionUser: 'Ann' },
        metadata: { apiKey: t.credentials.apiKey, documentId: 'doc', organizationId: 'acme' },
      }),
    ]);

    await update({ commentIds: [commentIds[1]], actionUser: { userId: 'mod', name: 'Moderator' }, updatedData: { commentText: 'edited' } });
    const byModerator = (await activitiesOf(t, id)).filter((a) => a.targetSubEntityId === String(commentIds[1]));
    expect(byModerator.map((a) => [a.actionType, a.actionUser, a.changes, a.displayMessageTemplateData])).toEqual([
      ['comment.update', { userId: 'mod', name: 'Moderator' }, { commentText: { from: 'other', to: 'edited' } }, { actionUser: 'Moderator' }],
    ]);
  });

  it('edits html and context without a text change (changes is null)', async () => {
    await update({ commentIds: [commentIds[0]], updatedData: { commentHtml: '<p>new</p>', context: { b: 2 } } });
    const [c] = await comments();
    expect(c).toMatchObject({ commentText: 'new', commentHtml: '<p>new</p>', context: { b: 2 }, mentionedUserIds: ['cat'] });
    const last = (await activitiesOf(t, id)).filter((a) => a.targetSubEntityId === String(commentIds[0]));
    expect(last.map((a) => a.changes)).toContainEqual(null);
  });

  it('replacing taggedUserContacts changes mentionedUserIds (and what the mentionedUserIds filter finds)', async () => {
    expect(await mentioning('cat')).toEqual([id]);
    const res = await update({
      commentIds: [commentIds[0]],
      updatedData: { taggedUserContacts: [{ userId: 'bob' }, { contact: { userId: 'dan', name: 'Dan' } }, { userId: 'bob' }] },
    });
    expect(dataOf<Record<string, { success: boolean; message: string }>>(res)[commentIds[0]!]).toEqual({ success: true, message: 'Updated successfully' });
    const [c] = await comments();
    expect(c!.mentionedUserIds).toEqual(['bob', 'dan']);
    expect(c!.taggedUserContacts).toEqual([{ userId: 'bob' }, { contact: { userId: 'dan', name: 'Dan' } }, { userId: 'bob' }]);
    expect(c!.commentText).toBe('new');
    expect(await mentioning('cat')).toEqual([]);
    expect(await mentioning('dan')).toEqual([id]);
    await update({ commentIds: [commentIds[0]], updatedData: { taggedUserContacts: [] } });
    expect((await comments())[0]!.mentionedUserIds).toEqual([]);
    expect(await mentioning('bob')).toEqual([]);
  });

  it("changes the hosted comment's kept fields, keeping the ones not named; a given status wins over updated", async () => {
    const thread = await addAnnotation(t, { commentData: [{ commentText: 'draft', from: { userId: 'bob' }, recorders: [{ recorderId: 'r1' }] }] });
    const change = (updatedData: Record<string, unknown>) => update({ annotationId: thread.annotationId, commentIds: thread.commentIds, updatedData });
    const read = async () =>
      dataOf<StoredComment[]>(await t.callK('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId: thread.annotationId }))[0];
    const attachment = { attachmentId: 1, name: 'a.png', url: 'https://files.example.com/a.png' };
    await change({ isDraft: true, attachments: [attachment], to: [{ userId: 'ann', name: 'Ann' }] });
    let c = await read();
    // no text edited: the status stays
    expect(c).toMatchObject({
      commentText: 'draft',
      status: 'added',
      isDraft: true,
      attachments: [attachment],
      to: [{ userId: 'ann', name: 'Ann' }],
      recorders: [{ recorderId: 'r1' }],
      customList: [],
    });
    await change({ isDraft: false, customList: [{ id: 'q', label: 'Question' }] });
    c = await read();
    expect(c).toMatchObject({ isDraft: false, attachments: [attachment], to: [{ userId: 'ann', name: 'Ann' }], customList: [{ id: 'q', label: 'Question' }] });
    await change({ commentText: 'edited', status: 'reviewed', attachments: [] });
    c = await read();
    expect(c).toMatchObject({
      commentText: 'edited',
      status: 'reviewed',
      attachments: [],
      customList: [{ id: 'q', label: 'Question' }],
      recorders: [{ recorderId: 'r1' }],
    });
  });

  it('answers NOT_FOUND for an unknown annotation', async () => {
    const res = await update({ annotationId: 'ghost', commentIds: [commentIds[0]], updatedData: { commentText: 'x' } });
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'Annotation not found.' });
  });

  it('validates the input, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ commentIds: [commentIds[0]], updatedData: {} }, 'updatedData must change at least one field.'],
      [{ commentIds: [commentIds[0]], updatedData: { from: { userId: 'eve' } } }, 'updatedData must change at least one field.'],
      [{ commentIds: [commentIds[0]] }, 'updatedData is required.'],
      [{ updatedData: { commentText: 'x' } }, 'commentIds is required.'],
      [{ commentIds: [], updatedData: { commentText: 'x' } }, 'commentIds must have at least 1 item(s).'],
      [{ commentIds: ['1'], updatedData: { commentText: 'x' } }, 'commentIds[0] must be a number, not a string.'],
      [{ commentIds: [commentIds[0]], updatedData: { commentText: 5 } }, 'updatedData.commentText must be a string, not a number.'],
      [{ commentIds: [commentIds[0]], updatedData: { taggedUserContacts: [{}] } }, 'updatedData.taggedUserContacts[0] needs userId or contact.userId.'],
      [{ commentIds: [commentIds[0]], updatedData: { commentText: 'x' }, actionUser: {} }, 'actionUser.userId is required.'],
      [{ annotationId: undefined, commentIds: [commentIds[0]], updatedData: { commentText: 'x' } }, 'annotationId is required.'],
    ];
    for (const [data, message] of cases) {
      const res = await update(data);
      expect({ data, status: res.status, body: res.body }).toEqual({ data, status: 400, body: { error: { status: 'INVALID_ARGUMENT', message } } });
    }
  });

  it("cannot edit another API key's comments", async () => {
    const before = await comments();
    const activities = (await activitiesOf(t, id)).length;
    const res = await update({ commentIds: [commentIds[0]], updatedData: { commentText: 'hijacked' } }, other.headersK);
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'Annotation not found.' });
    expect(await comments()).toEqual(before);
    expect(await activitiesOf(t, id)).toHaveLength(activities);
  });
});
