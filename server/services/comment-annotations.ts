import { currentTime } from '../clock.ts';
import { randomAlphanumeric } from '../security/secrets.ts';
import type { z } from 'zod';
import type { WebhookEventType } from '../../shared/schemas/webhooks.ts';
import type { annotationInput, annotationsAddInput, annotationsGetInput, annotationsUpdateInput, commentInput } from '../../shared/schemas/comments.ts';
import type { PageTokens } from '../db/pagination.ts';
import { paginate } from '../db/pagination.ts';
import type { AnnotationRow, AnnotationSelection, CommentRow, ReactionRow, StoredUser, ThreadRewrite } from '../db/repos/comments.ts';
import type { Storage } from '../db/repos/index.ts';
import type { TenantScope } from '../db/scope.ts';
import { ApiError, failedPrecondition, invalid, notFound } from '../errors.ts';
import { createAccessResolver } from './access.ts';
import { recordActivity } from './activities.ts';
import { emitCommentEvent } from './comment-events.ts';
import { commentTimes, describeAnnotation, describeThreads, label, mentionedIds, userOf, visibleTo } from './comment-presenters.ts';
import { insertComments, type CommentDeps } from './comment-threads.ts';
import { insertDocument } from './documents.ts';
import { ROOT as ROOT_FOLDER } from './folders.ts';
import { keyed } from './keyed.ts';
import { recordJudgment, statusDecision, threadTexts } from './memory.ts';
import { ensureOrganization } from './organizations.ts';
import { readPageToken } from './paging.ts';
import type { ApiKeyRow } from './types.ts';

/** Comment annotations (threads): /v2/commentannotations/add, get, update, delete, count/get and read/update. */

type CommentInput = z.output<typeof commentInput>;
type Outcomes = Record<string, { success: boolean; message: string }>;
type Deps = { storage: Storage };

const DEFAULT_STATUS = { id: 'OPEN', name: 'Open', type: 'default' };

/** The filters as the repository takes them: the folder `root` is the organization's top (documents in no folder). */
const selectionOf = <T extends Omit<AnnotationSelection, 'folderId'> & { folderId?: string | undefined }>(input: T): AnnotationSelection => ({
  ...input,
  folderId: input.folderId === ROOT_FOLDER ? null : input.folderId,
});

/**
 * /v2/commentannotations/add. Private (restricted) annotations need the key's `enablePrivateComments`.
 * With `verifyUserPermissions`, an author without access to the document fails the whole call
 * (PERMISSION_DENIED with the per-annotation breakdown in `details`).
 */
/**
 * `authorAccess`: whether each author may open the document, as a permission provider decided it (the provider mode,
 * services/permission-provider.ts); without it, `verifyUserPermissions` asks Hearth's own rules.
 */
