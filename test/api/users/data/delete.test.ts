import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { b64, PNG, storedAttachments, WEBM } from '../../../helpers/media.ts';
import { dataOf, errorOf, eventually, pgTablesHolding, resultOf, startTestServer, type TestServer, answerOf } from '../../../helpers/server.ts';
import type { UserAccess } from '../../../helpers/access.ts';
import { sqliteEngineOf } from '../../../../server/db/repos/index.ts';

interface ErasureStatus {
  jobId: string;
  status: string;
}
/** A comment as comments/get answers it. */
interface CommentItem {
  commentText: string;
  mentionedUserIds: string[];
  to: unknown[];
  attachments: unknown[];
  reactionAnnotations: unknown[];
}

let t: TestServer;
const NAME = 'Zelda Quixotic';
const EMAIL = 'zelda.quixotic@example.com';
let annotationId: string;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd' }] });
  await t.callK('/v2/users/add', {
    organizationId: 'acme',
    users: [
      { userId: 'zelda', name: NAME, email: EMAIL },
      { userId: 'bob', name: 'Bob' },
    ],
  });
  await t.callK('/v2/organizations/usergroups/add', { organizationId: 'acme', organizationUserGroups: [{ groupId: 'g' }] });
  await t.callK('/v1/organizations/usergroups/users/add', { organizationId: 'acme', organizationUserGroupId: 'g', userIds: ['zelda'] });
  const zelda = { userId: 'zelda', name: NAME, email: EMAIL };
  const created = await t.callK('/v2/commentannotations/add', {
    organizationId: 'acme',
    documentId: 'd',
    commentAnnotations: [{ assignedTo: zelda, commentData: [{ commentText: 'from zelda quixotic', from: zelda }] }],
  });
  annotationId = Object.keys(dataOf<Record<string, unknown>>(created))[0]!;
  const bobs = await t.callK('/v2/commentannotations/comments/add', {
    organizationId: 'acme',
    annotationId,
    commentData: [
      {
        commentText: 'thanks Zelda',
        from: { userId: 'bob', name: 'Bob' },
        taggedUserContacts: [{ contact: zelda }],
        to: [zelda, { userId: 'cal' }],
        attachments: [{ name: 'notes.txt', uploadedBy: zelda }, { name: 'keep.png' }],
      },
    ],
  });
  await t.callK('/v2/reactions/add', { organizationId: 'acme', annotationId, commentId: dataOf<number[]>(bobs)[0], icon: 'heart', from: zelda });
  await t.callK('/v2/notifications/add', {
    organizationId: 'acme',
    documentId: 'd',
    actionUser: zelda,
    displayHeadlineMessageTemplate: '{actionUser} pinged',
    displayBodyMessage: `ping from ${NAME}`,
    notifyAll: false,
    notifyUsers: [{ userId: 'bob' }],
  });
  await t.callK('/v2/activities/add', {
    organizationId: 'acme',
    documentId: 'd',
    activities: [{ featureType: 'custom', actionType: 'custom.x', actionUser: zelda, targetEntityId: 't' }],
  });
  await t.callK('/v2/notifications/config/set', { organizationId: 'acme', userIds: ['zelda'], config: { email: 'NONE' } });
  const recorded = await t.callK('/v2/recordings/add', {
    organizationId: 'acme',
    documentId: 'd',
    recording: {
      recordingType: 'audio',
      from: zelda,
      recordedTime: { duration: 1000 },
      attachments: [
        { name: 'voice.webm', mimeType: 'audio/webm', data: b64(WEBM) },
        { name: 'thumb.png', mimeType: 'image/png', data: b64(PNG) },
      ],
    },
  });
  expect(recorded.status, JSON.stringify(recorded.body)).toBe(200);
});
afterAll(() => t.close());

const bytesOfDataDir = () =>
  readdirSync(t.dataDir)
    .filter((f) => f.startsWith('hearth.db'))
    .map((f) => readFileSync(join(t.dataDir, f)));

/** Whether the database holds `text`: in the bytes of hearth.db's files on SQLite, in some row on PostgreSQL. */
const databaseHolds = async (text: string) =>
  t.server.app.storage.engine.kind === 'postgres' ? (await pgTablesHolding(t, text)).length > 0 : bytesOfDataDir().some((b) => b.includes(text));

