// One user's data across the feed and the comments: what users/data/get exports a page at a time, and what the
// erasure job (users/data/delete) removes in one transaction, with the jobs' own rows. Written once for both engines
// (engine.ts; test/pg/user-data.test.ts runs it on both and compares every answer and every affected table).
//
// `checkpoint` folds SQLite's write-ahead log back into the database file, so that the pages an erasure freed
// (zeroed by secure_delete) keep no copy in the log. It does nothing on PostgreSQL, which has no counterpart a
// repository can run: its WAL, its archive and its replicas, and the dead row versions that VACUUM reclaims, are the
// operator's, and CHECKPOINT (a privileged command) would not remove anything from them. What `erase` guarantees
// there: when its unit of work commits, every row it deletes or rewrites is gone for every later statement of every
// connection; the old row versions stay in the table's and its indexes' files (the `judgments_search` index included,
// where SQLite's FTS5 is merged by 'optimize') until (auto)VACUUM reclaims them, and in the WAL as long as it is kept.
import type Database from 'better-sqlite3';
import { and, asc, eq, gt, inArray, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { CheckpointRow } from '../checkpointer.ts';
import { connectionOf } from '../connection.ts';
import type { Engine, Q } from '../engine.ts';
import type { commentAnnotations, comments, reactions, recordings, StoredUser, userDataJobs } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import { LeaseLostError } from './lease.ts';

export type ErasureJob = typeof userDataJobs.$inferSelect;
export type UserCommentRow = typeof comments.$inferSelect;
export type UserAnnotationRow = typeof commentAnnotations.$inferSelect;
export type UserReactionRow = typeof reactions.$inferSelect;
export type UserRecordingRow = typeof recordings.$inferSelect;

/** Where a feature's export page starts: after this (timestamp, key), from the start (null), or not at all (done). */
export type ExportFrom = readonly [number, string] | null | 'done';

/** What erase needs of the services: how a comment reads as plain text (the judgments that quote it go too). */
export interface ErasureRules {
  plainText(text: string | null, html: string | null): string | null;
}

/** `at > t or (at = t and key > k)`: the rows after a position, in (at, key) order (text in code point order on both: SQLite's BINARY, PostgreSQL's C collation). */
function after(at: SQLiteColumn, key: SQL | SQLiteColumn, from: readonly [number, string] | null): SQL | undefined {
  return from ? or(gt(at, from[0]), and(eq(at, from[0]), sql`${key} > ${from[1]}`)) : undefined;
}

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
export function userDataRepo(engine: Engine) {
  const {
    users,
    memberships,
    userGroupMembers,
    notificationConfigs,
    notificationRecipients,
    notifications,
    activities,
    comments: cm,
    commentAnnotations: ca,
    reactions: r,
    recordings: rec,
    recordingAttachments,
    judgments,
    mailOutbox,
    userDataJobs: j,
  } = engine.t;
  // whole rows: PostgreSQL's comments and reactions carry their insertion order (`seq`) beside the source's columns
  const commentRow = engine.columns(cm);
  const reactionRow = engine.columns(r);
  /** A comment's position key: its thread and number as text (comment numbers restart in every thread; '10' sorts before '9'). */
  const commentKey = sql`(${cm.annotationId} || ':' || CAST(${cm.id} AS TEXT))`;

  /**
   * Whether a column's text holds `trace`: SQLite's instr on the text as stored, PostgreSQL's strpos on the column
   * as text (json columns keep the text they were written as). Neither engine has the other's function.
   */
  const contains =
    engine.kind === 'sqlite'
      ? (column: SQLiteColumn, trace: string) => sql`instr(${column}, ${trace}) > 0`
      : (column: SQLiteColumn, trace: string) => sql`strpos(${column}::text, ${trace}) > 0`;

  /**
   * The rows of one export page: per feature at most `limit` of the user's rows (comments written, reactions,
   * recordings made) after its position, oldest first. The features' pages are independent of each other (each has
   * its own position), so each is a statement of its own.
   */
  async function exportRows(
    db: Q,
    apiKeyId: string,
    organizationId: string,
    userId: string,
    from: { comments: ExportFrom; reactions: ExportFrom; recordings: ExportFrom },
    limit: number,
  ) {
    const commentRows =
      from.comments === 'done'
        ? []
        : await db
            .select(commentRow)
            .from(cm)
            .where(
              and(eq(cm.apiKeyId, apiKeyId), eq(cm.organizationId, organizationId), eq(cm.fromUserId, userId), after(cm.createdAt, commentKey, from.comments)),
            )
            .orderBy(asc(cm.createdAt), asc(commentKey))
            .limit(limit);
    const reactionRows =
      from.reactions === 'done'
        ? []
        : await db
            .select(reactionRow)
            .from(r)
            .where(and(eq(r.apiKeyId, apiKeyId), eq(r.organizationId, organizationId), eq(r.fromUserId, userId), after(r.createdAt, r.id, from.reactions)))
            .orderBy(asc(r.createdAt), asc(r.id))
            .limit(limit);
    const recordingRows =
      from.recordings === 'done'
        ? []
        : await db
            .select()
            .from(rec)
            .where(
              and(
                eq(rec.apiKeyId, apiKeyId),
                eq(rec.organizationId, organizationId),
                eq(rec.fromUserId, userId),
                after(rec.createdAt, rec.id, from.recordings),
              ),
            )
            .orderBy(asc(rec.createdAt), asc(rec.id))
            .limit(limit);
    return { comments: commentRows, reactions: reactionRows, recordings: recordingRows };
  }

  /**
   * Erases one user's personal data in the caller's transaction: profile, memberships, groups, notification
   * settings and inbox rows, the comments, reactions and recordings the user made, notifications and activities
   * the user acted in or that carry the user's name or e-mail, mentions of the user in others' comments,
   * assignments, mail sent to the user, judgments by or quoting the user. The job stays in_progress (the erasure's
   * holder completes it when the files and the write-ahead log are gone too: `complete`). Returns the storage keys of
   * the removed recordings' attachment files.
   */
  async function erase(db: Q, job: ErasureJob, rules: ErasureRules): Promise<string[]> {
    const { apiKeyId, userId } = job;
    const files: string[] = [];
    const [profile] = await db
      .select({ name: users.name, email: users.email })
      .from(users)
      .where(and(eq(users.apiKeyId, apiKeyId), eq(users.id, userId)))
      .limit(1);
    const traces = new Set<string>([userId]);
    for (const value of [profile?.name, profile?.email]) if (value) traces.add(value);
    const seen = (rows: Array<{ user: StoredUser }>) => {
      for (const { user } of rows) for (const value of [user.name, user.email]) if (typeof value === 'string' && value) traces.add(value);
    };
    seen(
      await db
        .select({ user: cm.fromUser })
        .from(cm)
        .where(and(eq(cm.apiKeyId, apiKeyId), eq(cm.fromUserId, userId))),
    );
    seen(
      await db
        .select({ user: activities.actionUser })
        .from(activities)
        .where(and(eq(activities.apiKeyId, apiKeyId), eq(activities.actionUserId, userId))),
    );

    const mine = <T extends { apiKeyId: SQLiteColumn }>(table: T) => eq(table.apiKeyId, apiKeyId);
    await db.delete(users).where(and(mine(users), eq(users.id, userId)));
    await db.delete(memberships).where(and(mine(memberships), eq(memberships.userId, userId)));
    await db.delete(userGroupMembers).where(and(mine(userGroupMembers), eq(userGroupMembers.userId, userId)));
    await db.delete(notificationConfigs).where(and(mine(notificationConfigs), eq(notificationConfigs.userId, userId)));
    await db.delete(notificationRecipients).where(and(mine(notificationRecipients), eq(notificationRecipients.userId, userId)));
    await db.delete(r).where(and(mine(r), eq(r.fromUserId, userId)));
    // judgments: the user's own, and others' that quote the user's comments (as subject or reasoning)
    const written = await db
      .select({ text: cm.text, html: cm.html })
      .from(cm)
      .where(and(mine(cm), eq(cm.fromUserId, userId)));
    const quoted = [...new Set(written.map((c) => rules.plainText(c.text, c.html) ?? '').filter(Boolean))];
    await db.delete(judgments).where(and(mine(judgments), eq(judgments.reviewerId, userId)));
    // slices of 400: twice as many parameters, below SQLite's limit (and PostgreSQL's)
    for (let i = 0; i < quoted.length; i += 400) {
      const some = quoted.slice(i, i + 400);
      await db.delete(judgments).where(and(mine(judgments), or(inArray(judgments.subject, some), inArray(judgments.reasoning, some))));
    }
    await db.delete(cm).where(and(mine(cm), eq(cm.fromUserId, userId)));
    const attachments = await db
      .select({ key: recordingAttachments.storageKey })
      .from(recordingAttachments)
      .innerJoin(
        rec,
        and(
          eq(rec.apiKeyId, recordingAttachments.apiKeyId),
          eq(rec.organizationId, recordingAttachments.organizationId),
          eq(rec.id, recordingAttachments.recordingId),
        ),
      )
      .where(and(eq(rec.apiKeyId, apiKeyId), eq(rec.fromUserId, userId)));
    for (const attachment of attachments) files.push(attachment.key);
    await db.delete(rec).where(and(mine(rec), eq(rec.fromUserId, userId)));
    // `->> 'userId'` is json_extract(assigned_to, '$.userId') on SQLite (3.38 and later) and PostgreSQL's json
    // operator: the assignee's id as text on both
    await db
      .update(ca)
      .set({ assignedTo: null })
      .where(and(mine(ca), sql`${ca.assignedTo} ->> 'userId' = ${userId}`));
    await db
      .update(ca)
      .set({ createdByUserId: '' })
      .where(and(mine(ca), eq(ca.createdByUserId, userId)));

    for (const trace of traces) {
      const has = (column: SQLiteColumn) => contains(column, trace);
      await db
        .delete(notifications)
        .where(
          and(mine(notifications), or(has(notifications.actionUser), has(notifications.headlineData), has(notifications.body), has(notifications.sourceData))),
        );
      await db
        .delete(activities)
        .where(
          and(
            mine(activities),
            or(
              eq(activities.actionUserId, userId),
              has(activities.actionUser),
              has(activities.displayMessageTemplateData),
              has(activities.entityData),
              has(activities.changes),
            ),
          ),
        );
      // the user in other people's comments (tagged, a recipient, in a kept list): drop those entries, keep the comment
      const mentioning = await db
        .select(commentRow)
        .from(cm)
        .where(and(mine(cm), or(has(cm.taggedUserContacts), has(cm.mentionedUserIds), has(cm.extra))));
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
        await db
          .update(cm)
          .set({ taggedUserContacts: contacts, mentionedUserIds: c.mentionedUserIds.filter((u) => u !== userId), extra })
          .where(and(mine(cm), eq(cm.organizationId, c.organizationId), eq(cm.annotationId, c.annotationId), eq(cm.id, c.id)));
      }
      await db.delete(mailOutbox).where(and(eq(mailOutbox.apiKeyId, apiKeyId), eq(mailOutbox.toAddress, trace)));
      await db.delete(judgments).where(and(mine(judgments), or(has(judgments.subject), has(judgments.reasoning), has(judgments.reviewerName))));
    }
    // SQLite: FTS5 keeps deleted entries' tokens in its segments until they are merged: merge them now, so no word of
    // the user's stays in the index. PostgreSQL's judgments_search is an index of the table, whose deleted entries no
    // query can reach once the unit of work commits (VACUUM reclaims them: the operator's).
    if (engine.kind === 'sqlite') await db.run(sql`INSERT INTO judgments_fts(judgments_fts) VALUES ('optimize')`);
    // kept only if the job is still as its holder read it (`heldJob`): else the whole erasure is undone, and the job's
    // new holder does it. The job stays in_progress: `complete` ends it once the files and the WAL are gone too.
    if (engine.changed(await db.update(j).set({ error: null }).where(heldJob(job))) === 0) throw new LeaseLostError(`user-data erasure ${job.id}`);
    return files;
  }

  /**
   * The erasure as its holder read it: lease_until still the value its claim set. A lease that ran out was put back
   * (lease_until cleared) or taken over (a new lease_until), and a job completed or failed has none: the old holder's
   * outcome must not apply then (a cluster's fence).
   */
  const heldJob = (held: { id: string; leaseUntil: number | null }) =>
    and(eq(j.id, held.id), held.leaseUntil === null ? isNull(j.leaseUntil) : eq(j.leaseUntil, held.leaseUntil));

  /**
   * Abandoned jobs, in_progress whose holder is gone (a crash: at start, every one, `heldBefore` Infinity; or an
   * expired lease): back to pending, or failed after `maxAttempts`. One statement.
   */
  async function recover(db: Q, maxAttempts: number, heldBefore: number) {
    const failed = sql`${j.attempts} >= ${maxAttempts}`;
    await db
      .update(j)
      .set({
        status: sql`CASE WHEN ${failed} THEN 'failed' ELSE 'pending' END`,
        error: sql`CASE WHEN ${failed} THEN ${`interrupted ${maxAttempts} times; not retried`} ELSE NULL END`,
        leaseUntil: null,
      })
      .where(and(eq(j.status, 'in_progress'), or(isNull(j.leaseUntil), lt(j.leaseUntil, heldBefore))));
  }

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
      engine.read(async (db) =>
        ids.length
          ? await db
              .select()
              .from(ca)
              .where(and(eq(ca.apiKeyId, scope.apiKeyId), eq(ca.organizationId, organizationId), inArray(ca.id, [...ids])))
          : [],
      ),

    insertJob: (scope: TenantScope, job: Omit<ErasureJob, 'apiKeyId'>) =>
      engine.write(async (db) => void (await db.insert(j).values({ ...job, apiKeyId: scope.apiKeyId }))),

    findJob: (scope: TenantScope, jobId: string) =>
      engine.read(
        async (db): Promise<ErasureJob | undefined> =>
          (
            await db
              .select()
              .from(j)
              .where(and(eq(j.id, jobId), eq(j.apiKeyId, scope.apiKeyId)))
              .limit(1)
          )[0],
      ),

    /** erase (above) as a unit of work of its own, or of the caller's. */
    erase: (scope: TenantScope, job: Omit<ErasureJob, 'apiKeyId'>, rules: ErasureRules) =>
      engine.write((db) => erase(db, { ...job, apiKeyId: scope.apiKeyId }, rules)),

    /**
     * Folds SQLite's WAL back into the database file, so that the pages an erasure freed keep no copy in it. Nothing
     * on PostgreSQL (see the top): a committed erasure is gone from every query.
     */
    checkpoint: async (): Promise<void> => {
      if (engine.kind === 'postgres') return;
      // The delivery worker's checkpointer (another connection, another thread) may hold the checkpoint lock at
      // that moment, or a reader (the worker, a backup, an operator's sqlite3) an older snapshot: the pages then
      // stay in the log. Try again until the whole log is copied, and fail the job rather than report an erasure
      // that is not on disk.
      const deadline = Date.now() + CHECKPOINT_WAIT_MS;
      for (let wait = CHECKPOINT_RETRY_MS; ; wait = Math.min(wait * 2, CHECKPOINT_MAX_RETRY_MS)) {
        const [row] = await engine.read(async (db) => checkpointWithoutWaiting(connectionOf(db)));
        if (row && row.busy === 0 && row.checkpointed === row.log) return;
        if (Date.now() + wait > deadline)
          throw new Error(`the write-ahead log could not be checkpointed within ${CHECKPOINT_WAIT_MS / 1000} s: a reader holds an older snapshot of hearth.db`);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    },

    /**
     * The queue of every key's erasures (services/jobs.ts). Takes the oldest erasure waiting (pending, or abandoned by
     * an instance whose lease ran out: `recover` first), marking it in_progress under a lease until `leaseUntil` and
     * counting this attempt; jobs abandoned `maxAttempts` times fail. Ties of `created_at` by id.
     */
    claimJob: (now: number, leaseUntil: number, maxAttempts: number) =>
      engine.write(async (db): Promise<ErasureJob | undefined> => {
        await recover(db, maxAttempts, now);
        const oldest = db.select({ id: j.id }).from(j).where(eq(j.status, 'pending')).orderBy(asc(j.createdAt), asc(j.id)).limit(1);
        // PostgreSQL: instances claim at the same moment under READ COMMITTED, so the pick skips a job another is
        // taking (FOR UPDATE SKIP LOCKED). SQLite runs one writer at a time and has no such clause.
        const next = engine.kind === 'postgres' ? (oldest as unknown as LockableSelect<typeof oldest>).for('update', { skipLocked: true }) : oldest;
        return (
          await db
            .update(j)
            .set({ status: 'in_progress', attempts: sql`${j.attempts} + 1`, leaseUntil })
            .where(inArray(j.id, next))
            .returning()
        )[0];
      }),
    /** Completes the erasure if its holder still holds it (`heldJob`); whether it did. */
    complete: (id: string, now: number, leaseUntil: number | null) =>
      engine.write(
        async (db) =>
          engine.changed(await db.update(j).set({ status: 'completed', completedAt: now, error: null, leaseUntil: null }).where(heldJob({ id, leaseUntil }))) >
          0,
      ),
    /** Fails the erasure if its holder still holds it (`heldJob`); whether it did. */
    markFailed: (id: string, message: string, now: number, leaseUntil: number | null) =>
      engine.write(
        async (db) =>
          engine.changed(await db.update(j).set({ status: 'failed', error: message, completedAt: now, leaseUntil: null }).where(heldJob({ id, leaseUntil }))) >
          0,
      ),
    /** Abandoned jobs (see `recover`): back to pending, or failed after `maxAttempts`. */
    recover: (maxAttempts: number, heldBefore: number) => engine.write((db) => recover(db, maxAttempts, heldBefore)),
  };
}

/** A select as PostgreSQL's builder has it at run time: with a row lock clause (the builder is typed as SQLite's). */
type LockableSelect<S> = { for(strength: 'update', config: { skipLocked: boolean }): S };

export type UserDataRepo = ReturnType<typeof userDataRepo>;