export async function addAnnotations(
  deps: CommentDeps,
  scope: TenantScope,
  apiKey: ApiKeyRow,
  input: z.output<typeof annotationsAddInput>,
  authorAccess?: ReadonlyMap<string, boolean>,
) {
  const privateOnes = input.commentAnnotations.filter((a) => a.visibility?.type === 'restricted');
  if (privateOnes.length > 0 && !apiKey.settings.enablePrivateComments) {
    throw failedPrecondition('Private comments are disabled for this API key: enable enablePrivateComments with /v2/workspace/apikeyconfig/update.');
  }
  const given = input.commentAnnotations.map((a) => a.annotationId);
  given.forEach((annotationId, i) => {
    if (annotationId !== undefined && given.indexOf(annotationId) < i)
      throw invalid(`commentAnnotations[${i}].annotationId repeats an earlier annotation: ${annotationId}.`);
  });
  const mails = { count: 0 };
  const { storage } = deps;
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the organization's and the document's inserts and a
  // caller's annotationId are taken by their conflict clauses (a second add of the id waits for the first's commit
  // and answers "already exists"), the document is held (`documents.hold`: a delete of it and this add exclude each
  // other; annotations have no foreign key on their document), and the comments are comments/add's (a thread no
  // other unit sees before this one commits).
  const out = await storage.transaction(
    async () => {
      await ensureOrganization(deps, scope, input.organizationId, input.createOrganization ?? false);
      const missing = () => notFound(`Document does not exist: ${input.documentId}. Pass createDocument: true to create it.`);
      if (!(await storage.documents.hold(scope, input.organizationId, input.documentId))) {
        if (!input.createDocument) throw missing();
        await insertDocument(deps, scope, apiKey, input.organizationId, { documentId: input.documentId });
        // made by this unit, or by another add since the hold found none: held as well (gone again: not there)
        if (!(await storage.documents.hold(scope, input.organizationId, input.documentId))) throw missing();
      }
      if (input.verifyUserPermissions) {
        // every author's access in one step
        const deniedBy = (mayOpen: (userId: string) => boolean) =>
          input.commentAnnotations.map((a, i) => ({ index: i, authors: a.commentData.map((c) => c.from.userId).filter((u) => !mayOpen(u)) }));
        const denied = authorAccess
          ? deniedBy((u) => authorAccess.get(u) === true)
          : await createAccessResolver(deps, scope, input.organizationId).batch((access) => deniedBy((u) => access.document(u, input.documentId).access));
        if (denied.some((d) => d.authors.length > 0)) {
          throw new ApiError(
            'PERMISSION_DENIED',
            'Some comment authors have no access to the document.',
            denied.filter((d) => d.authors.length > 0).map((d) => ({ annotationIndex: d.index, usersWithoutAccess: d.authors })),
          );
        }
      }
      const result: Record<string, { success: boolean; annotationId: string; commentIds: number[]; message: string }> = keyed();
      for (const item of input.commentAnnotations) {
        const annotation = await insertAnnotation(deps, scope, input.organizationId, input.documentId, item);
        if (!annotation) {
          result[item.annotationId as string] = {
            success: false,
            annotationId: item.annotationId as string,
            commentIds: [],
            message: 'Annotation already exists.',
          };
          continue;
        }
        const commentIds = await insertComments({ deps, scope, apiKey, annotation, mails }, item.commentData, { newThread: true });
        await emitCommentEvent(deps, scope, {
          organizationId: input.organizationId,
          annotationId: annotation.id,
          type: 'comment_annotation.add',
          actionUser: userOf(item.commentData[0]?.from ?? { userId: annotation.createdByUserId }),
          ...(commentIds[0] === undefined ? {} : { commentId: commentIds[0] }),
        });
        result[annotation.id] = { success: true, annotationId: annotation.id, commentIds, message: 'Added Successfully' };
      }
      return result;
    },
    // a mention's notification is added after the document is held (docs/storage.md, "Fences")
    { rowLevel: true, addsToDocumentsOf: { scope, organizationId: input.organizationId } },
  );
  if (mails.count > 0) deps.mail.flush();
  return out;
}

/** Adds the annotation of `item` (without its comments); null when its given id is taken. */
async function insertAnnotation(
  deps: Deps,
  scope: TenantScope,
  organizationId: string,
  documentId: string,
  item: z.output<typeof annotationInput>,
): Promise<AnnotationRow | null> {
  const id = item.annotationId ?? randomAlphanumeric(20);
  const status = item.status ?? DEFAULT_STATUS;
  // the thread's times: its first comment's creation and its latest edit (as given when older comments are imported)
  const now = currentTime();
  const times = item.commentData.map((c: CommentInput) => commentTimes(c, now));
  const row: Omit<AnnotationRow, 'apiKeyId'> = {
    organizationId,
    id,
    documentId,
    locationId: item.location?.id ?? null,
    location: item.location ?? null,
    targetElement: item.targetElement ?? null,
    status,
    statusId: status.id,
    priority: item.priority ?? null,
    assignedTo: item.assignedTo ? userOf(item.assignedTo) : null,
    context: item.context ?? null,
    visibility: item.visibility?.type ?? 'public',
    visibleToUserIds: item.visibility?.userIds ?? null,
    commentType: item.commentType ?? null,
    suggestion: item.suggestion ?? null,
    createdByUserId: item.commentData[0]?.from.userId as string,
    resolvedByUserId: null,
    createdAt: times[0]?.createdAt ?? now,
    updatedAt: Math.max(...times.map((t) => t.updatedAt)),
  };
  if (!(await deps.storage.comments.insertAnnotation(scope, row, !!item.annotationId))) return null;
  return { ...row, apiKeyId: scope.apiKeyId };
}

