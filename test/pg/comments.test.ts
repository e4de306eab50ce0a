// The comments repository on PostgreSQL answers as on SQLite (test/helpers/pg-parity.ts), for every method it has:
// annotations added (an id taken, checked or not), found, paged with every filter (order, keyset, documents, ids,
// locations, statuses, authors, mentions, a reader's restricted visibility, resolver, folder and the organization's
// top, time bounds), changed and deleted (with their threads), comments added (a given id taken, newId's proposals
// taken), found, changed, deleted, a thread's texts, read marks, unread state, a thread's rewrite, and tenant
// isolation between k1 and k2; and the reads of threads (threads, annotationThread, annotationsWithThreads,
// threadForRewrite) in creation order, comments and reactions of one millisecond in the order they were inserted
// (SQLite's rowid, PostgreSQL's seq), also after rows were changed in place, deleted and inserted again, rewritten.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnnotationRow,
  type AnnotationSelection,
  type CommentRow,
  type CommentsRepo,
  commentsRepo,
  type ThreadRows,
} from '../../server/db/repos/comments.ts';
import { type ReactionRow, type ReactionsRepo, reactionsRepo } from '../../server/db/repos/reactions.ts';
import { type BothEngines, bothEngines } from '../helpers/pg-parity.ts';

const T = 1_700_000_000_000;

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
  await both.insertOrganizations([
    ['k1', 'o1'],
    ['k2', 'o1'],
  ]);
  // d1 in folder f1, d2 at the organization's top, d3 not registered (in no folder)
  for (const [id, folderId] of [
    ['d1', 'f1'],
    ['d2', null],
  ] as const)
    await both.insertBoth(
      'INSERT INTO documents (api_key_id, organization_id, id, name, folder_id, access_type, disabled, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ['k1', 'o1', id, id, folderId, 'public', false, '{}', T, T],
    );
});
afterAll(() => both?.close());

const user = (userId: string) => ({ userId, name: `User ${userId}`, email: `${userId}@x.test` });

const annotation = (id: string, documentId: string, createdAt: number, more: Partial<AnnotationRow> = {}): Omit<AnnotationRow, 'apiKeyId'> => ({
  organizationId: 'o1',
  id,
  documentId,
  locationId: null,
  location: null,
  targetElement: { id: 'el', z: 1, a: [2, 1] },
  status: { id: 'open', name: 'Open' },
  statusId: 'open',
  priority: null,
  assignedTo: null,
  context: null,
  visibility: 'public',
  visibleToUserIds: null,
  commentType: null,
  suggestion: null,
  createdByUserId: 'u1',
  resolvedByUserId: null,
  createdAt,
  updatedAt: createdAt,
  ...more,
});

const comment = (annotationId: string, fromUserId: string, createdAt: number, more: Partial<CommentRow> = {}): Omit<CommentRow, 'apiKeyId' | 'id'> => ({
  organizationId: 'o1',
  annotationId,
  fromUser: user(fromUserId),
  fromUserId,
  text: `text ${annotationId} ${fromUserId} ${createdAt}`,
  html: `<p>${annotationId}</p>`,
  taggedUserContacts: null,
  mentionedUserIds: [],
  context: null,
  extra: null,
  createdAt,
  updatedAt: createdAt,
  ...more,
});

const reaction = (id: string, annotationId: string, commentId: number, fromUserId: string, createdAt: number): ReactionRow => ({
  apiKeyId: 'k1',
  organizationId: 'o1',
  id,
  annotationId,
  commentId,
  icon: 'heart',
  fromUser: user(fromUserId),
  fromUserId,
  createdAt,
});

type Reactions = Pick<ReactionsRepo, 'find' | 'insert'>;

/** Runs the script on SQLite's repositories, then on PostgreSQL's. */
async function onBoth(script: (repo: CommentsRepo, reactions: Reactions) => Promise<unknown[]>) {
  return {
    sqlite: await script(both.storage.comments, both.storage.reactions),
    pg: await script(commentsRepo(both.pg), reactionsRepo(both.pg)),
  };
}

const ids = (rows: unknown) => (rows as AnnotationRow[]).map((r) => r.id);
const threw = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    () => 'threw',
  );

