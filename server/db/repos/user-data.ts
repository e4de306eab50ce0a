// One user's data across the feed and the comments: what users/data/get exports a page at a time, and what the
// erasure job (users/data/delete) removes in one transaction, with the jobs' own rows.
import type Database from 'better-sqlite3';
import { and, asc, eq, gt, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Db } from '../client.ts';
import type { CheckpointRow } from '../checkpointer.ts';
import { connectionOf } from '../connection.ts';
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
} from '../schema.ts';
import { LeaseLostError } from './lease.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

export type ErasureJob = typeof userDataJobs.$inferSelect;
export type UserCommentRow = typeof comments.$inferSelect;
export type UserAnnotationRow = typeof commentAnnotations.$inferSelect;
export type UserReactionRow = typeof reactions.$inferSelect;
export type UserRecordingRow = typeof recordings.$inferSelect;

/** Where a feature's export page starts: after this (timestamp, key), from the start (null), or not at all (done). */
export type ExportFrom = readonly [number, string] | null | 'done';

/** `at > t or (at = t and key > k)`: the rows after a position, in (at, key) order. */
function after(at: SQLiteColumn, key: SQL | SQLiteColumn, from: readonly [number, string] | null): SQL | undefined {
  return from ? or(gt(at, from[0]), and(eq(at, from[0]), sql`${key} > ${from[1]}`)) : undefined;
}

/** A comment's position key: its thread and number (comment numbers restart in every thread). */
const commentKey = sql`${comments.annotationId} || ':' || ${comments.id}`;

/**
 * The rows of one export page: per feature at most `limit` of the user's rows (comments written, reactions,
 * recordings made) after its position, oldest first.
 */
function exportRows(
  db: Db,
  apiKeyId: string,
  organizationId: string,
  userId: string,
  from: { comments: ExportFrom; reactions: ExportFrom; recordings: ExportFrom },
  limit: number,
) {
  const commentRows =
    from.comments === 'done'
      ? []
      : db
          .select()
          .from(comments)
          .where(
            and(
              eq(comments.apiKeyId, apiKeyId),
              eq(comments.organizationId, organizationId),
              eq(comments.fromUserId, userId),
              after(comments.createdAt, commentKey, from.comments),
            ),
          )
          .orderBy(asc(comments.createdAt), asc(commentKey))
          .limit(limit)
          .all();
  const reactionRows =
    from.reactions === 'done'
      ? []
      : db
          .select()
          .from(reactions)
          .where(
            and(
              eq(reactions.apiKeyId, apiKeyId),
              eq(reactions.organizationId, organizationId),
              eq(reactions.fromUserId, userId),
              after(reactions.createdAt, reactions.id, from.reactions),
            ),
          )
          .orderBy(asc(reactions.createdAt), asc(reactions.id))
          .limit(limit)
          .all();
  const recordingRows =
    from.recordings === 'done'
      ? []
      : db
          .select()
          .from(recordings)
          .where(
            and(
              eq(recordings.apiKeyId, apiKeyId),
              eq(recordings.organizationId, organizationId),
              eq(recordings.fromUserId, userId),
              after(recordings.createdAt, recordings.id, from.recordings),
            ),
          )
          .orderBy(asc(recordings.createdAt), asc(recordings.id))
          .limit(limit)
          .all();
  return { comments: commentRows, reactions: reactionRows, recordings: recordingRows };
}

/** What erase needs of the services: how a comment reads as plain text (the judgments that quote it go too). */
export interface ErasureRules {
  plainText(text: string | null, html: string | null): string | null;
}

/**
 * Erases one user's personal data in the caller's transaction: profile, memberships, groups, notification
 * settings and inbox rows, the comments, reactions and recordings the user made, notifications and activities
 * the user acted in or that carry the user's name or e-mail, mentions of the user in others' comments,
 * assignments, mail sent to the user, judgments by or quoting the user. The job stays in_progress (the erasure's
 * holder completes it when the files and the write-ahead log are gone too: `complete`). Returns the storage keys of
 * the removed recordings' attachment files.
 */