/** /v2/commentannotations/get: every filter combined; newest first unless asc; keyset on (createdAt, id). */
export async function getAnnotations(deps: Deps & { pageTokens: PageTokens }, scope: TenantScope, input: z.output<typeof annotationsGetInput>) {
  const { pageToken, pageSize, ...filters } = input;
  const query = { op: 'commentannotations/get', apiKeyId: scope.apiKeyId, ...filters };
  const cursor = readPageToken(deps, query, pageToken, ['number', 'string']);
  const { rows, threads } = await deps.storage.comments.annotationsWithThreads(scope, selectionOf(input), pageSize + 1, cursor, pageSize);
  const page = paginate(rows, pageSize, (row) => [row.createdAt, row.id], deps.pageTokens, query);
  const data = describeThreads(threads);
  return { items: page.items.map((row) => describeAnnotation(row, data.get(row.id) ?? [])), pageToken: page.pageToken };
}

/** How many annotations one update may change; wider filters are refused (the call is one transaction). */
export const ANNOTATION_UPDATE_LIMIT = 1000;

/**
 * /v2/commentannotations/update: the annotations the filters select (annotationIds among them; an id selected by
 * none answers `Annotation not found.`) get `updatedData` (status, priority, assignment, location, context,
 * visibility, resolution) and `updateUsers` (one user put in another's place); per annotation.
 */
export async function updateAnnotations(deps: Deps, scope: TenantScope, apiKey: ApiKeyRow, input: z.output<typeof annotationsUpdateInput>): Promise<Outcomes> {
  const data = input.updatedData ?? {};
  const changes = Object.values(data).some((v) => v !== undefined);
  if (input.updatedData !== undefined && !changes && !input.updateUsers) throw invalid('updatedData must change at least one field.');
  if (!changes && !input.updateUsers) throw invalid('updatedData or updateUsers is required.');
  if (data.visibility?.type === 'restricted' && !apiKey.settings.enablePrivateComments) {
    throw failedPrecondition('Private comments are disabled for this API key: enable enablePrivateComments with /v2/workspace/apikeyconfig/update.');
  }
  const replacements = new Map<string, StoredUser>();
  for (const [i, { oldUser, newUser }] of (input.updateUsers ?? []).entries()) {
    if (replacements.has(oldUser.userId)) throw invalid(`updateUsers[${i}].oldUser names a user an earlier entry replaces: ${oldUser.userId}.`);
    replacements.set(oldUser.userId, userOf(newUser));
  }
  // Row level on PostgreSQL for updatedData (docs/storage.md, "Invariants"): the selection read, its annotations' key
  // locks taken (a delete's, another update's), then the selection read again and kept to the locked ones, so that
  // of two updates at once the second sees what the first changed; the thread's last update moved only forward
  // (`touchAnnotation`, as comments/add moves it). SERIALIZABLE, an update of a thread that took replies without
  // pause was refused at each reply and answered 500. updateUsers stays SERIALIZABLE: it rewrites a thread's
  // reactions and read marks whole, and would drop one added between its read and its write
  const rowLevel = replacements.size === 0;
  return deps.storage.transaction(
    async () => {
      const selection = selectionOf({ ...input, order: 'asc' as const });
      let rows = await deps.storage.comments.annotations(scope, selection, ANNOTATION_UPDATE_LIMIT + 1);
      if (rows.length > ANNOTATION_UPDATE_LIMIT)
        throw invalid(`The filters select more than ${ANNOTATION_UPDATE_LIMIT} annotations: narrow them (annotationIds, documentIds, …).`);
      if (rowLevel && rows.length > 0) {
        const locked = new Set(rows.map((row) => row.id));
        await deps.storage.comments.lockAnnotations(scope, input.organizationId, [...locked]);
        rows = (await deps.storage.comments.annotations(scope, selection, ANNOTATION_UPDATE_LIMIT + 1)).filter((row) => locked.has(row.id));
      }
      const out: Outcomes = keyed();
      for (const annotationId of input.annotationIds ?? []) out[annotationId] = { success: false, message: 'Annotation not found.' };
      for (const row of rows) {
        if (changes) await applyUpdatedData(deps, scope, input, row, data);
        // after updatedData, so that no replaced user stays behind in what it set
        if (replacements.size > 0) await replaceUsers(deps, scope, row, replacements);
        out[row.id] = { success: true, message: 'Updated Successfully' };
      }
      return out;
    },
    { rowLevel },
  );
}

