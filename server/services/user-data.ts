import type { Storage } from '../db/repos/index.ts';
import { LeaseLostError } from '../db/repos/lease.ts';
import type { ErasureJob, ExportFrom } from '../db/repos/user-data.ts';
import type { TenantScope } from '../db/scope.ts';
import { notFound } from '../errors.ts';
import { randomAlphanumeric } from '../security/secrets.ts';
import type { AccessEvents } from './access-events.ts';
import { describeAnnotation, describeReaction, describeThreads } from './comment-presenters.ts';
import { JobFailure, MAX_ATTEMPTS, type JobQueue } from './jobs.ts';
import { commentPlainText } from './memory.ts';
import { getNotifications } from './notifications.ts';
import { describeRecording } from './recordings.ts';
import { describeUser, findUser } from './users.ts';
import { readPageToken } from './paging.ts';
import type { PageTokens } from '../db/pagination.ts';
import type { JobRunner } from './jobs.ts';

export type { ErasureJob };
export const PAGE_PER_FEATURE = 100;
const FEATURES = ['comments', 'reactions', 'recordings', 'notifications'] as const;
type Feature = (typeof FEATURES)[number];
/** Per feature: '' not started, '~' done, else the position `timestamp|key` after which the next page starts. */
type Positions = Record<Feature, string>;
const DONE = '~';
type Deps = { storage: Storage };

/** Where a feature's page starts, from its position in the page token. */
function exportFrom(position: string): ExportFrom {
  if (position === DONE) return 'done';
  if (!position) return null;
  const bar = position.indexOf('|');
  return [Number(position.slice(0, bar)), position.slice(bar + 1)];
}

/**
 * /v2/users/data/get: everything of one user in one organization: the profile, the comments the user wrote
 * (with their annotation), the user's reactions and recordings, and the notifications the user received.
 * At most 100 items per feature per page; `nextPageToken` until every feature is done.
 */
export async function exportUserData(
  deps: Deps & { pageTokens: PageTokens; publicUrl: string },
  scope: TenantScope,
  input: { organizationId: string; userId: string; pageToken?: string | null | undefined },
) {
  const query = { op: 'users/data/get', apiKeyId: scope.apiKeyId, organizationId: input.organizationId, userId: input.userId };
  let positions: Positions = { comments: '', reactions: '', recordings: '', notifications: '' };
  const cursor = readPageToken(
    deps,
    query,
    input.pageToken,
    FEATURES.map(() => 'string' as const),
  );
  if (cursor) positions = Object.fromEntries(FEATURES.map((f, i) => [f, cursor[i] as string])) as Positions;
  const { organizationId, userId } = input;
  const next: Positions = { ...positions };
  const take = <T>(feature: Feature, rows: T[], positionOf: (row: T) => string): T[] => {
    if (positions[feature] === DONE) return [];
    const page = rows.slice(0, PAGE_PER_FEATURE);
    next[feature] = rows.length > PAGE_PER_FEATURE ? positionOf(page[page.length - 1] as T) : DONE;
    return page;
  };

  const rows = await deps.storage.userData.exportRows(
    scope,
    organizationId,
    userId,
    { comments: exportFrom(positions.comments), reactions: exportFrom(positions.reactions), recordings: exportFrom(positions.recordings) },
    PAGE_PER_FEATURE + 1,
  );
  const commentPage = take('comments', rows.comments, (r) => `${r.createdAt}|${r.annotationId}:${r.id}`);
  const annotations = await deps.storage.userData.annotations(scope, organizationId, [...new Set(commentPage.map((c) => c.annotationId))]);
  const threads = describeThreads(
    await deps.storage.comments.threads(
      scope,
      organizationId,
      annotations.map((a) => a.id),
    ),
  );
  const annotationById = new Map(annotations.map((a) => [a.id, describeAnnotation(a, [])]));
  const exportedComments = commentPage.map((c) => {
    const { comments: _all, ...annotation } = annotationById.get(c.annotationId) ?? { comments: [] };
    return { annotation, comment: threads.get(c.annotationId)?.find((x) => x.commentId === c.id) ?? null };
  });
  const reactionPage = take('reactions', rows.reactions, (r) => `${r.createdAt}|${r.id}`);
  const recordingPage = take('recordings', rows.recordings, (r) => `${r.createdAt}|${r.id}`);
  const files = await deps.storage.recordings.attachments(
    scope,
    organizationId,
    recordingPage.map((r) => r.id),
  );

  let notificationPage: Awaited<ReturnType<typeof getNotifications>>['items'] = [];
  if (positions.notifications !== DONE) {
    // the recipient index, oldest first; the position is the inner page token of notifications get
    const page = await getNotifications(deps, scope, {
      organizationId,
      userId,
      order: 'asc',
      pageSize: PAGE_PER_FEATURE,
      pageToken: positions.notifications || undefined,
    });
    notificationPage = page.items;
    next.notifications = page.pageToken ?? DONE;
  }

  const finished = FEATURES.every((f) => next[f] === DONE);
  const profile = await findUser(deps, scope, userId);
  return {
    data: {
      profile: profile ? describeUser(profile) : null,
      comments: exportedComments,
      reactions: reactionPage.map(describeReaction),
      recordings: recordingPage.map((r) => describeRecording(deps, r, files.get(r.id) ?? [])),
      notifications: notificationPage,
    },
    nextPageToken: finished
      ? null
      : deps.pageTokens.encode(
          query,
          FEATURES.map((f) => next[f]),
        ),
  };
}