function erase(db: Db, job: ErasureJob, rules: ErasureRules): string[] {
  const { apiKeyId, userId } = job;
  const files: string[] = [];
  const profile = db
    .select({ name: users.name, email: users.email })
    .from(users)
    .where(and(eq(users.apiKeyId, apiKeyId), eq(users.id, userId)))
    .get();
  const traces = new Set<string>([userId]);
  for (const value of [profile?.name, profile?.email]) if (value) traces.add(value);
  const seen = (rows: Array<{ user: StoredUser }>) => {
    for (const { user } of rows) for (const value of [user.name, user.email]) if (typeof value === 'string' && value) traces.add(value);
  };
  seen(
    db
      .select({ user: comments.fromUser })
      .from(comments)
      .where(and(eq(comments.apiKeyId, apiKeyId), eq(comments.fromUserId, userId)))
      .all(),
  );
  seen(
    db
      .select({ user: activities.actionUser })
      .from(activities)
      .where(and(eq(activities.apiKeyId, apiKeyId), eq(activities.actionUserId, userId)))
      .all(),
  );

  const mine = <T extends { apiKeyId: SQLiteColumn }>(table: T) => eq(table.apiKeyId, apiKeyId);
  db.delete(users)
    .where(and(mine(users), eq(users.id, userId)))
    .run();
  db.delete(memberships)
    .where(and(mine(memberships), eq(memberships.userId, userId)))
    .run();
  db.delete(userGroupMembers)
    .where(and(mine(userGroupMembers), eq(userGroupMembers.userId, userId)))
    .run();
  db.delete(notificationConfigs)
    .where(and(mine(notificationConfigs), eq(notificationConfigs.userId, userId)))
    .run();
  db.delete(notificationRecipients)
    .where(and(mine(notificationRecipients), eq(notificationRecipients.userId, userId)))
    .run();
  db.delete(reactions)
    .where(and(mine(reactions), eq(reactions.fromUserId, userId)))
    .run();
  // judgments: the user's own, and others' that quote the user's comments (as subject or reasoning)
  const written = db
    .select({ text: comments.text, html: comments.html })
    .from(comments)
    .where(and(mine(comments), eq(comments.fromUserId, userId)))
    .all();
  const quoted = [...new Set(written.map((c) => rules.plainText(c.text, c.html) ?? '').filter(Boolean))];
  db.delete(judgments)
    .where(and(mine(judgments), eq(judgments.reviewerId, userId)))
    .run();
  for (let i = 0; i < quoted.length; i += 400) {
    const some = quoted.slice(i, i + 400);
    db.delete(judgments)
      .where(and(mine(judgments), or(inArray(judgments.subject, some), inArray(judgments.reasoning, some))))
      .run();
  }
  db.delete(comments)
    .where(and(mine(comments), eq(comments.fromUserId, userId)))
    .run();
  for (const attachment of db
    .select({ key: recordingAttachments.storageKey })
    .from(recordingAttachments)
    .innerJoin(
      recordings,
      and(
        eq(recordings.apiKeyId, recordingAttachments.apiKeyId),
        eq(recordings.organizationId, recordingAttachments.organizationId),
        eq(recordings.id, recordingAttachments.recordingId),
      ),
    )
    .where(and(eq(recordings.apiKeyId, apiKeyId), eq(recordings.fromUserId, userId)))
    .all()) {
    files.push(attachment.key);
  }
  db.delete(recordings)
    .where(and(mine(recordings), eq(recordings.fromUserId, userId)))
    .run();
  db.update(commentAnnotations)
    .set({ assignedTo: null })
    .where(and(mine(commentAnnotations), sql`json_extract(${commentAnnotations.assignedTo}, '$.userId') = ${userId}`))
    .run();
  db.update(commentAnnotations)
    .set({ createdByUserId: '' })
    .where(and(mine(commentAnnotations), eq(commentAnnotations.createdByUserId, userId)))
    .run();

  for (const trace of traces) {
    const contains = (column: SQLiteColumn) => sql`instr(${column}, ${trace}) > 0`;
    db.delete(notifications)
      .where(
        and(
          mine(notifications),
          or(contains(notifications.actionUser), contains(notifications.headlineData), contains(notifications.body), contains(notifications.sourceData)),
        ),
      )
      .run();
    db.delete(activities)
      .where(
        and(
          mine(activities),
          or(
            eq(activities.actionUserId, userId),
            contains(activities.actionUser),
            contains(activities.displayMessageTemplateData),
            contains(activities.entityData),
            contains(activities.changes),
          ),
        ),
      )
      .run();
    // the user in other people's comments (tagged, a recipient, in a kept list): drop those entries, keep the comment
    const mentioning = db
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
      db.update(comments)
        .set({ taggedUserContacts: contacts, mentionedUserIds: c.mentionedUserIds.filter((u) => u !== userId), extra })
        .where(and(mine(comments), eq(comments.organizationId, c.organizationId), eq(comments.annotationId, c.annotationId), eq(comments.id, c.id)))
        .run();
    }
    db.delete(mailOutbox)
      .where(and(eq(mailOutbox.apiKeyId, apiKeyId), eq(mailOutbox.toAddress, trace)))
      .run();
    db.delete(judgments)
      .where(and(mine(judgments), or(contains(judgments.subject), contains(judgments.reasoning), contains(judgments.reviewerName))))
      .run();
  }
  // FTS5 keeps deleted entries' tokens in its segments until they are merged: merge them now, so no word of the
  // user's stays in the index.
  db.run(sql`INSERT INTO judgments_fts(judgments_fts) VALUES ('optimize')`);
  // kept only if the job is still as its holder read it (`heldJob`): else the whole erasure is undone, and the job's
  // new holder does it. The job stays in_progress: `complete` ends it once the files and the WAL are gone too.
  if (db.update(userDataJobs).set({ error: null }).where(heldJob(job)).run().changes === 0) throw new LeaseLostError(`user-data erasure ${job.id}`);
  return files;
}