/**
 * updateUsers on one annotation: each old user's place (author of the thread and of comments, assignee, resolver,
 * a named reader of a private thread, a tagged contact or mention, a comment's recipient, a reaction's author, a
 * read mark) goes to the new user. Replacements apply at once: a → b and b → c move a's to b and b's to c. The
 * notifications, activities and judgments already recorded stay as they were.
 */
async function replaceUsers(deps: Deps, scope: TenantScope, selected: AnnotationRow, replacements: ReadonlyMap<string, StoredUser>) {
  const swap = (userId: string) => replacements.get(userId);
  const thread = await deps.storage.comments.threadForRewrite(scope, selected.organizationId, selected.id);
  // as updatedData left it
  const row = thread.annotation ?? selected;
  const set: Partial<AnnotationRow> = {};
  const creator = swap(row.createdByUserId);
  if (creator) set.createdByUserId = creator.userId;
  const assignee = row.assignedTo && swap(row.assignedTo.userId);
  if (assignee) set.assignedTo = assignee;
  const resolver = row.resolvedByUserId && swap(row.resolvedByUserId);
  if (resolver) set.resolvedByUserId = resolver.userId;
  if (row.visibleToUserIds?.some((u) => replacements.has(u))) set.visibleToUserIds = [...new Set(row.visibleToUserIds.map((u) => swap(u)?.userId ?? u))];
  const rewrite: ThreadRewrite = { comments: [] };
  for (const c of thread.comments) {
    const change: Partial<CommentRow> = {};
    const author = swap(c.fromUserId);
    if (author) Object.assign(change, { fromUser: author, fromUserId: author.userId });
    const contacts = c.taggedUserContacts as CommentInput['taggedUserContacts'] | null;
    if (contacts?.some((t) => (t.userId !== undefined && replacements.has(t.userId)) || (t.contact && replacements.has(t.contact.userId)))) {
      const replaced = contacts.map((t) => ({
        ...t,
        ...(t.userId !== undefined && replacements.has(t.userId) ? { userId: swap(t.userId)?.userId } : {}),
        ...(t.contact && replacements.has(t.contact.userId) ? { contact: swap(t.contact.userId) } : {}),
      })) as NonNullable<CommentInput['taggedUserContacts']>;
      Object.assign(change, { taggedUserContacts: replaced, mentionedUserIds: mentionedIds(replaced) });
    }
    if (c.extra?.to?.some((u) => replacements.has(u.userId))) change.extra = { ...c.extra, to: c.extra.to.map((u) => swap(u.userId) ?? u) };
    if (Object.keys(change).length > 0) rewrite.comments.push({ id: c.id, change });
  }
  // reactions and read marks are once per user: where the new user has one too, the earlier reaction and the later
  // read mark stay. Rewritten as a whole so that chains (a → b, b → c) and such meetings come out the same.
  if (thread.reactions.some((r) => replacements.has(r.fromUserId))) {
    const seen = new Set<string>();
    const kept: ReactionRow[] = [];
    for (const r of thread.reactions) {
      const user = swap(r.fromUserId) ?? r.fromUser;
      const once = `${r.commentId}\u0000${r.icon}\u0000${user.userId}`;
      if (seen.has(once)) continue;
      seen.add(once);
      kept.push({ ...r, fromUser: user, fromUserId: user.userId });
    }
    rewrite.reactions = kept;
  }
  if (thread.reads.some((m) => replacements.has(m.userId))) {
    const readAt = new Map<string, number>();
    for (const m of thread.reads) {
      const userId = swap(m.userId)?.userId ?? m.userId;
      readAt.set(userId, Math.max(readAt.get(userId) ?? 0, m.readAt));
    }
    rewrite.reads = readAt;
  }
  const changed = rewrite.comments.length > 0 || rewrite.reactions !== undefined || rewrite.reads !== undefined;
  if (changed || Object.keys(set).length > 0) rewrite.annotation = { ...set, updatedAt: currentTime() };
  if (changed || rewrite.annotation) await deps.storage.comments.rewriteThread(scope, row.organizationId, row.id, rewrite);
}