/** /v2/users/data/delete: queues the erasure of a user's personal data across the API key. */
export async function startErasure(deps: Deps & { jobs: Pick<JobRunner, 'wake'> }, scope: TenantScope, userId: string): Promise<ErasureJob> {
  const job = {
    id: `del_${randomAlphanumeric(20)}`,
    userId,
    status: 'pending' as const,
    error: null,
    attempts: 0,
    createdAt: Date.now(),
    completedAt: null,
    leaseUntil: null,
  };
  await deps.storage.userData.insertJob(scope, job);
  deps.jobs.wake();
  return { ...job, apiKeyId: scope.apiKeyId };
}

export async function erasureStatus(deps: Deps, scope: TenantScope, jobId: string) {
  const job = await deps.storage.userData.findJob(scope, jobId);
  if (!job) throw notFound('Deletion job not found.');
  return { jobId: job.id, userId: job.userId, status: job.status, error: job.error, createdAt: job.createdAt, completedAt: job.completedAt };
}

/** What an erasure needs of the comment services: a comment as plain text (judgments quoting it go with it). */
const ERASURE_RULES = { plainText: commentPlainText };

/** What the erasure queue works with: storage (the recordings' bytes included) and who to tell of lost access. */
type ErasureDeps = Deps & { accessEvents: AccessEvents };

/**
 * Erases one user's personal data in one unit of work (db/repos/user-data.ts says what goes), then removes the
 * bytes of the user's recordings (the attachment store's: files on SQLite, rows on PostgreSQL). SQLite runs with
 * secure_delete, and the WAL is checkpointed after, so the freed pages keep no copy. Only then is the job
 * completed: a client that sees `completed` finds no trace left on disk.
 * A holder whose lease was taken over meanwhile is refused (LeaseLostError); what it erased stays erased, and the
 * new holder's run finds nothing more to erase.
 */
async function erase(deps: ErasureDeps, job: ErasureJob) {
  const scope = await deps.storage.keys.scopeFor(job.apiKeyId);
  if (!scope) throw new JobFailure(`the API key ${job.apiKeyId} no longer exists`);
  const files = await deps.storage.userData.erase(scope, job, ERASURE_RULES);
  // the user's memberships are gone: so is their access
  deps.accessEvents.publish({ apiKeyId: job.apiKeyId, userIds: [job.userId] });
  // through the store: files of the data dir on SQLite, rows of attachment_blobs on PostgreSQL
  await deps.storage.attachments.remove(files);
  await deps.storage.userData.checkpoint();
  if (!(await deps.storage.userData.complete(job.id, Date.now(), job.leaseUntil))) throw new LeaseLostError(`user-data erasure ${job.id}`);
}

/** The erasure jobs, for the job runner (services/jobs.ts). */
export function erasureQueue(deps: ErasureDeps): JobQueue<ErasureJob> {
  const { userData } = deps.storage;
  return {
    name: 'user-data erasure',
    claim: (now, leaseUntil) => userData.claimJob(now, leaseUntil, MAX_ATTEMPTS),
    run: (job) => erase(deps, job),
    markFailed: (job, message) => userData.markFailed(job.id, message, Date.now(), job.leaseUntil),
    recover: (heldBefore) => userData.recover(MAX_ATTEMPTS, heldBefore),
  };
}
