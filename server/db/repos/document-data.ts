// What a document's deletion clears and a document migration moves, for every table that holds data per document:
// one explicit list (db/tenancy.ts says, table by table, what happens to each; a test holds the schema to it).
// Written once for both engines (engine.ts; test/pg/document-data.test.ts runs both on the same data and compares
// every table).
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Engine, Q } from '../engine.ts';
import type { TenantScope } from '../scope.ts';

/** Documents are deleted in slices of this many ids: SQLite's bound-parameter limit (and PostgreSQL's) stays far. */
const SLICE = 500;

export function documentDataRepo(engine: Engine) {
  const {
    memberships: m,
    notifications,
    notificationRecipients,
    notificationConfigs,
    activities,
    commentAnnotations,
    recordings,
    crdtDocuments,
    crdtUpdates,
  } = engine.t;
  /**
   * The tables a document's deletion clears by their `document_id` (memberships, which name the document as their
   * resource, go first): notifications (recipients by cascade), notification settings, activities, comment threads
   * (comments, reads and reactions by cascade), recordings (attachments by cascade; their files go at the next
   * start) and the collaborative content (its update log by cascade).
   */
  const deleted = [notifications, notificationConfigs, activities, commentAnnotations, recordings, crdtDocuments];
  /** The tables a migration moves by their `document_id` before the collaborative content. */
  const moved = [notifications, notificationRecipients, notificationConfigs, activities, commentAnnotations, recordings];

  /** Deletes the data of these documents of the key's organization, in the caller's unit of work. */
  async function deleteData(db: Q, apiKeyId: string, organizationId: string, documentIds: readonly string[]) {
    for (let i = 0; i < documentIds.length; i += SLICE) {
      const ids = documentIds.slice(i, i + SLICE);
      await db.delete(m).where(and(eq(m.apiKeyId, apiKeyId), eq(m.organizationId, organizationId), eq(m.level, 'document'), inArray(m.resourceId, ids)));
      for (const table of deleted)
        await db.delete(table).where(and(eq(table.apiKeyId, apiKeyId), eq(table.organizationId, organizationId), inArray(table.documentId, ids)));
    }
  }

  /** Moves the same data from one document id to another, in the caller's unit of work (a document migration). */
  async function moveData(db: Q, apiKeyId: string, organizationId: string, fromDocumentId: string, toDocumentId: string) {
    // the collaborative content's rows held first (an update that changes nothing): a live room's flush in flight
    // commits before the moves below read its update (at READ COMMITTED each statement sees what committed before it),
    // and one after waits, then finds its row gone and appends nothing under the old id
    await db
      .update(crdtDocuments)
      .set({ updatedAt: sql`${crdtDocuments.updatedAt}` })
      .where(and(eq(crdtDocuments.apiKeyId, apiKeyId), eq(crdtDocuments.organizationId, organizationId), eq(crdtDocuments.documentId, fromDocumentId)));
    await db
      .update(m)
      .set({ resourceId: toDocumentId })
      .where(and(eq(m.apiKeyId, apiKeyId), eq(m.organizationId, organizationId), eq(m.level, 'document'), eq(m.resourceId, fromDocumentId)));
    for (const table of moved)
      await db
        .update(table)
        .set({ documentId: toDocumentId })
        .where(and(eq(table.apiKeyId, apiKeyId), eq(table.organizationId, organizationId), eq(table.documentId, fromDocumentId)));
    // collaborative content: new parent rows first, then the update log, then the old parents (the foreign keys hold at every step)
    await engine.execute(
      db,
      sql`INSERT INTO crdt_documents (api_key_id, organization_id, document_id, editor_id, type, content_key, infer, snapshot, update_count, last_updated_by, compacted_at, created_at, updated_at)
      SELECT api_key_id, organization_id, ${toDocumentId}, editor_id, type, content_key, infer, snapshot, update_count, last_updated_by, compacted_at, created_at, updated_at
      FROM crdt_documents WHERE api_key_id = ${apiKeyId} AND organization_id = ${organizationId} AND document_id = ${fromDocumentId}`,
    );
    await db
      .update(crdtUpdates)
      .set({ documentId: toDocumentId })
      .where(and(eq(crdtUpdates.apiKeyId, apiKeyId), eq(crdtUpdates.organizationId, organizationId), eq(crdtUpdates.documentId, fromDocumentId)));
    await db
      .delete(crdtDocuments)
      .where(and(eq(crdtDocuments.apiKeyId, apiKeyId), eq(crdtDocuments.organizationId, organizationId), eq(crdtDocuments.documentId, fromDocumentId)));
  }

  return {
    delete: (scope: TenantScope, organizationId: string, documentIds: readonly string[]) =>
      engine.write((db) => deleteData(db, scope.apiKeyId, organizationId, documentIds)),
    move: (scope: TenantScope, organizationId: string, fromDocumentId: string, toDocumentId: string) =>
      engine.write((db) => moveData(db, scope.apiKeyId, organizationId, fromDocumentId, toDocumentId)),
  };
}

export type DocumentDataRepo = ReturnType<typeof documentDataRepo>;