/** updatedData on one annotation, with the events, activities and judgments its changes make. */
async function applyUpdatedData(
  deps: Deps,
  scope: TenantScope,
  input: z.output<typeof annotationsUpdateInput>,
  row: AnnotationRow,
  data: NonNullable<z.output<typeof annotationsUpdateInput>['updatedData']>,
) {
  const annotationId = row.id;
  const set: Partial<AnnotationRow> = {};
  if (data.status) Object.assign(set, { status: data.status, statusId: data.status.id });
  if (data.priority !== undefined) set.priority = data.priority;
  if (data.assignedTo !== undefined) set.assignedTo = data.assignedTo ? userOf(data.assignedTo) : null;
  if (data.context) set.context = data.context;
  if (data.location) Object.assign(set, { location: data.location, locationId: data.location.id });
  if (data.visibility) Object.assign(set, { visibility: data.visibility.type, visibleToUserIds: data.visibility.userIds ?? null });
  if (data.resolvedByUserId !== undefined) set.resolvedByUserId = data.resolvedByUserId;
  await deps.storage.comments.updateAnnotation(scope, input.organizationId, annotationId, set);
  // forward only: a reply committed meanwhile may carry a later time
  await deps.storage.comments.touchAnnotation(scope, input.organizationId, annotationId, currentTime());
  const actionUser = input.actionUser ? userOf(input.actionUser) : { userId: row.createdByUserId };
  const event = (type: WebhookEventType, extra: Record<string, unknown>) =>
    emitCommentEvent(deps, scope, { organizationId: input.organizationId, annotationId, type, actionUser, extra });
  const statusChanged = data.status !== undefined && data.status.id !== row.statusId;
  if (data.status && statusChanged) await event('comment_annotation.status_change', { oldStatus: row.status, newStatus: data.status });
  const decision = data.status && statusChanged ? statusDecision(data.status.id) : null;
  if (decision) {
    const texts = await threadTexts(deps, scope, input.organizationId, annotationId);
    await recordJudgment(deps, scope, {
      organizationId: input.organizationId,
      documentId: row.documentId,
      decision,
      reviewer: actionUser,
      subject: texts.subject,
      reasoning: texts.comment,
      source: 'annotation_status',
      sourceId: annotationId,
    });
  }
  if (data.priority !== undefined && JSON.stringify(data.priority) !== JSON.stringify(row.priority))
    await event('comment_annotation.priority_change', { newPriority: data.priority });
  if (data.assignedTo && data.assignedTo.userId !== row.assignedTo?.userId) await event('comment_annotation.assign', { assigned: userOf(data.assignedTo) });
  if (data.status && statusChanged) {
    await recordActivity(deps, scope, {
      organizationId: input.organizationId,
      documentId: row.documentId,
      featureType: 'comment',
      actionType: 'comment.statusChange',
      actionUser,
      targetEntityId: annotationId,
      changes: { status: { from: row.statusId, to: data.status.id } },
      displayMessageTemplate: '{{actionUser}} changed the status to {{status}}',
      displayMessageTemplateData: { actionUser: label(actionUser), status: data.status.name ?? data.status.id },
    });
  }
  if (data.assignedTo && data.assignedTo.userId !== row.assignedTo?.userId) {
    await recordActivity(deps, scope, {
      organizationId: input.organizationId,
      documentId: row.documentId,
      featureType: 'comment',
      actionType: 'comment.assign',
      actionUser,
      targetEntityId: annotationId,
      changes: { assignedTo: { from: row.assignedTo?.userId ?? null, to: data.assignedTo.userId } },
      displayMessageTemplate: '{{actionUser}} assigned the comment to {{assignee}}',
      displayMessageTemplateData: { actionUser: label(actionUser), assignee: label(userOf(data.assignedTo)) },
    });
  }
}