/**
 * The erasure as its holder read it: lease_until still the value its claim set. A lease that ran out was put back
 * (lease_until cleared) or taken over (a new lease_until), and a job completed or failed has none: the old holder's
 * outcome must not apply then (a cluster's fence).
 */
function heldJob(job: { id: string; leaseUntil: number | null }) {
  return and(eq(userDataJobs.id, job.id), job.leaseUntil === null ? isNull(userDataJobs.leaseUntil) : eq(userDataJobs.leaseUntil, job.leaseUntil));
}

/** Erasures left in_progress whose holder is gone: a crash (at start, every one: `heldBefore` Infinity) or an expired lease. */
const abandonedJob = (heldBefore: number) =>
  and(eq(userDataJobs.status, 'in_progress'), or(isNull(userDataJobs.leaseUntil), lt(userDataJobs.leaseUntil, heldBefore)));

/** The erasure jobs' queue: the job runner takes every key's (services/jobs.ts). */
const queue = {
  /**
   * Takes the oldest erasure waiting (pending, or abandoned by an instance whose lease ran out), marking it
   * in_progress under a lease until `leaseUntil` and counting this attempt; jobs abandoned `maxAttempts` times fail.
   */
  claim(db: Db, now: number, leaseUntil: number, maxAttempts: number): ErasureJob | undefined {
    queue.recover(db, maxAttempts, now);
    const job = db.select().from(userDataJobs).where(eq(userDataJobs.status, 'pending')).orderBy(asc(userDataJobs.createdAt)).limit(1).get();
    if (!job) return undefined;
    const taken = { status: 'in_progress' as const, attempts: job.attempts + 1, leaseUntil };
    db.update(userDataJobs).set(taken).where(eq(userDataJobs.id, job.id)).run();
    return { ...job, ...taken };
  },
  /** Completes the erasure if its holder still holds it (`heldJob`); whether it did. */
  complete: (db: Db, id: string, now: number, leaseUntil: number | null) =>
    db.update(userDataJobs).set({ status: 'completed', completedAt: now, error: null, leaseUntil: null }).where(heldJob({ id, leaseUntil })).run().changes > 0,
  /** Fails the erasure if its holder still holds it (`heldJob`); whether it did. */
  markFailed: (db: Db, id: string, message: string, now: number, leaseUntil: number | null) =>
    db.update(userDataJobs).set({ status: 'failed', error: message, completedAt: now, leaseUntil: null }).where(heldJob({ id, leaseUntil })).run().changes > 0,
  /** Abandoned jobs (see `abandonedJob`): back to pending, or failed after `maxAttempts`. */
  recover(db: Db, maxAttempts: number, heldBefore: number) {
    const stuck = db.select().from(userDataJobs).where(abandonedJob(heldBefore)).all();
    for (const job of stuck) {
      const status = job.attempts >= maxAttempts ? 'failed' : 'pending';
      db.update(userDataJobs)
        .set({ status, error: status === 'failed' ? `interrupted ${maxAttempts} times; not retried` : null, leaseUntil: null })
        .where(eq(userDataJobs.id, job.id))
        .run();
    }
  },
};

/** How long an erasure's checkpoint waits for the readers of older snapshots to move on, trying again after 20 ms, then twice as long each time up to 1 s. */
const CHECKPOINT_WAIT_MS = 60_000;
const CHECKPOINT_RETRY_MS = 20;
const CHECKPOINT_MAX_RETRY_MS = 1_000;

