import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

/** One page of a user's data as users/data/get answers it. */
interface UserData {
  profile: unknown;
  comments: Array<{ comment: { commentText: string }; annotation: unknown }>;
  reactions: Array<{ icon: string }>;
  notifications: Array<{ id: string }>;
  recordings: unknown[];
}

let t: TestServer;
const COMMENTS = 230;
const REACTIONS = 120;
const NOTIFICATIONS = 150;
let annotationId: string;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'ann', name: 'Ann Archer', email: 'ann@example.com' }, { userId: 'bob' }] });
  const created = await t.callK('/v2/commentannotations/add', {
    organizationId: 'acme',
    documentId: 'd',
    commentAnnotations: [{ commentData: [{ commentText: 'c0', from: { userId: 'ann', name: 'Ann Archer' }, triggerActivities: false }] }],
  });
  annotationId = Object.keys(dataOf<Record<string, unknown>>(created))[0]!;
  for (let i = 1; i < COMMENTS; i += 50) {
    const commentData = Array.from({ length: Math.min(50, COMMENTS - i) }, (_, j) => ({
      commentText: `c${i + j}`,
      from: { userId: 'ann' },
      triggerActivities: false,
    }));
    await t.callK('/v2/commentannotations/comments/add', { organizationId: 'acme', annotationId, commentData });
  }
  const bobsComment = dataOf<number[]>(
    await t.callK('/v2/commentannotations/comments/add', {
      organizationId: 'acme',
      annotationId,
      commentData: [{ commentText: 'bob here', from: { userId: 'bob' } }],
    }),
  )[0];
  for (let i = 0; i < REACTIONS; i++) {
    await t.callK('/v2/reactions/add', { organizationId: 'acme', annotationId, commentId: bobsComment, icon: `e${i}`, from: { userId: 'ann' } });
  }
  for (let i = 0; i < NOTIFICATIONS; i++) {
    await t.callK('/v2/notifications/add', {
      organizationId: 'acme',
      documentId: 'd',
      notificationId: `n${i}`,
      actionUser: { userId: 'bob' },
      displayHeadlineMessageTemplate: 'h',
      displayBodyMessage: 'b',
      notifyAll: false,
      notifyUsers: [{ userId: 'ann' }],
    });
  }
});
afterAll(() => t.close());

describe('/v2/users/data/get', () => {
  it('pages through every feature, at most 100 items each per page, each item exactly once', async () => {
    const seen = { comments: [] as string[], reactions: [] as string[], notifications: [] as string[], recordings: [] as unknown[] };
    let pageToken: string | undefined;
    let pages = 0;
    for (;;) {
      const res = await t.callK('/v2/users/data/get', { organizationId: 'acme', userId: 'ann', pageToken });
      expect(res.status).toBe(200);
      expect(resultOf(res).message).toBe('Data fetched successfully.');
      const data = dataOf<UserData>(res);
      expect(data.profile).toEqual({ userId: 'ann', name: 'Ann Archer', email: 'ann@example.com', initial: 'A', photoUrl: null });
      for (const feature of ['comments', 'reactions', 'notifications', 'recordings'] as const) expect(data[feature].length).toBeLessThanOrEqual(100);
      seen.comments.push(...data.comments.map((c) => c.comment.commentText));
      seen.reactions.push(...data.reactions.map((r) => r.icon));
      seen.notifications.push(...data.notifications.map((n) => n.id));
      seen.recordings.push(...data.recordings);
      pages++;
      pageToken = resultOf(res).nextPageToken ?? undefined;
      if (!pageToken) break;
      expect(pages).toBeLessThan(10);
    }
    expect(pages).toBe(3);
    expect(seen.comments.sort()).toEqual(Array.from({ length: COMMENTS }, (_, i) => `c${i}`).sort());
    expect(new Set(seen.reactions).size).toBe(REACTIONS);
    expect(seen.reactions).toHaveLength(REACTIONS);
    expect(seen.notifications.sort()).toEqual(Array.from({ length: NOTIFICATIONS }, (_, i) => `n${i}`).sort());
    expect(seen.recordings).toEqual([]);
  });

  it('exports the recordings the user made', async () => {
    const webm = Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.from('x')]).toString('base64');
    for (let i = 0; i < 3; i++) {
      await t.callK('/v2/recordings/add', {
        organizationId: 'acme',
        documentId: 'd',
        recording: {
          recordingType: 'audio',
          from: { userId: i < 2 ? 'ann' : 'bob' },
          recordedTime: { duration: 1000 },
          attachments: [{ name: 'a', mimeType: 'audio/webm', data: webm }],
        },
      });
    }
    let pageToken: string | undefined;
    const recordings: unknown[] = [];
    do {
      const res = await t.callK('/v2/users/data/get', { organizationId: 'acme', userId: 'ann', pageToken });
      recordings.push(...dataOf<UserData>(res).recordings);
      pageToken = resultOf(res).nextPageToken ?? undefined;
    } while (pageToken);
    expect(recordings).toHaveLength(2);
    expect(recordings[0]).toMatchObject({ type: 'recorder', recordedTime: { display: '00:00:01' }, from: { userId: 'ann' } });
  });

  it('carries the annotation of each exported comment', async () => {
    const res = await t.callK('/v2/users/data/get', { organizationId: 'acme', userId: 'ann' });
    expect(dataOf<UserData>(res).comments[0]!.annotation).toMatchObject({ annotationId, documentId: 'd' });
  });

  it('answers empty arrays for a user with nothing, and no token', async () => {
    const res = await t.callK('/v2/users/data/get', { organizationId: 'acme', userId: 'nobody' });
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Data fetched successfully.',
      data: { profile: null, comments: [], reactions: [], recordings: [], notifications: [] },
      nextPageToken: null,
    });
  });

  it('refuses forged and foreign page tokens', async () => {
    const token = resultOf(await t.callK('/v2/users/data/get', { organizationId: 'acme', userId: 'ann' })).nextPageToken;
    expect(errorOf(await t.callK('/v2/users/data/get', { organizationId: 'acme', userId: 'bob', pageToken: token }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'Invalid pageToken.',
    });
    expect(errorOf(await t.callK('/v2/users/data/get', { organizationId: 'acme', userId: 'ann', pageToken: `${token}x` })).message).toBe('Invalid pageToken.');
  });

  it('validates the input and keeps API keys apart', async () => {
    expect(errorOf(await t.callK('/v2/users/data/get', { organizationId: 'acme' }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'userId is required.',
    });
    const other = await createWorkspace(t);
    const res = await t.callPublic('/v2/users/data/get', { organizationId: 'acme', userId: 'ann' }, other.headersK);
    expect(dataOf(res)).toEqual({ profile: null, comments: [], reactions: [], recordings: [], notifications: [] });
  });
});