export async function deleteAnnotations(
  deps: Deps,
  scope: TenantScope,
  input: { organizationId: string; annotationIds: string[]; actionUser?: StoredUser | undefined },
): Promise<Outcomes> {
  const { storage } = deps;
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): each annotation is read under its key lock, so that of two
  // deletes of it one finds it (one event, one activity) and the other waits, then answers not found.
  return storage.transaction(
    async () => {
      await storage.comments.lockAnnotations(scope, input.organizationId, input.annotationIds);
      const out: Outcomes = keyed();
      for (const annotationId of new Set(input.annotationIds)) {
        const row = await storage.comments.findAnnotation(scope, input.organizationId, annotationId);
        if (!row) {
          out[annotationId] = { success: false, message: 'Annotation not found.' };
          continue;
        }
        const actionUser = input.actionUser ? userOf(input.actionUser) : { userId: row.createdByUserId };
        await emitCommentEvent(deps, scope, { organizationId: input.organizationId, annotationId, type: 'comment_annotation.delete', actionUser });
        await storage.comments.deleteAnnotation(scope, input.organizationId, annotationId);
        await recordActivity(deps, scope, {
          organizationId: input.organizationId,
          documentId: row.documentId,
          featureType: 'comment',
          actionType: 'comment.deleteAnnotation',
          actionUser,
          targetEntityId: annotationId,
          displayMessageTemplate: '{{actionUser}} deleted a comment thread',
          displayMessageTemplateData: { actionUser: label(actionUser) },
        });
        out[annotationId] = { success: true, message: 'Deleted Successfully' };
      }
      return out;
    },
    { rowLevel: true },
  );
}

/**
 * /v2/commentannotations/count/get: per document, the annotations the user can see (`total`) and those with a
 * comment by someone else newer than the user's last read (`unread`).
 */
export async function countAnnotations(
  deps: Deps,
  scope: TenantScope,
  input: { organizationId: string; documentIds: string[]; userId: string; statusIds?: string[] | undefined },
) {
  const { rows, readAt, latestByOthers } = await deps.storage.comments.readState(scope, input, (row) => visibleTo(row, input.userId));
  const out: Record<string, { total: number; unread: number }> = Object.fromEntries(input.documentIds.map((d) => [d, { total: 0, unread: 0 }]));
  for (const row of rows) {
    const counts = out[row.documentId] as { total: number; unread: number };
    counts.total++;
    const latest = latestByOthers.get(row.id);
    if (latest !== undefined && latest > (readAt.get(row.id) ?? 0)) counts.unread++;
  }
  return out;
}

export async function markAnnotationsRead(
  deps: Deps,
  scope: TenantScope,
  input: { organizationId: string; annotationIds: string[]; userId: string },
): Promise<Outcomes> {
  const annotationIds = new Set(input.annotationIds);
  const found = await deps.storage.comments.markRead(scope, input.organizationId, annotationIds, input.userId, currentTime());
  const out: Outcomes = keyed();
  for (const annotationId of annotationIds)
    out[annotationId] = found.has(annotationId) ? { success: true, message: 'Marked as read.' } : { success: false, message: 'Annotation not found.' };
  return out;
}