/**
 * wal_checkpoint(TRUNCATE) without its busy handler: with it, SQLite waits on the calling thread (busy_timeout,
 * 5 s) for every reader of an older snapshot, and the request thread's event loop stops meanwhile. Without it, the
 * checkpoint copies what it can and answers busy at once; the caller waits between tries with a timer.
 */
function checkpointWithoutWaiting(sqlite: Database.Database): CheckpointRow[] {
  const timeout = sqlite.pragma('busy_timeout', { simple: true }) as number;
  sqlite.pragma('busy_timeout = 0');
  try {
    return sqlite.pragma('wal_checkpoint(TRUNCATE)') as CheckpointRow[];
  } finally {
    sqlite.pragma(`busy_timeout = ${timeout}`);
  }
}

/** The key's users' data: export pages, erasure jobs, and the queue of all keys' pending erasures. */
export function userDataRepo(engine: SqliteEngine) {
  return {
    /** One export page's rows per feature (at most `limit` each), after each feature's position. */
    exportRows: (
      scope: TenantScope,
      organizationId: string,
      userId: string,
      from: { comments: ExportFrom; reactions: ExportFrom; recordings: ExportFrom },
      limit: number,
    ) => engine.read((db) => exportRows(db, scope.apiKeyId, organizationId, userId, from, limit)),

    /** The organization's annotations with these ids. */
    annotations: (scope: TenantScope, organizationId: string, ids: readonly string[]) =>
      engine.read((db) =>
        ids.length
          ? db
              .select()
              .from(commentAnnotations)
              .where(
                and(
                  eq(commentAnnotations.apiKeyId, scope.apiKeyId),
                  eq(commentAnnotations.organizationId, organizationId),
                  inArray(commentAnnotations.id, [...ids]),
                ),
              )
              .all()
          : [],
      ),

    insertJob: (scope: TenantScope, job: Omit<ErasureJob, 'apiKeyId'>) =>
      engine.write(
        (db) =>
          void db
            .insert(userDataJobs)
            .values({ ...job, apiKeyId: scope.apiKeyId })
            .run(),
      ),

    findJob: (scope: TenantScope, jobId: string) =>
      engine.read((db) =>
        db
          .select()
          .from(userDataJobs)
          .where(and(eq(userDataJobs.id, jobId), eq(userDataJobs.apiKeyId, scope.apiKeyId)))
          .get(),
      ),

    /** erase (above) as a unit of work of its own, or of the caller's. */
    erase: (scope: TenantScope, job: Omit<ErasureJob, 'apiKeyId'>, rules: ErasureRules) =>
      engine.write((db) => erase(db, { ...job, apiKeyId: scope.apiKeyId }, rules)),

    /** Folds the WAL back into the database file, so that the pages an erasure freed keep no copy in it. */
    checkpoint: async () => {
      // The delivery worker's checkpointer (another connection, another thread) may hold the checkpoint lock at
      // that moment, or a reader (the worker, a backup, an operator's sqlite3) an older snapshot: the pages then
      // stay in the log. Try again until the whole log is copied, and fail the job rather than report an erasure
      // that is not on disk.
      const deadline = Date.now() + CHECKPOINT_WAIT_MS;
      for (let wait = CHECKPOINT_RETRY_MS; ; wait = Math.min(wait * 2, CHECKPOINT_MAX_RETRY_MS)) {
        const [row] = await engine.read((db) => checkpointWithoutWaiting(connectionOf(db)));
        if (row && row.busy === 0 && row.checkpointed === row.log) return;
        if (Date.now() + wait > deadline)
          throw new Error(`the write-ahead log could not be checkpointed within ${CHECKPOINT_WAIT_MS / 1000} s: a reader holds an older snapshot of hearth.db`);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    },

    /** The queue of every key's erasures (services/jobs.ts): see `queue`. */
    claimJob: (now: number, leaseUntil: number, maxAttempts: number) => engine.write((db) => queue.claim(db, now, leaseUntil, maxAttempts)),
    complete: (id: string, now: number, leaseUntil: number | null) => engine.write((db) => queue.complete(db, id, now, leaseUntil)),
    markFailed: (id: string, message: string, now: number, leaseUntil: number | null) =>
      engine.write((db) => queue.markFailed(db, id, message, now, leaseUntil)),
    recover: (maxAttempts: number, heldBefore: number) => engine.write((db) => queue.recover(db, maxAttempts, heldBefore)),
  };
}

export type UserDataRepo = ReturnType<typeof userDataRepo>;
