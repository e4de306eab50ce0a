// One user's data on PostgreSQL: the same repository as ../../repos/user-data.ts (its type is the contract;
// test/pg/user-data.test.ts runs both engines on the same calls and compares every answer and every affected table):
// the export pages, the erasure (statement by statement as on SQLite, in one unit of work), and the jobs' queue.
//
// Left out: `checkpoint`. On SQLite it folds the write-ahead log back into the database file, so that the pages an
// erasure freed (zeroed by secure_delete) keep no copy in the log. PostgreSQL has no counterpart a repository can
// run: its WAL, its archive and its replicas, and the dead row versions that VACUUM reclaims, are the operator's,
// and CHECKPOINT (a privileged command) would not remove anything from them. What `erase` guarantees here: when its
// unit of work commits, every row it deletes or rewrites is gone for every later statement of every connection;
// the old row versions stay in the table's and its indexes' files (the `judgments_search` index included, where
// SQLite's FTS5 is merged by 'optimize') until (auto)VACUUM reclaims them, and in the WAL as long as it is kept.
import { and, asc, eq, gt, inArray, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { ErasureJob, ErasureRules, ExportFrom, UserDataRepo } from '../../repos/user-data.ts';
import type { CommentExtra, StoredUser } from '../../schema.ts';
import { LeaseLostError } from '../../repos/lease.ts';
import type { PgDb, PgEngine } from '../engine.ts';
import { pgTableFor } from '../schema.ts';

/** The SQLite repository's methods but `checkpoint` (SQLite's WAL file; see above). */
export type UserDataRepoPg = Omit<UserDataRepo, 'checkpoint'>;

const { table: users, c: u } = pgTableFor('users');
const { table: memberships, c: m } = pgTableFor('memberships');
const { table: userGroupMembers, c: gm } = pgTableFor('userGroupMembers');
const { table: notificationConfigs, c: nc } = pgTableFor('notificationConfigs');
const { table: notificationRecipients, c: nr } = pgTableFor('notificationRecipients');
const { table: notifications, c: n } = pgTableFor('notifications');
const { table: activities, c: act } = pgTableFor('activities');
const { table: comments, c: cm } = pgTableFor('comments');
const { table: commentAnnotations, c: ca } = pgTableFor('commentAnnotations');
const { table: reactions, c: r } = pgTableFor('reactions');
const { table: recordings, c: rec } = pgTableFor('recordings');
const { table: recordingAttachments, c: ra } = pgTableFor('recordingAttachments');
const { table: judgments, c: j } = pgTableFor('judgments');
const { table: mailOutbox, c: mo } = pgTableFor('mailOutbox');
const { table: userDataJobs, c: job } = pgTableFor('userDataJobs');

type CommentRow = Awaited<ReturnType<UserDataRepo['exportRows']>>['comments'][number];
type ReactionRow = Awaited<ReturnType<UserDataRepo['exportRows']>>['reactions'][number];
type RecordingRow = Awaited<ReturnType<UserDataRepo['exportRows']>>['recordings'][number];
type AnnotationRow = Awaited<ReturnType<UserDataRepo['annotations']>>[number];

/** `column` is one of the values: one array parameter, however many. */
const anyOf = (column: PgColumn, values: readonly string[]) => sql`${column} = ANY(${sql.param([...values])}::text[])`;

/** `at > t or (at = t and key > k)`: the rows after a position, in (at, key) order (text in code point order, as SQLite's BINARY). */
function after(at: PgColumn, key: SQL | PgColumn, from: readonly [number, string] | null): SQL | undefined {
  return from ? or(gt(at, from[0]), and(eq(at, from[0]), sql`${key} > ${from[1]}`)) : undefined;
}

/** A comment's position key, as SQLite's: its thread and number as text ('10' sorts before '9' on both). */
const commentKey = sql`(${cm.annotationId} || ':' || ${cm.id}::text)`;

async function exportRows(
  db: PgDb,
  apiKeyId: string,
  organizationId: string,
  userId: string,
  from: { comments: ExportFrom; reactions: ExportFrom; recordings: ExportFrom },
  limit: number,
) {
  const commentRows =
    from.comments === 'done'
      ? []
      : ((await db
          .select(cm)
          .from(comments)
          .where(
            and(eq(cm.apiKeyId, apiKeyId), eq(cm.organizationId, organizationId), eq(cm.fromUserId, userId), after(cm.createdAt, commentKey, from.comments)),
          )
          .orderBy(asc(cm.createdAt), asc(commentKey))
          .limit(limit)) as CommentRow[]);
  const reactionRows =
    from.reactions === 'done'
      ? []
      : ((await db
          .select(r)
          .from(reactions)
          .where(and(eq(r.apiKeyId, apiKeyId), eq(r.organizationId, organizationId), eq(r.fromUserId, userId), after(r.createdAt, r.id, from.reactions)))
          .orderBy(asc(r.createdAt), asc(r.id))
          .limit(limit)) as ReactionRow[]);
  const recordingRows =
    from.recordings === 'done'
      ? []
      : ((await db
          .select()
          .from(recordings)
          .where(
            and(eq(rec.apiKeyId, apiKeyId), eq(rec.organizationId, organizationId), eq(rec.fromUserId, userId), after(rec.createdAt, rec.id, from.recordings)),
          )
          .orderBy(asc(rec.createdAt), asc(rec.id))
          .limit(limit)) as RecordingRow[]);
  return { comments: commentRows, reactions: reactionRows, recordings: recordingRows };
}

/** SQLite's erase (../../repos/user-data.ts says what goes), statement by statement, in the caller's unit of work. */
async function erase(db: PgDb, erased: ErasureJob, rules: ErasureRules): Promise<string[]> {
  const { apiKeyId, userId } = erased;
  const files: string[] = [];
  const [profile] = (await db
    .select({ name: u.name, email: u.email })
    .from(users)
    .where(and(eq(u.apiKeyId, apiKeyId), eq(u.id, userId)))
    .limit(1)) as Array<{ name: string | null; email: string | null }>;
  const traces = new Set<string>([userId]);
  for (const value of [profile?.name, profile?.email]) if (value) traces.add(value);
  const seen = (rows: Array<{ user: StoredUser }>) => {
    for (const { user } of rows) for (const value of [user.name, user.email]) if (typeof value === 'string' && value) traces.add(value);
  };
  seen(
    (await db
      .select({ user: cm.fromUser })
      .from(comments)
      .where(and(eq(cm.apiKeyId, apiKeyId), eq(cm.fromUserId, userId)))) as Array<{ user: StoredUser }>,
  );
  seen(
    (await db
      .select({ user: act.actionUser })
      .from(activities)
      .where(and(eq(act.apiKeyId, apiKeyId), eq(act.actionUserId, userId)))) as Array<{ user: StoredUser }>,
  );

  await db.delete(users).where(and(eq(u.apiKeyId, apiKeyId), eq(u.id, userId)));
  await db.delete(memberships).where(and(eq(m.apiKeyId, apiKeyId), eq(m.userId, userId)));
  await db.delete(userGroupMembers).where(and(eq(gm.apiKeyId, apiKeyId), eq(gm.userId, userId)));
  await db.delete(notificationConfigs).where(and(eq(nc.apiKeyId, apiKeyId), eq(nc.userId, userId)));
  await db.delete(notificationRecipients).where(and(eq(nr.apiKeyId, apiKeyId), eq(nr.userId, userId)));
  await db.delete(reactions).where(and(eq(r.apiKeyId, apiKeyId), eq(r.fromUserId, userId)));
  // judgments: the user's own, and others' that quote the user's comments (as subject or reasoning)
  const written = (await db
    .select({ text: cm.text, html: cm.html })
    .from(comments)
    .where(and(eq(cm.apiKeyId, apiKeyId), eq(cm.fromUserId, userId)))) as Array<{ text: string | null; html: string | null }>;
  const quoted = [...new Set(written.map((c) => rules.plainText(c.text, c.html) ?? '').filter(Boolean))];
  await db.delete(judgments).where(and(eq(j.apiKeyId, apiKeyId), eq(j.reviewerId, userId)));
  // one array parameter, however many (SQLite's slices of 400 are its parameter limit's)
  if (quoted.length > 0) await db.delete(judgments).where(and(eq(j.apiKeyId, apiKeyId), or(anyOf(j.subject, quoted), anyOf(j.reasoning, quoted))));
  await db.delete(comments).where(and(eq(cm.apiKeyId, apiKeyId), eq(cm.fromUserId, userId)));
  const attachments = (await db
    .select({ key: ra.storageKey })
    .from(recordingAttachments)
    .innerJoin(recordings, and(eq(rec.apiKeyId, ra.apiKeyId), eq(rec.organizationId, ra.organizationId), eq(rec.id, ra.recordingId)))
    .where(and(eq(rec.apiKeyId, apiKeyId), eq(rec.fromUserId, userId)))) as Array<{ key: string }>;
  for (const attachment of attachments) files.push(attachment.key);
  await db.delete(recordings).where(and(eq(rec.apiKeyId, apiKeyId), eq(rec.fromUserId, userId)));
  // json_extract(assigned_to, '$.userId') is ->> here (text; the ids are text on both)
  await db
    .update(commentAnnotations)
    .set({ assignedTo: null } as never)
    .where(and(eq(ca.apiKeyId, apiKeyId), sql`${ca.assignedTo}->>'userId' = ${userId}`));
  await db
    .update(commentAnnotations)
    .set({ createdByUserId: '' } as never)
    .where(and(eq(ca.apiKeyId, apiKeyId), eq(ca.createdByUserId, userId)));

  for (const trace of traces) {
    // SQLite's instr on the column's text: json columns are read as the text they were written as (json keeps it)
    const contains = (column: PgColumn) => sql`strpos(${column}::text, ${trace}) > 0`;
    await db
      .delete(notifications)
      .where(and(eq(n.apiKeyId, apiKeyId), or(contains(n.actionUser), contains(n.headlineData), contains(n.body), contains(n.sourceData))));
    await db
      .delete(activities)
      .where(
        and(
          eq(act.apiKeyId, apiKeyId),
          or(eq(act.actionUserId, userId), contains(act.actionUser), contains(act.displayMessageTemplateData), contains(act.entityData), contains(act.changes)),
        ),
      );
    // the user in other people's comments (tagged, a recipient, in a kept list): drop those entries, keep the comment
    const mentioning = (await db
      .select(cm)
      .from(comments)
      .where(and(eq(cm.apiKeyId, apiKeyId), or(contains(cm.taggedUserContacts), contains(cm.mentionedUserIds), contains(cm.extra))))) as CommentRow[];
    const without = <T>(list: T[] | undefined) => list?.filter((entry) => !JSON.stringify(entry).includes(trace));
    for (const c of mentioning) {
      const contacts = without(c.taggedUserContacts ?? []);
      const extra: CommentExtra | null = c.extra && {
        ...c.extra,
        ...(c.extra.to && { to: without(c.extra.to) }),
        ...(c.extra.attachments && { attachments: without(c.extra.attachments) }),
        ...(c.extra.recorders && { recorders: without(c.extra.recorders) }),
        ...(c.extra.customList && { customList: without(c.extra.customList) }),
      };
      if (extra?.agent && JSON.stringify(extra.agent).includes(trace)) delete extra.agent;
      await db
        .update(comments)
        .set({ taggedUserContacts: contacts, mentionedUserIds: c.mentionedUserIds.filter((id) => id !== userId), extra } as never)
        .where(and(eq(cm.apiKeyId, apiKeyId), eq(cm.organizationId, c.organizationId), eq(cm.annotationId, c.annotationId), eq(cm.id, c.id)));
    }
    await db.delete(mailOutbox).where(and(eq(mo.apiKeyId, apiKeyId), eq(mo.toAddress, trace)));
    await db.delete(judgments).where(and(eq(j.apiKeyId, apiKeyId), or(contains(j.subject), contains(j.reasoning), contains(j.reviewerName))));
  }
  // SQLite merges its FTS5 segments here ('optimize'); judgments_search is an index of the table, whose deleted
  // entries no query can reach once the unit of work commits (VACUUM reclaims them: the operator's)
  // as SQLite's: kept only if still as its holder read it, else undone; the job stays in_progress (`complete`)
  const held = await db
    .update(userDataJobs)
    .set({ error: null } as never)
    .where(heldJob(erased))
    .returning({ id: job.id });
  if (held.length === 0) throw new LeaseLostError(`user-data erasure ${erased.id}`);
  return files;
}

/** As SQLite's: the erasure as its holder read it, lease_until still the value its claim set (a cluster's fence). */
const heldJob = (held: { id: string; leaseUntil: number | null }) =>
  and(eq(job.id, held.id), held.leaseUntil === null ? isNull(job.leaseUntil) : eq(job.leaseUntil, held.leaseUntil));

/** As SQLite's recover: erasures in_progress whose holder is gone (a crash, an expired lease) back to pending, or failed after `maxAttempts` (one statement; SQLite's loop). */
async function recoverJobs(db: PgDb, maxAttempts: number, heldBefore: number) {
  const failed = sql`${job.attempts} >= ${maxAttempts}`;
  await db
    .update(userDataJobs)
    .set({
      status: sql`CASE WHEN ${failed} THEN 'failed' ELSE 'pending' END`,
      error: sql`CASE WHEN ${failed} THEN ${`interrupted ${maxAttempts} times; not retried`} ELSE NULL END`,
      leaseUntil: null,
    } as never)
    .where(and(eq(job.status, 'in_progress'), or(isNull(job.leaseUntil), lt(job.leaseUntil, heldBefore))));
}

export function userDataRepoPg(engine: PgEngine): UserDataRepoPg {
  return {
    exportRows: (scope, organizationId, userId, from, limit) => engine.read((db) => exportRows(db, scope.apiKeyId, organizationId, userId, from, limit)),

    annotations: (scope, organizationId, ids) =>
      engine.read(async (db) =>
        ids.length
          ? ((await db
              .select()
              .from(commentAnnotations)
              .where(and(eq(ca.apiKeyId, scope.apiKeyId), eq(ca.organizationId, organizationId), anyOf(ca.id, ids)))) as AnnotationRow[])
          : [],
      ),

    insertJob: (scope, newJob) =>
      engine.write(async (db) => {
        await db.insert(userDataJobs).values({ ...newJob, apiKeyId: scope.apiKeyId } as never);
        return undefined;
      }),

    findJob: (scope, jobId) =>
      engine.read(
        async (db) =>
          (
            await db
              .select()
              .from(userDataJobs)
              .where(and(eq(job.id, jobId), eq(job.apiKeyId, scope.apiKeyId)))
              .limit(1)
          )[0] as ErasureJob | undefined,
      ),

    /** erase (above) as a unit of work of its own, or of the caller's: committed, the rows are gone (see the top). */
    erase: (scope, erased, rules) => engine.write((db) => erase(db, { ...erased, apiKeyId: scope.apiKeyId }, rules)),

    /**
     * As SQLite's: abandoned erasures recovered, then the oldest pending one taken, skipping rows another instance is
     * taking at the same moment (FOR UPDATE SKIP LOCKED); ties of `created_at` by id (SQLite's are in its index's
     * rowid order).
     */
    claimJob: (now, leaseUntil, maxAttempts) =>
      engine.write(async (db) => {
        await recoverJobs(db, maxAttempts, now);
        const next = db
          .select({ id: job.id })
          .from(userDataJobs)
          .where(eq(job.status, 'pending'))
          .orderBy(asc(job.createdAt), asc(job.id))
          .limit(1)
          .for('update', { skipLocked: true });
        const [taken] = await db
          .update(userDataJobs)
          .set({ status: 'in_progress', attempts: sql`${job.attempts} + 1`, leaseUntil } as never)
          .where(inArray(job.id, next))
          .returning();
        return taken as ErasureJob | undefined;
      }),

    complete: (id, now, leaseUntil) =>
      engine.write(async (db) => {
        const completed = await db
          .update(userDataJobs)
          .set({ status: 'completed', completedAt: now, error: null, leaseUntil: null } as never)
          .where(heldJob({ id, leaseUntil }))
          .returning({ id: job.id });
        return completed.length > 0;
      }),

    markFailed: (id, message, now, leaseUntil) =>
      engine.write(async (db) => {
        const failed = await db
          .update(userDataJobs)
          .set({ status: 'failed', error: message, completedAt: now, leaseUntil: null } as never)
          .where(heldJob({ id, leaseUntil }))
          .returning({ id: job.id });
        return failed.length > 0;
      }),

    recover: (maxAttempts, heldBefore) => engine.write((db) => recoverJobs(db, maxAttempts, heldBefore)),
  };
}
