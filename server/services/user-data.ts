import { and, asc, eq, gt, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { AppContext } from '../context.ts';
import { transaction } from '../db/client.ts';
import {
  activities,
  commentAnnotations,
  comments,
  judgments,
  mailOutbox,
  memberships,
  notificationConfigs,
  notificationRecipients,
  notifications,
  reactions,
  recordingAttachments,
  recordings,
  userDataJobs,
  userGroupMembers,
  users,
  type StoredUser,
} from '../db/schema.ts';
import { notFound } from '../errors.ts';
import { randomAlphanumeric } from '../security/secrets.ts';
import { commentsOf, describeAnnotation } from './comments.ts';
import { MAX_ATTEMPTS, type JobQueue } from './jobs.ts';
import { commentPlainText } from './memory.ts';
import { getNotifications } from './notifications.ts';
import { describeReaction } from './reactions.ts';
import { describeRecording } from './recordings.ts';
import { describeUser, findUserIn } from './users.ts';
import { readPageToken } from './paging.ts';

export const PAGE_PER_FEATURE = 100;
const FEATURES = ['comments', 'reactions', 'recordings', 'notifications'] as const;
type Feature = (typeof FEATURES)[number];
/** Per feature: '' not started, '~' done, else the position `timestamp|key` after which the next page starts. */
type Positions = Record<Feature, string>;
const DONE = '~';

function parsePosition(position: string): [number, string] | null {
  if (!position) return null;
  const bar = position.indexOf('|');
  return [Number(position.slice(0, bar)), position.slice(bar + 1)];
}

function afterPosition(at: SQLiteColumn, key: SQL | SQLiteColumn, position: string): SQL | undefined {
  const p = parsePosition(position);
  return p ? or(gt(at, p[0]), and(eq(at, p[0]), sql`${key} > ${p[1]}`)) : undefined;
}

/**
 * /v2/users/data/get: everything of one user in one organization: the profile, the comments the user wrote
 * (with their annotation), the user's reactions and recordings, and the notifications the user received.
 * At most 100 items per feature per page; `nextPageToken` until every feature is done.
 */
export function exportUserData(app: AppContext, apiKeyId: string, input: { organizationId: string; userId: string; pageToken?: string | null | undefined }) {
  const scope = { op: 'users/data/get', apiKeyId, organizationId: input.organizationId, userId: input.userId };
  let positions: Positions = { comments: '', reactions: '', recordings: '', notifications: '' };
  const cursor = readPageToken(app, scope, input.pageToken, FEATURES.map(() => 'string' as const));
  if (cursor) positions = Object.fromEntries(FEATURES.map((f, i) => [f, cursor[i] as string])) as Positions;
  const db = app.db;
  const { organizationId, userId } = input;
  const next: Positions = { ...positions };
  const take = <T>(feature: Feature, rows: T[], positionOf: (row: T) => string): T[] => {
    if (positions[feature] === DONE) return [];
    const page = rows.slice(0, PAGE_PER_FEATURE);
    next[feature] = rows.length > PAGE_PER_FEATURE ? positionOf(page[page.length - 1] as T) : DONE;
    return page;
  };

  const commentRows =
    positions.comments === DONE
      ? []
      : db
          .select()
          .from(comments)
          .where(and(eq(comments.apiKeyId, apiKeyId), eq(comments.organizationId, organizationId), eq(comments.fromUserId, userId), afterPosition(comments.createdAt, sql`${comments.annotationId} || ':' || ${comments.id}`, positions.comments)))
          .orderBy(asc(comments.createdAt), asc(sql`${comments.annotationId} || ':' || ${comments.id}`))
          .limit(PAGE_PER_FEATURE + 1)
          .all();
  const commentPage = take('comments', commentRows, (r) => `${r.createdAt}|${r.annotationId}:${r.id}`);
  const annotations = commentPage.length
    ? db
        .select()
        .from(commentAnnotations)
        .where(and(eq(commentAnnotations.apiKeyId, apiKeyId), eq(commentAnnotations.organizationId, organizationId), inArray(commentAnnotations.id, [...new Set(commentPage.map((c) => c.annotationId))])))
        .all()
    : [];
  const threads = commentsOf(db, apiKeyId, organizationId, annotations.map((a) => a.id));
  const annotationById = new Map(annotations.map((a) => [a.id, describeAnnotation(a, [])]));
  const exportedComments = commentPage.map((c) => {
    const { comments: _all, ...annotation } = annotationById.get(c.annotationId) ?? { comments: [] };
    return { annotation, comment: threads.get(c.annotationId)?.find((x) => x.commentId === c.id) ?? null };
  });

  const reactionRows =
    positions.reactions === DONE
      ? []
      : db
          .select()
          .from(reactions)
          .where(and(eq(reactions.apiKeyId, apiKeyId), eq(reactions.organizationId, organizationId), eq(reactions.fromUserId, userId), afterPosition(reactions.createdAt, reactions.id, positions.reactions)))
          .orderBy(asc(reactions.createdAt), asc(reactions.id))
          .limit(PAGE_PER_FEATURE + 1)
          .all();
  const reactionPage = take('reactions', reactionRows, (r) => `${r.createdAt}|${r.id}`);

  const recordingRows =
    positions.recordings === DONE
      ? []
      : db
          .select()
          .from(recordings)
          .where(and(eq(recordings.apiKeyId, apiKeyId), eq(recordings.organizationId, organizationId), eq(recordings.fromUserId, userId), afterPosition(recordings.createdAt, recordings.id, positions.recordings)))
          .orderBy(asc(recordings.createdAt), asc(recordings.id))
          .limit(PAGE_PER_FEATURE + 1)
          .all();
  const recordingPage = take('recordings', recordingRows, (r) => `${r.createdAt}|${r.id}`);

  let notificationPage: ReturnType<typeof getNotifications>['items'] = [];
  if (positions.notifications !== DONE) {
    // the recipient index, oldest first; the position is the inner page token of notifications get
    const page = getNotifications(app, apiKeyId, { organizationId, userId, order: 'asc', pageSize: PAGE_PER_FEATURE, pageToken: positions.notifications || undefined });
    notificationPage = page.items;
    next.notifications = page.pageToken ?? DONE;
  }

  const finished = FEATURES.every((f) => next[f] === DONE);
  const profile = findUserIn(db, apiKeyId, userId);
  return {
    data: {
      profile: profile ? describeUser(profile) : null,
      comments: exportedComments,
      reactions: reactionPage.map(describeReaction),
      recordings: recordingPage.map((r) => describeRecording(app, r)),
      notifications: notificationPage,
    },
    nextPageToken: finished ? null : app.pageTokens.encode(scope, FEATURES.map((f) => next[f])),
  };
}

export type ErasureJob = typeof userDataJobs.$inferSelect;

/** /v2/users/data/delete: queues the erasure of a user's personal data across the API key. */
export function startErasure(app: AppContext, apiKeyId: string, userId: string): ErasureJob {
  const job: ErasureJob = { id: `del_${randomAlphanumeric(20)}`, apiKeyId, userId, status: 'pending', error: null, attempts: 0, createdAt: Date.now(), completedAt: null };
  app.db.insert(userDataJobs).values(job).run();
  app.jobs.wake();
  return job;
}

export function erasureStatus(app: AppContext, apiKeyId: string, jobId: string) {
  const job = app.db.select().from(userDataJobs).where(and(eq(userDataJobs.id, jobId), eq(userDataJobs.apiKeyId, apiKeyId))).get();
  if (!job) throw notFound('Deletion job not found.');
  return { jobId: job.id, userId: job.userId, status: job.status, error: job.error, createdAt: job.createdAt, completedAt: job.completedAt };
}

/**
 * Erases one user's personal data in one transaction: profile, memberships, groups, notification settings and
 * inbox rows, the comments, reactions and recordings (with their files) the user made, notifications and
 * activities the user acted in or that carry the user's name or e-mail, mentions of the user in others'
 * comments, assignments, and mail sent to the user. The database runs with secure_delete, and the WAL is
 * checkpointed after, so the freed pages keep no copy.
 */
function erase(app: Pick<AppContext, 'db' | 'sqlite' | 'config' | 'accessEvents'>, job: ErasureJob) {
  const { apiKeyId, userId } = job;
  const files: string[] = [];
  transaction(app.db, (tx) => {
    const profile = findUserIn(tx, apiKeyId, userId);
    const traces = new Set<string>([userId]);
    for (const value of [profile?.name, profile?.email]) if (value) traces.add(value);
    const seen = (rows: Array<{ user: StoredUser }>) => {
      for (const { user } of rows) for (const value of [user.name, user.email]) if (typeof value === 'string' && value) traces.add(value);
    };
    seen(tx.select({ user: comments.fromUser }).from(comments).where(and(eq(comments.apiKeyId, apiKeyId), eq(comments.fromUserId, userId))).all());
    seen(tx.select({ user: activities.actionUser }).from(activities).where(and(eq(activities.apiKeyId, apiKeyId), eq(activities.actionUserId, userId))).all());

    const mine = <T extends { apiKeyId: SQLiteColumn }>(table: T) => eq(table.apiKeyId, apiKeyId);
    tx.delete(users).where(and(mine(users), eq(users.id, userId))).run();
    tx.delete(memberships).where(and(mine(memberships), eq(memberships.userId, userId))).run();
    tx.delete(userGroupMembers).where(and(mine(userGroupMembers), eq(userGroupMembers.userId, userId))).run();
    tx.delete(notificationConfigs).where(and(mine(notificationConfigs), eq(notificationConfigs.userId, userId))).run();
    tx.delete(notificationRecipients).where(and(mine(notificationRecipients), eq(notificationRecipients.userId, userId))).run();
    tx.delete(reactions).where(and(mine(reactions), eq(reactions.fromUserId, userId))).run();
    // judgments: the user's own, and others' that quote the user's comments (as subject or reasoning)
    const written = tx.select({ text: comments.text, html: comments.html }).from(comments).where(and(mine(comments), eq(comments.fromUserId, userId))).all();
    const quoted = [...new Set(written.map((c) => commentPlainText(c.text, c.html) ?? '').filter(Boolean))];
    tx.delete(judgments).where(and(mine(judgments), eq(judgments.reviewerId, userId))).run();
    for (let i = 0; i < quoted.length; i += 400) {
      const some = quoted.slice(i, i + 400);
      tx.delete(judgments).where(and(mine(judgments), or(inArray(judgments.subject, some), inArray(judgments.reasoning, some)))).run();
    }
    tx.delete(comments).where(and(mine(comments), eq(comments.fromUserId, userId))).run();
    for (const attachment of tx
      .select({ key: recordingAttachments.storageKey })
      .from(recordingAttachments)
      .innerJoin(recordings, and(eq(recordings.apiKeyId, recordingAttachments.apiKeyId), eq(recordings.organizationId, recordingAttachments.organizationId), eq(recordings.id, recordingAttachments.recordingId)))
      .where(and(eq(recordings.apiKeyId, apiKeyId), eq(recordings.fromUserId, userId)))
      .all()) {
      files.push(attachment.key);
    }
    tx.delete(recordings).where(and(mine(recordings), eq(recordings.fromUserId, userId))).run();
    tx.update(commentAnnotations).set({ assignedTo: null }).where(and(mine(commentAnnotations), sql`json_extract(${commentAnnotations.assignedTo}, '$.userId') = ${userId}`)).run();
    tx.update(commentAnnotations).set({ createdByUserId: '' }).where(and(mine(commentAnnotations), eq(commentAnnotations.createdByUserId, userId))).run();

    for (const trace of traces) {
      const contains = (column: SQLiteColumn) => sql`instr(${column}, ${trace}) > 0`;
      tx.delete(notifications).where(and(mine(notifications), or(contains(notifications.actionUser), contains(notifications.headlineData), contains(notifications.body), contains(notifications.sourceData)))).run();
      tx.delete(activities).where(and(mine(activities), or(eq(activities.actionUserId, userId), contains(activities.actionUser), contains(activities.displayMessageTemplateData), contains(activities.entityData), contains(activities.changes)))).run();
      // the user in other people's comments (tagged, a recipient, in a kept list): drop those entries, keep the comment
      const mentioning = tx
        .select()
        .from(comments)
        .where(and(mine(comments), or(contains(comments.taggedUserContacts), contains(comments.mentionedUserIds), contains(comments.extra))))
        .all();
      const without = <T>(list: T[] | undefined) => list?.filter((entry) => !JSON.stringify(entry).includes(trace));
      for (const c of mentioning) {
        const contacts = without(c.taggedUserContacts ?? []);
        const extra = c.extra && {
          ...c.extra,
          ...(c.extra.to && { to: without(c.extra.to) }),
          ...(c.extra.attachments && { attachments: without(c.extra.attachments) }),
          ...(c.extra.recorders && { recorders: without(c.extra.recorders) }),
          ...(c.extra.customList && { customList: without(c.extra.customList) }),
        };
        if (extra?.agent && JSON.stringify(extra.agent).includes(trace)) delete extra.agent;
        tx.update(comments)
          .set({ taggedUserContacts: contacts, mentionedUserIds: c.mentionedUserIds.filter((u) => u !== userId), extra })
          .where(and(mine(comments), eq(comments.organizationId, c.organizationId), eq(comments.annotationId, c.annotationId), eq(comments.id, c.id)))
          .run();
      }
      tx.delete(mailOutbox).where(and(eq(mailOutbox.apiKeyId, apiKeyId), eq(mailOutbox.toAddress, trace))).run();
      tx.delete(judgments).where(and(mine(judgments), or(contains(judgments.subject), contains(judgments.reasoning), contains(judgments.reviewerName)))).run();
    }
    // FTS5 keeps deleted entries' tokens in its segments until they are merged: merge them now, so no word of the
    // user's stays in the index.
    tx.run(sql`INSERT INTO judgments_fts(judgments_fts) VALUES ('optimize')`);
    tx.update(userDataJobs).set({ status: 'completed', completedAt: Date.now(), error: null }).where(eq(userDataJobs.id, job.id)).run();
  });
  // the user's memberships are gone: so is their access
  app.accessEvents.publish({ apiKeyId, userIds: [userId] });
  for (const key of files) rmSync(join(app.config.dataDir, 'attachments', key), { force: true });
  app.sqlite.pragma('wal_checkpoint(TRUNCATE)');
}

export const erasureQueue: JobQueue<ErasureJob> = {
  name: 'user-data erasure',
  next: (db) => db.select().from(userDataJobs).where(eq(userDataJobs.status, 'pending')).orderBy(asc(userDataJobs.createdAt)).limit(1).get(),
  markStarted(db, job) {
    db.update(userDataJobs).set({ status: 'in_progress', attempts: job.attempts + 1 }).where(eq(userDataJobs.id, job.id)).run();
  },
  run: (app, job) => erase(app, job),
  markFailed(db, job, message) {
    db.update(userDataJobs).set({ status: 'failed', error: message, completedAt: Date.now() }).where(eq(userDataJobs.id, job.id)).run();
  },
  recover(tx) {
    const stuck = tx.select().from(userDataJobs).where(eq(userDataJobs.status, 'in_progress')).all();
    for (const job of stuck) {
      const status = job.attempts >= MAX_ATTEMPTS ? 'failed' : 'pending';
      tx.update(userDataJobs).set({ status, error: status === 'failed' ? `interrupted ${MAX_ATTEMPTS} times; not retried` : null }).where(eq(userDataJobs.id, job.id)).run();
    }
  },
};