describe('/v2/users/data/delete', () => {
  it("erases the user's personal data everywhere, leaving no trace of name or e-mail in the database files", async () => {
    if (t.server.app.storage.engine.kind === 'sqlite') sqliteEngineOf(t.server.app.storage).main.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    expect(await databaseHolds(EMAIL)).toBe(true);
    expect(await databaseHolds(NAME)).toBe(true);
    expect(await databaseHolds('quixotic')).toBe(true);
    expect(await storedAttachments(t)).toBe(2);

    const res = await t.callK('/v2/users/data/delete', { userId: 'zelda' });
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('User data deletion started successfully.');
    const { jobId } = dataOf<ErasureStatus>(res);
    expect(jobId).toMatch(/^del_/);
    await eventually(async () => {
      const status = await t.callK('/v2/users/data/delete/status', { jobId });
      expect(dataOf(status)).toMatchObject({ jobId, userId: 'zelda', status: 'completed' });
    });

    expect(await databaseHolds(EMAIL)).toBe(false);
    expect(await databaseHolds(NAME)).toBe(false);
    // nor in the judgments' full-text index, which stores words lower-cased (SQLite's; PostgreSQL's is an index
    // over the judgments' own columns)
    expect(await databaseHolds('quixotic')).toBe(false);
    // nor the bytes of the user's recording (on PostgreSQL rows of attachment_blobs, which only a sweep took before)
    expect(await storedAttachments(t)).toBe(0);
    expect(answerOf<{ items: unknown[] }>(await t.callK('/v2/memory/judgments/query', { query: 'zelda' })).items).toEqual([]);
    // what belonged to others stays: bob's comment, without the mention of zelda
    const comments = dataOf<CommentItem[]>(await t.callK('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId }));
    expect(comments.map((c) => c.commentText)).toEqual(['thanks Zelda']);
    expect(comments[0]!.mentionedUserIds).toEqual([]);
    // and without zelda among its recipients and attachments
    expect(comments[0]!.to).toEqual([{ userId: 'cal' }]);
    expect(comments[0]!.attachments).toEqual([{ name: 'keep.png' }]);
    expect(comments[0]!.reactionAnnotations).toEqual([]);
    const exported = await t.callK('/v2/users/data/get', { organizationId: 'acme', userId: 'zelda' });
    expect(dataOf(exported)).toEqual({ profile: null, comments: [], reactions: [], recordings: [], notifications: [] });
    const access = await t.callK('/v2/auth/permissions/get', { organizationId: 'acme', userIds: ['zelda'] });
    expect(dataOf<Record<string, UserAccess>>(access).zelda!.organization.acme!.errorCode).toBe('permission_denied');
  });

  it('runs a job that a restart interrupted', async () => {
    await t.callK('/v2/users/add', {
      organizationId: 'acme',
      users: [{ userId: 'yuri', name: 'Yuri Unforgettable', email: 'yuri.unforgettable@example.com' }],
    });
    await t.server.close();
    await t.query(
      "INSERT INTO user_data_jobs (id, api_key_id, user_id, status, attempts, created_at) VALUES ('del_interrupted', ?, 'yuri', 'in_progress', 1, ?)",
      [t.credentials.apiKey, Date.now()],
    );
    await t.restart();
    await eventually(async () =>
      expect(dataOf<ErasureStatus>(await t.callK('/v2/users/data/delete/status', { jobId: 'del_interrupted' })).status).toBe('completed'),
    );
    expect(await databaseHolds('yuri.unforgettable@example.com')).toBe(false);
  });

  it('validates the input and keeps API keys apart', async () => {
    expect(errorOf(await t.callK('/v2/users/data/delete', {}))).toEqual({ status: 'INVALID_ARGUMENT', message: 'userId is required.' });
    await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'kept', name: 'Kept' }] });
    const other = await createWorkspace(t);
    const res = await t.callPublic('/v2/users/data/delete', { userId: 'kept' }, other.headersK);
    const jobId = dataOf<ErasureStatus>(res).jobId;
    await eventually(async () =>
      expect(dataOf<ErasureStatus>(await t.callPublic('/v2/users/data/delete/status', { jobId }, other.headersK)).status).toBe('completed'),
    );
    const access = await t.callK('/v2/auth/permissions/get', { organizationId: 'acme', userIds: ['kept'] });
    expect(dataOf<Record<string, UserAccess>>(access).kept!.organization.acme!.accessRole).toBe('editor');
    expect((await t.callK('/v2/users/data/delete/status', { jobId })).status).toBe(404);
  });
});
