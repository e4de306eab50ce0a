// What a document's deletion clears and a document migration moves, on PostgreSQL: the same repository as
// ../../repos/document-data.ts, table by table and statement by statement (db/tenancy.ts's DOCUMENT_DATA says what
// happens to each table; test/pg/document-data.test.ts runs both engines on the same data and compares every table).
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { documentDataRepo } from '../../repos/document-data.ts';
import type { PgDb, PgEngine } from '../engine.ts';
import { pgTableFor } from '../schema.ts';

export type DocumentDataRepo = ReturnType<typeof documentDataRepo>;

/** Documents are deleted in slices of this many ids, as on SQLite (far from PostgreSQL's 65,535 parameters). */
const SLICE = 500;

const { table: memberships, c: m } = pgTableFor('memberships');
const notifications = pgTableFor('notifications');
const notificationRecipients = pgTableFor('notificationRecipients');
const notificationConfigs = pgTableFor('notificationConfigs');
const activities = pgTableFor('activities');
const commentAnnotations = pgTableFor('commentAnnotations');
const recordings = pgTableFor('recordings');
const crdtDocuments = pgTableFor('crdtDocuments');
const crdtUpdates = pgTableFor('crdtUpdates');

type ByDocument = { table: PgTable; c: { apiKeyId: PgColumn; organizationId: PgColumn; documentId: PgColumn } };

/**
 * The tables a document's deletion clears by their `document_id`, in SQLite's order (memberships, which name the
 * document as their resource, come first): notifications (recipients by cascade), notification settings,
 * activities, comment threads (comments, reads and reactions by cascade), recordings (attachments by cascade) and
 * the collaborative content (its update log by cascade).
 */
const DELETED: readonly ByDocument[] = [notifications, notificationConfigs, activities, commentAnnotations, recordings, crdtDocuments];

/** The tables a migration moves by their `document_id` before the collaborative content, in SQLite's order. */
const MOVED: readonly ByDocument[] = [notifications, notificationRecipients, notificationConfigs, activities, commentAnnotations, recordings];

async function deleteDocumentsData(db: PgDb, apiKeyId: string, organizationId: string, documentIds: readonly string[]) {
  for (let i = 0; i < documentIds.length; i += SLICE) {
    const ids = documentIds.slice(i, i + SLICE);
    await db
      .delete(memberships)
      .where(and(eq(m.apiKeyId, apiKeyId), eq(m.organizationId, organizationId), eq(m.level, 'document'), inArray(m.resourceId, ids)));
    for (const { table, c } of DELETED) {
      await db.delete(table).where(and(eq(c.apiKeyId, apiKeyId), eq(c.organizationId, organizationId), inArray(c.documentId, ids)));
    }
  }
}

async function moveDocumentData(db: PgDb, apiKeyId: string, organizationId: string, fromDocumentId: string, toDocumentId: string) {
  await db
    .update(memberships)
    .set({ resourceId: toDocumentId } as never)
    .where(and(eq(m.apiKeyId, apiKeyId), eq(m.organizationId, organizationId), eq(m.level, 'document'), eq(m.resourceId, fromDocumentId)));
  for (const { table, c } of MOVED) {
    await db
      .update(table)
      .set({ documentId: toDocumentId } as never)
      .where(and(eq(c.apiKeyId, apiKeyId), eq(c.organizationId, organizationId), eq(c.documentId, fromDocumentId)));
  }
  // collaborative content: new parent rows first, then the update log, then the old parents (the foreign keys hold at every step)
  await db.execute(sql`INSERT INTO crdt_documents (api_key_id, organization_id, document_id, editor_id, type, content_key, infer, snapshot, update_count, last_updated_by, compacted_at, created_at, updated_at)
    SELECT api_key_id, organization_id, ${toDocumentId}, editor_id, type, content_key, infer, snapshot, update_count, last_updated_by, compacted_at, created_at, updated_at
    FROM crdt_documents WHERE api_key_id = ${apiKeyId} AND organization_id = ${organizationId} AND document_id = ${fromDocumentId}`);
  const u = crdtUpdates.c;
  await db
    .update(crdtUpdates.table)
    .set({ documentId: toDocumentId } as never)
    .where(and(eq(u.apiKeyId, apiKeyId), eq(u.organizationId, organizationId), eq(u.documentId, fromDocumentId)));
  const d = crdtDocuments.c;
  await db.delete(crdtDocuments.table).where(and(eq(d.apiKeyId, apiKeyId), eq(d.organizationId, organizationId), eq(d.documentId, fromDocumentId)));
}

export function documentDataRepoPg(engine: PgEngine): DocumentDataRepo {
  return {
    delete: (scope, organizationId, documentIds) => engine.write((db) => deleteDocumentsData(db, scope.apiKeyId, organizationId, documentIds)),
    move: (scope, organizationId, fromDocumentId, toDocumentId) =>
      engine.write((db) => moveDocumentData(db, scope.apiKeyId, organizationId, fromDocumentId, toDocumentId)),
  };
}
