// What a document's deletion clears and a document migration moves, for every table that holds data per document:
// one explicit list (db/tenancy.ts says, table by table, what happens to each; a test holds the schema to it).
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import {
  activities,
  commentAnnotations,
  crdtDocuments,
  crdtUpdates,
  memberships,
  notificationConfigs,
  notificationRecipients,
  notifications,
  recordings,
} from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

/** Documents are deleted in slices of this many ids: SQLite's bound-parameter limit stays far. */
const SLICE = 500;

/**
 * Deletes the data of these documents of the key's organization, in the caller's transaction: memberships on them,
 * notifications (their recipients by cascade) and notification settings, activities, comment threads (comments,
 * reads and reactions by cascade), recordings (attachments by cascade; their files go at the next start) and the
 * collaborative content (its update log by cascade).
 */
export function deleteDocumentsData(db: Db, apiKeyId: string, organizationId: string, documentIds: readonly string[]) {
  for (let i = 0; i < documentIds.length; i += SLICE) {
    const ids = documentIds.slice(i, i + SLICE);
    db.delete(memberships)
      .where(
        and(
          eq(memberships.apiKeyId, apiKeyId),
          eq(memberships.organizationId, organizationId),
          eq(memberships.level, 'document'),
          inArray(memberships.resourceId, ids),
        ),
      )
      .run();
    db.delete(notifications)
      .where(and(eq(notifications.apiKeyId, apiKeyId), eq(notifications.organizationId, organizationId), inArray(notifications.documentId, ids)))
      .run();
    db.delete(notificationConfigs)
      .where(
        and(eq(notificationConfigs.apiKeyId, apiKeyId), eq(notificationConfigs.organizationId, organizationId), inArray(notificationConfigs.documentId, ids)),
      )
      .run();
    db.delete(activities)
      .where(and(eq(activities.apiKeyId, apiKeyId), eq(activities.organizationId, organizationId), inArray(activities.documentId, ids)))
      .run();
    db.delete(commentAnnotations)
      .where(and(eq(commentAnnotations.apiKeyId, apiKeyId), eq(commentAnnotations.organizationId, organizationId), inArray(commentAnnotations.documentId, ids)))
      .run();
    db.delete(recordings)
      .where(and(eq(recordings.apiKeyId, apiKeyId), eq(recordings.organizationId, organizationId), inArray(recordings.documentId, ids)))
      .run();
    db.delete(crdtDocuments)
      .where(and(eq(crdtDocuments.apiKeyId, apiKeyId), eq(crdtDocuments.organizationId, organizationId), inArray(crdtDocuments.documentId, ids)))
      .run();
  }
}

/** Moves the same data from one document id to another, in the caller's transaction (a document migration). */
export function moveDocumentData(db: Db, apiKeyId: string, organizationId: string, fromDocumentId: string, toDocumentId: string) {
  const to = { documentId: toDocumentId };
  db.update(memberships)
    .set({ resourceId: toDocumentId })
    .where(
      and(
        eq(memberships.apiKeyId, apiKeyId),
        eq(memberships.organizationId, organizationId),
        eq(memberships.level, 'document'),
        eq(memberships.resourceId, fromDocumentId),
      ),
    )
    .run();
  db.update(notifications)
    .set(to)
    .where(and(eq(notifications.apiKeyId, apiKeyId), eq(notifications.organizationId, organizationId), eq(notifications.documentId, fromDocumentId)))
    .run();
  db.update(notificationRecipients)
    .set(to)
    .where(
      and(
        eq(notificationRecipients.apiKeyId, apiKeyId),
        eq(notificationRecipients.organizationId, organizationId),
        eq(notificationRecipients.documentId, fromDocumentId),
      ),
    )
    .run();
  db.update(notificationConfigs)
    .set(to)
    .where(
      and(
        eq(notificationConfigs.apiKeyId, apiKeyId),
        eq(notificationConfigs.organizationId, organizationId),
        eq(notificationConfigs.documentId, fromDocumentId),
      ),
    )
    .run();
  db.update(activities)
    .set(to)
    .where(and(eq(activities.apiKeyId, apiKeyId), eq(activities.organizationId, organizationId), eq(activities.documentId, fromDocumentId)))
    .run();
  db.update(commentAnnotations)
    .set(to)
    .where(
      and(eq(commentAnnotations.apiKeyId, apiKeyId), eq(commentAnnotations.organizationId, organizationId), eq(commentAnnotations.documentId, fromDocumentId)),
    )
    .run();
  db.update(recordings)
    .set(to)
    .where(and(eq(recordings.apiKeyId, apiKeyId), eq(recordings.organizationId, organizationId), eq(recordings.documentId, fromDocumentId)))
    .run();
  // collaborative content: new parent rows first, then the update log, then the old parents (the foreign keys hold at every step)
  db.run(sql`INSERT INTO crdt_documents (api_key_id, organization_id, document_id, editor_id, type, content_key, infer, snapshot, update_count, last_updated_by, compacted_at, created_at, updated_at)
    SELECT api_key_id, organization_id, ${toDocumentId}, editor_id, type, content_key, infer, snapshot, update_count, last_updated_by, compacted_at, created_at, updated_at
    FROM crdt_documents WHERE api_key_id = ${apiKeyId} AND organization_id = ${organizationId} AND document_id = ${fromDocumentId}`);
  db.update(crdtUpdates)
    .set(to)
    .where(and(eq(crdtUpdates.apiKeyId, apiKeyId), eq(crdtUpdates.organizationId, organizationId), eq(crdtUpdates.documentId, fromDocumentId)))
    .run();
  db.delete(crdtDocuments)
    .where(and(eq(crdtDocuments.apiKeyId, apiKeyId), eq(crdtDocuments.organizationId, organizationId), eq(crdtDocuments.documentId, fromDocumentId)))
    .run();
}

export function documentDataRepo(engine: SqliteEngine) {
  return {
    delete: (scope: TenantScope, organizationId: string, documentIds: readonly string[]) =>
      engine.write((db) => deleteDocumentsData(db, scope.apiKeyId, organizationId, documentIds)),
    move: (scope: TenantScope, organizationId: string, fromDocumentId: string, toDocumentId: string) =>
      engine.write((db) => moveDocumentData(db, scope.apiKeyId, organizationId, fromDocumentId, toDocumentId)),
  };
}