describe('comments', () => {
  it('answers every ported call as on SQLite', async () => {
    const { k1, k2 } = both;
    const sel = (more: Partial<AnnotationSelection> = {}): AnnotationSelection => ({ organizationId: 'o1', order: 'asc', ...more });
    const answers = await onBoth(async (repo, reactions) => {
      // newId's proposals: 10 (taken after the first comment of a2), then 11
      const proposals = [10, 10, 11];
      const newId = () => proposals.shift() ?? 99;
      const out: unknown[] = [
        // 0-8: annotations, inserted out of id order; a2 and a3 share a createdAt (ties by id)
        await repo.insertAnnotation(k1, annotation('a3', 'd1', T + 20, { locationId: 'L1', statusId: 'resolved', resolvedByUserId: 'u2' }), true),
        await repo.insertAnnotation(k1, annotation('a2', 'd1', T + 20, { visibility: 'restricted', visibleToUserIds: ['u3'], createdByUserId: 'u2' }), true),
        await repo.insertAnnotation(k1, annotation('a1', 'd2', T + 10, { locationId: 'L2' }), false),
        await repo.insertAnnotation(k1, annotation('a5', 'd3', T + 40, { visibility: 'restricted', visibleToUserIds: null }), true),
        await repo.insertAnnotation(k1, annotation('a4', 'd2', T + 30, { updatedAt: T + 100 }), true),
        await repo.insertAnnotation(k1, annotation('a1', 'd1', T + 50), true),
        await threw(repo.insertAnnotation(k1, annotation('a1', 'd1', T + 50), false)),
        await repo.insertAnnotation(k2, annotation('a1', 'd1', T + 60, { createdByUserId: 'x9' }), true),
        await repo.findAnnotation(k1, 'o1', 'a2'),
        // 9-12
        await repo.findAnnotation(k1, 'o1', 'missing'),
        await repo.findAnnotation(k2, 'o1', 'a2'),
        await repo.findAnnotation(k2, 'o1', 'a1'),
        await repo.findAnnotation(k1, 'o2', 'a1'),
        // 13-20: comments
        await repo.insertComment(k1, { ...comment('a2', 'u2', T + 21), id: 10 }, T + 21, newId),
        await repo.insertComment(k1, comment('a2', 'u1', T + 22, { mentionedUserIds: ['u7'] }), T + 22, newId),
        await repo.insertComment(k1, { ...comment('a2', 'u3', T + 23), id: 10 }, T + 23, newId),
        await repo.insertComment(k1, { ...comment('a3', 'u1', T + 21), id: 5 }, T + 21, newId),
        await repo.insertComment(k1, { ...comment('a3', 'u4', T + 24, { mentionedUserIds: ['u8', 'u9'] }), id: 2 }, T + 24, newId),
        await repo.insertComment(k1, { ...comment('a3', 'u1', T + 24), id: 3 }, T + 24, newId),
        await repo.insertComment(k1, { ...comment('a1', 'u5', T + 11), id: 1 }, T + 11, newId),
        await repo.insertComment(k2, { ...comment('a1', 'x9', T + 61), id: 1 }, T + 61, newId),
        // 21: a comment on a missing annotation is refused on both (foreign key)
        await threw(repo.insertComment(k1, { ...comment('nope', 'u1', T), id: 1 }, T, newId)),
      ];
      // 22-: annotation pages
      const pages = [
        sel(),
        sel({ order: 'desc' }),
        sel({ documentId: 'd1' }),
        sel({ documentIds: ['d2', 'd3'] }),
        sel({ documentId: 'd1', documentIds: ['d2'] }),
        sel({ annotationIds: ['a5', 'a2', 'zz'] }),
        sel({ locationIds: ['L1', 'L2'] }),
        sel({ statusIds: ['resolved'] }),
        sel({ userIds: ['u1'] }),
        sel({ userIds: ['u4', 'u5'] }),
        sel({ mentionedUserIds: ['u9'] }),
        sel({ mentionedUserIds: ['u7', 'u8'] }),
        sel({ userId: 'u1' }),
        sel({ userId: 'u2' }),
        sel({ userId: 'u3' }),
        sel({ resolvedBy: 'u2' }),
        sel({ folderId: 'f1' }),
        sel({ folderId: null }),
        sel({ folderId: 'nofolder' }),
        sel({ createdAfter: T + 20 }),
        sel({ createdBefore: T + 20 }),
        sel({ updatedAfter: T + 40, order: 'desc' }),
        sel({ updatedBefore: T + 30 }),
        sel({ createdAfter: T, createdBefore: T + 40, documentId: 'd1', userId: 'u1', statusIds: ['open', 'resolved'] }),
        sel({ organizationId: 'o2' }),
      ];
      for (const s of pages) out.push(await repo.annotations(k1, s, 100));
      out.push(await repo.annotations(k2, sel(), 100));
      // keyset pages of two, both orders
      for (const order of ['asc', 'desc'] as const) {
        let cursor: readonly unknown[] | null = null;
        const walked: string[][] = [];
        for (let i = 0; i < 4; i++) {
          const page = await repo.annotations(k1, sel({ order }), 2, cursor);
          walked.push(ids(page));
          const last = page.at(-1);
          if (!last) break;
          cursor = [last.createdAt, last.id];
        }
        out.push(walked);
      }
      // texts of threads
      out.push(
        await repo.threadTexts(k1, 'o1', 'a3'),
        await repo.threadTexts(k1, 'o1', 'a3', 5),
        await repo.threadTexts(k1, 'o1', 'a3', 77),
        await repo.threadTexts(k1, 'o1', 'a4'),
        await repo.threadTexts(k2, 'o1', 'a3'),
        await repo.threadTexts(k2, 'o1', 'a1'),
      );
      // comments found, changed, deleted
      out.push(
        await repo.findComment(k1, 'o1', 'a3', 2),
        await repo.findComment(k1, 'o1', 'a3', 4),
        await repo.findComment(k2, 'o1', 'a3', 2),
        await repo.updateComment(k1, 'o1', 'a3', 2, { text: 'edited', extra: { isDraft: true, z: 1, a: 2 } as never, updatedAt: T + 70 }),
        await repo.updateComment(k2, 'o1', 'a3', 2, { text: 'not k2' }),
        await repo.findComment(k1, 'o1', 'a3', 2),
        await repo.deleteComment(k1, 'o1', 'a3', 3),
        await repo.deleteComment(k2, 'o1', 'a1', 1),
        await repo.findComment(k1, 'o1', 'a3', 3),
        await repo.findComment(k2, 'o1', 'a1', 1),
        await repo.threadTexts(k1, 'o1', 'a3'),
      );
      // read marks and unread state
      const readState = async (scope = k1, documentIds = ['d1', 'd2', 'd3'], statusIds?: string[]) => {
        const state = await repo.readState(scope, { organizationId: 'o1', documentIds, userId: 'u1', statusIds }, (r) => r.id !== 'a5');
        return { rows: ids(state.rows), readAt: [...state.readAt], latestByOthers: [...state.latestByOthers] };
      };
      out.push(
        await readState(),
        [...(await repo.markRead(k1, 'o1', ['a4', 'missing', 'a1', 'a4', 'a2'], 'u1', T + 80))],
        [...(await repo.markRead(k1, 'o1', new Set<string>(), 'u1', T + 80))],
        [...(await repo.markRead(k2, 'o1', ['a2', 'a1'], 'u1', T + 81))],
        await readState(),
        await readState(k1, ['d1'], ['resolved']),
        await readState(k1, []),
        await readState(k2),
      );
      // a thread's rewrite: u1 replaced by u6
      out.push(
        await repo.rewriteThread(k1, 'o1', 'a2', {
          comments: [{ id: 11, change: { fromUser: user('u6'), fromUserId: 'u6' } }],
          reactions: [reaction('r1', 'a2', 10, 'u6', T + 90), reaction('r2', 'a2', 11, 'u2', T + 90)],
          reads: new Map([
            ['u6', T + 91],
            ['u2', T + 21],
          ]),
          annotation: { createdByUserId: 'u6', updatedAt: T + 92 },
        }),
        await repo.findComment(k1, 'o1', 'a2', 11),
        await reactions.find(k1, 'o1', 'r1'),
        await reactions.find(k1, 'o1', 'r2'),
        await repo.findAnnotation(k1, 'o1', 'a2'),
        await readState(),
        await repo.rewriteThread(k1, 'o1', 'a2', { comments: [], reactions: [], reads: new Map() }),
        await reactions.find(k1, 'o1', 'r1'),
        await readState(),
      );
      // an annotation changed, then deleted with its thread and read marks
      out.push(
        await repo.updateAnnotation(k1, 'o1', 'a3', { statusId: 'open', status: { id: 'open', b: 1, a: 2 }, resolvedByUserId: null, updatedAt: T + 95 }),
        await repo.updateAnnotation(k2, 'o1', 'a3', { statusId: 'k2' }),
        await repo.findAnnotation(k1, 'o1', 'a3'),
        await repo.deleteAnnotation(k1, 'o1', 'a1'),
        await repo.deleteAnnotation(k2, 'o1', 'a4'),
        await repo.findAnnotation(k1, 'o1', 'a1'),
        await repo.findComment(k1, 'o1', 'a1', 1),
        [...(await repo.markRead(k1, 'o1', ['a1', 'a4'], 'u1', T + 96))],
        await repo.findAnnotation(k2, 'o1', 'a1'),
        await readState(),
        // the last update moves forward only: an earlier time leaves it, a later one moves it
        await repo.touchAnnotation(k1, 'o1', 'a3', T + 90),
        (await repo.findAnnotation(k1, 'o1', 'a3'))?.updatedAt,
        await repo.touchAnnotation(k1, 'o1', 'a3', T + 97),
        (await repo.findAnnotation(k1, 'o1', 'a3'))?.updatedAt,
      );
      return out;
    });

    expect(answers.pg).toEqual(answers.sqlite);
    expect(answers.sqlite.slice(-4)).toEqual([undefined, T + 95, undefined, T + 97]);
    // the answers are what they should be (the test cannot pass by both being wrong)
    const s = answers.sqlite;
    expect(s.slice(0, 8)).toEqual([true, true, true, true, true, false, 'threw', true]);
    expect(s[8]).toMatchObject({ apiKeyId: 'k1', id: 'a2', visibility: 'restricted', visibleToUserIds: ['u3'], targetElement: { id: 'el', z: 1, a: [2, 1] } });
    expect(JSON.stringify((answers.pg[8] as AnnotationRow).targetElement)).toBe('{"id":"el","z":1,"a":[2,1]}');
    expect(s.slice(9, 11)).toEqual([undefined, undefined]);
    expect(s[11]).toMatchObject({ apiKeyId: 'k2', id: 'a1', createdByUserId: 'x9' });
    expect(s[12]).toBeUndefined();
    expect(s.slice(13, 22)).toEqual([10, 11, undefined, 5, 2, 3, 1, 1, 'threw']);
    const pageIds = s.slice(22, 48).map(ids);
    expect(pageIds).toEqual([
      ['a1', 'a2', 'a3', 'a4', 'a5'],
      ['a5', 'a4', 'a3', 'a2', 'a1'],
      ['a2', 'a3'],
      ['a1', 'a4', 'a5'],
      ['a1', 'a2', 'a3', 'a4'],
      ['a2', 'a5'],
      ['a1', 'a3'],
      ['a3'],
      ['a2', 'a3'],
      ['a1', 'a3'],
      ['a3'],
      ['a2', 'a3'],
      ['a1', 'a3', 'a4', 'a5'],
      ['a1', 'a2', 'a3', 'a4'],
      ['a1', 'a2', 'a3', 'a4'],
      ['a3'],
      ['a2', 'a3'],
      ['a1', 'a4'],
      [],
      ['a4', 'a5'],
      ['a1'],
      ['a4'],
      ['a1', 'a2', 'a3'],
      ['a3'],
      [],
      ['a1'],
    ]);
    expect(s[48]).toEqual([['a1', 'a2'], ['a3', 'a4'], ['a5'], []]);
    expect(s[49]).toEqual([['a5', 'a4'], ['a3', 'a2'], ['a1'], []]);
    expect(s[50]).toEqual({
      first: { id: 5, text: `text a3 u1 ${T + 21}`, html: '<p>a3</p>' },
      chosen: { id: 3, text: `text a3 u1 ${T + 24}`, html: '<p>a3</p>' },
    });
    expect((s[51] as { chosen: unknown }).chosen).toMatchObject({ id: 5 });
    expect(s[52]).toMatchObject({ first: { id: 5 }, chosen: undefined });
    expect(s[53]).toEqual({ first: undefined, chosen: undefined });
    expect(s[54]).toEqual({ first: undefined, chosen: undefined });
    expect(s[55]).toMatchObject({ first: { id: 1, text: `text a1 x9 ${T + 61}` } });
    expect(s[56]).toMatchObject({ apiKeyId: 'k1', id: 2, fromUserId: 'u4', mentionedUserIds: ['u8', 'u9'], extra: null });
    expect(s.slice(57, 59)).toEqual([undefined, undefined]);
    expect(s[61]).toMatchObject({ id: 2, text: 'edited', extra: { isDraft: true, z: 1, a: 2 }, updatedAt: T + 70 });
    expect(JSON.stringify((answers.pg[61] as CommentRow).extra)).toBe('{"isDraft":true,"z":1,"a":2}');
    expect(s.slice(64, 66)).toEqual([undefined, undefined]);
    expect(s[66]).toMatchObject({ first: { id: 5 }, chosen: { id: 2, text: 'edited' } });
    // unread state: documents in order d1, d2, d3 (createdAt, id within each), a5 left out by `visible`
    expect(s[67]).toEqual({
      rows: ['a2', 'a3', 'a1', 'a4'],
      readAt: [
        ['a2', T + 22],
        ['a3', T + 24],
      ],
      latestByOthers: [
        ['a1', T + 11],
        ['a2', T + 21],
        ['a3', T + 24],
      ],
    });
    expect(s.slice(68, 71)).toEqual([['a4', 'a1', 'a2'], [], ['a1']]);
    expect(s[71]).toEqual({
      rows: ['a2', 'a3', 'a1', 'a4'],
      readAt: [
        ['a1', T + 80],
        ['a2', T + 80],
        ['a3', T + 24],
        ['a4', T + 80],
      ],
      latestByOthers: [
        ['a1', T + 11],
        ['a2', T + 21],
        ['a3', T + 24],
      ],
    });
    expect(s[72]).toMatchObject({ rows: ['a3'] });
    expect(s[73]).toEqual({ rows: [], readAt: (s[71] as { readAt: unknown }).readAt, latestByOthers: [] });
    expect(s[74]).toEqual({ rows: ['a1'], readAt: [['a1', T + 81]], latestByOthers: [] });
    // the rewrite
    expect(s[75]).toBeUndefined();
    expect(s[76]).toMatchObject({ id: 11, fromUserId: 'u6', fromUser: user('u6'), mentionedUserIds: ['u7'] });
    expect(s[77]).toMatchObject({ id: 'r1', commentId: 10, fromUserId: 'u6' });
    expect(s[78]).toMatchObject({ id: 'r2', commentId: 11, fromUserId: 'u2' });
    expect(s[79]).toMatchObject({ id: 'a2', createdByUserId: 'u6', updatedAt: T + 92 });
    expect((s[80] as { readAt: unknown[] }).readAt).not.toContainEqual(['a2', T + 80]);
    expect((s[80] as { latestByOthers: unknown[] }).latestByOthers).toContainEqual(['a2', T + 22]);
    expect(s[82]).toBeUndefined();
    expect((s[83] as { readAt: unknown[] }).readAt.map((r) => (r as [string])[0])).toEqual(['a1', 'a3', 'a4']);
    // the annotation's change and deletion
    expect(s[86]).toMatchObject({ id: 'a3', statusId: 'open', status: { id: 'open', b: 1, a: 2 }, resolvedByUserId: null, updatedAt: T + 95 });
    expect(JSON.stringify((answers.pg[86] as AnnotationRow).status)).toBe('{"id":"open","b":1,"a":2}');
    expect(s.slice(89, 91)).toEqual([undefined, undefined]);
    expect(s[91]).toEqual(['a4']);
    expect(s[92]).toMatchObject({ apiKeyId: 'k2', id: 'a1' });
    expect(s[93]).toEqual({
      rows: ['a2', 'a3', 'a4'],
      readAt: [
        ['a3', T + 24],
        ['a4', T + 96],
      ],
      latestByOthers: [
        ['a2', T + 22],
        ['a3', T + 24],
      ],
    });
  });

  it('reads threads in creation order as on SQLite, comments and reactions of one millisecond in the order they were inserted', async () => {
    const { k1, k2 } = both;
    const sel = (more: Partial<AnnotationSelection> = {}): AnnotationSelection => ({ organizationId: 'o1', order: 'asc', ...more });
    /** A thread as `annotation/comment` ids and reaction ids, in the order answered. */
    const shape = (thread: ThreadRows) => ({
      comments: thread.comments.map((c) => `${c.annotationId}/${c.id}`),
      reactions: thread.reactions.map((r) => r.id),
    });
    const { apiKeyId: _k, ...rx } = reaction('', '', 0, '', 0);
    const answers = await onBoth(async (repo, reactions) => {
      await repo.insertAnnotation(k1, annotation('t1', 'd1', T + 200), true);
      await repo.insertAnnotation(k1, annotation('t2', 'd1', T + 201), true);
      await repo.insertAnnotation(k2, annotation('t1', 'd1', T + 200), true);
      // one millisecond (T + 300), ids in no order, the two threads interleaved; one earlier and one later around them
      const proposals = [31];
      const newId = () => proposals.shift() ?? 98;
      for (const [annotationId, id, fromUserId, at] of [
        ['t1', 40, 'u3', T + 300],
        ['t2', 2, 'u1', T + 300],
        ['t1', 7, 'u1', T + 300],
        ['t1', 23, 'u2', T + 300],
        ['t2', 1, 'u2', T + 300],
        ['t1', 15, 'u4', T + 300],
        ['t1', undefined, 'u5', T + 300],
        ['t1', 99, 'u1', T + 299],
        ['t1', 3, 'u2', T + 301],
      ] as const)
        await repo.insertComment(k1, { ...comment(annotationId, fromUserId, at), id }, at, newId);
      await repo.insertComment(k2, { ...comment('t1', 'x9', T + 300), id: 5 }, T + 300, newId);
      for (const [id, annotationId, commentId, fromUserId, at] of [
        ['q9', 't1', 7, 'u2', T + 305],
        ['q1', 't1', 40, 'u1', T + 305],
        ['q5', 't2', 2, 'u3', T + 305],
        ['q3', 't1', 23, 'u4', T + 305],
        ['q0', 't1', 40, 'u5', T + 304],
      ] as const)
        await reactions.insert(k1, { ...rx, id, annotationId, commentId, fromUserId, fromUser: user(fromUserId), createdAt: at });
      await reactions.insert(k2, { ...rx, id: 'q9', annotationId: 't1', commentId: 5, fromUserId: 'x9', fromUser: user('x9'), createdAt: T + 305 });
      const out: unknown[] = [await repo.threads(k1, 'o1', ['t1', 't2'])];
      // changed in place, the rows keep their places (PostgreSQL writes new row versions elsewhere in the table);
      // comment 7 deleted (with its reaction q9) and added again comes last of its millisecond
      await repo.updateComment(k1, 'o1', 't1', 40, { text: 'edited', updatedAt: T + 310 });
      await both.insertBoth("UPDATE reactions SET icon = icon || '' WHERE api_key_id = ? AND id IN (?, ?)", ['k1', 'q1', 'q0']);
      await repo.deleteComment(k1, 'o1', 't1', 7);
      await repo.insertComment(k1, { ...comment('t1', 'u1', T + 300), id: 7 }, T + 300, newId);
      out.push(
        await repo.threads(k1, 'o1', ['t1', 't2']),
        await repo.threads(k1, 'o1', ['t2', 't1', 't2', 'nope']),
        await repo.threads(k1, 'o1', ['t1'], [23, 40, 1000]),
        await repo.threads(k1, 'o1', ['t1'], []),
        await repo.threads(k1, 'o1', []),
        await repo.threads(k1, 'o2', ['t1']),
        await repo.threads(k2, 'o1', ['t1', 't2']),
        await repo.annotationThread(k1, 'o1', 't1'),
        await repo.annotationThread(k1, 'o1', 't1', [15, 7]),
        await repo.annotationThread(k1, 'o1', 'missing'),
        await repo.annotationThread(k2, 'o1', 't1'),
        await repo.annotationsWithThreads(k1, sel({ annotationIds: ['t1', 't2'] }), 10, null, 2),
        await repo.annotationsWithThreads(k1, sel({ annotationIds: ['t1', 't2'], order: 'desc' }), 10, null, 1),
        await repo.annotationsWithThreads(k1, sel({ annotationIds: ['t1', 't2'] }), 1, [T + 200, 't1'], 5),
        await repo.annotationsWithThreads(k1, sel({ annotationIds: ['t1', 't2'] }), 10, null, 0),
        await repo.annotationsWithThreads(k2, sel({ annotationIds: ['t1'] }), 10, null, 1),
      );
      // a rewrite writes the reactions in the order given (here the thread's, reversed): that is their order after it
      const before = await repo.threadForRewrite(k1, 'o1', 't1');
      out.push(before, await repo.threadForRewrite(k1, 'o1', 'missing'), await repo.threadForRewrite(k2, 'o1', 't1'));
      await repo.rewriteThread(k1, 'o1', 't1', {
        comments: [],
        reactions: [...before.reactions].reverse().map((r) => (r.fromUserId === 'u1' ? { ...r, fromUserId: 'u6', fromUser: user('u6') } : r)),
      });
      out.push(await repo.threadForRewrite(k1, 'o1', 't1'), await repo.threads(k1, 'o1', ['t1', 't2']));
      return out;
    });

    expect(answers.pg).toEqual(answers.sqlite);
    // the answers are what they should be
    const s = answers.sqlite;
    const threadAt = (i: number) => shape(s[i] as ThreadRows);
    expect(threadAt(0)).toEqual({
      comments: ['t1/99', 't1/40', 't2/2', 't1/7', 't1/23', 't2/1', 't1/15', 't1/31', 't1/3'],
      reactions: ['q0', 'q9', 'q1', 'q5', 'q3'],
    });
    const after = { comments: ['t1/99', 't1/40', 't2/2', 't1/23', 't2/1', 't1/15', 't1/31', 't1/7', 't1/3'], reactions: ['q0', 'q1', 'q5', 'q3'] };
    expect(threadAt(1)).toEqual(after);
    expect(threadAt(2)).toEqual(after);
    expect((s[1] as ThreadRows).comments[1]).toMatchObject({ id: 40, text: 'edited', updatedAt: T + 310 });
    expect(threadAt(3)).toEqual({ comments: ['t1/40', 't1/23'], reactions: ['q0', 'q1', 'q3'] });
    expect(threadAt(4)).toEqual({ comments: [], reactions: ['q0', 'q1', 'q3'] });
    expect(threadAt(5)).toEqual({ comments: [], reactions: [] });
    expect(threadAt(6)).toEqual({ comments: [], reactions: [] });
    expect(threadAt(7)).toEqual({ comments: ['t1/5'], reactions: ['q9'] });
    expect((s[7] as ThreadRows).reactions[0]).toMatchObject({ apiKeyId: 'k2', fromUserId: 'x9' });
    type WithThread = { annotation: AnnotationRow; thread: ThreadRows } | undefined;
    const withThread = (i: number) => s[i] as WithThread;
    expect(withThread(8)?.annotation).toMatchObject({ id: 't1', apiKeyId: 'k1' });
    expect(shape(withThread(8)!.thread)).toEqual({
      comments: ['t1/99', 't1/40', 't1/23', 't1/15', 't1/31', 't1/7', 't1/3'],
      reactions: ['q0', 'q1', 'q3'],
    });
    expect(shape(withThread(9)!.thread)).toEqual({ comments: ['t1/15', 't1/7'], reactions: ['q0', 'q1', 'q3'] });
    expect(s[10]).toBeUndefined();
    expect(shape(withThread(11)!.thread)).toEqual({ comments: ['t1/5'], reactions: ['q9'] });
    type Page = { rows: AnnotationRow[]; threads: ThreadRows };
    const page = (i: number) => ({ rows: ids((s[i] as Page).rows), threads: shape((s[i] as Page).threads) });
    expect(page(12)).toEqual({ rows: ['t1', 't2'], threads: after });
    expect(page(13)).toEqual({ rows: ['t2', 't1'], threads: { comments: ['t2/2', 't2/1'], reactions: ['q5'] } });
    expect(page(14)).toEqual({ rows: ['t2'], threads: { comments: ['t2/2', 't2/1'], reactions: ['q5'] } });
    expect(page(15)).toEqual({ rows: ['t1', 't2'], threads: { comments: [], reactions: [] } });
    expect(page(16)).toEqual({ rows: ['t1'], threads: { comments: ['t1/5'], reactions: ['q9'] } });
    type ForRewrite = Awaited<ReturnType<CommentsRepo['threadForRewrite']>>;
    const rewrite = (i: number) => {
      const t = s[i] as ForRewrite;
      return {
        annotation: t.annotation?.id,
        comments: t.comments.map((c) => c.id),
        reactions: t.reactions.map((r) => r.id),
        reads: t.reads.map((m) => m.userId),
      };
    };
    // comments by (createdAt, id), reactions in creation order, read marks by user (the authors', marked as they wrote)
    expect(rewrite(17)).toEqual({
      annotation: 't1',
      comments: [99, 7, 15, 23, 31, 40, 3],
      reactions: ['q0', 'q1', 'q3'],
      reads: ['u1', 'u2', 'u3', 'u4', 'u5'],
    });
    expect(rewrite(18)).toEqual({ annotation: undefined, comments: [], reactions: [], reads: [] });
    expect(rewrite(19)).toEqual({ annotation: 't1', comments: [5], reactions: ['q9'], reads: ['x9'] });
    expect(rewrite(20)).toMatchObject({ reactions: ['q0', 'q3', 'q1'] });
    expect((s[20] as ForRewrite).reactions[2]).toMatchObject({ id: 'q1', fromUserId: 'u6', fromUser: user('u6') });
    expect(shape(s[21] as ThreadRows)).toEqual({ comments: after.comments, reactions: ['q0', 'q5', 'q3', 'q1'] });
  });

  it('a read mark or a comment for an annotation deleted while it waited answers not found, not a foreign key error', async () => {
    // READ COMMITTED: the write read the annotation, then met its deletion (committed meanwhile) in the foreign key's
    // check; the unit runs again, finds no annotation, and answers as SQLite's one writer would (the cluster
    // isolation sweep met it as an INTERNAL answer to commentannotations/read/update)
    const repo = commentsRepo(both.pg);
    const { k1 } = both;
    for (const id of ['gone-1', 'gone-2']) await repo.insertAnnotation(k1, annotation(id, 'd1', T + 500), true);
    const raceDelete = async (id: string, write: () => Promise<unknown>) => {
      let release!: () => void;
      let deleted!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const rowLocked = new Promise<void>((resolve) => (deleted = resolve));
      const deleter = both.engine.transaction(async () => {
        await repo.deleteAnnotation(k1, 'o1', id);
        deleted();
        await held;
      });
      await rowLocked;
      const writing = write().then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      // the write has read the annotation and now waits on the deleter's row lock
      await new Promise((resolve) => setTimeout(resolve, 300));
      release();
      await deleter;
      return writing;
    };
    const marked = await raceDelete('gone-1', () => repo.markRead(k1, 'o1', ['gone-1'], 'u1', T + 501));
    expect(marked).toEqual({ value: new Set() });
    const commented = await raceDelete('gone-2', () =>
      both.engine.transaction(async () => {
        const found = await repo.findAnnotation(k1, 'o1', 'gone-2');
        if (!found) return 'not found';
        return repo.insertComment(k1, { ...comment('gone-2', 'u1', T + 502), id: 1 }, T + 502, () => 1);
      }),
    );
    expect(commented).toEqual({ value: 'not found' });
  });
});
