import { and, asc, eq, gte, lt } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { transaction } from '../db/client.ts';
import { documentMigrations, documents } from '../db/schema.ts';
import { alreadyExists, invalid, notFound } from '../errors.ts';
import { randomAlphanumeric } from '../security/secrets.ts';
import { moveDocumentData } from './document-lifecycle.ts';
import { findDocumentIn } from './documents.ts';
import { MAX_ATTEMPTS, type JobQueue } from './jobs.ts';

export type MigrationRow = typeof documentMigrations.$inferSelect;

export function startMigration(app: AppContext, apiKeyId: string, input: { organizationId: string; documentId: string; newDocumentId: string }): MigrationRow {
  if (input.documentId === input.newDocumentId) throw invalid('newDocumentId must differ from documentId.');
  const row = transaction(app.db, (tx) => {
    if (!findDocumentIn(tx, apiKeyId, input.organizationId, input.documentId)) throw notFound(`Document does not exist: ${input.documentId}.`);
    if (findDocumentIn(tx, apiKeyId, input.organizationId, input.newDocumentId)) throw alreadyExists(`A document with id ${input.newDocumentId} already exists.`);
    const created: MigrationRow = {
      id: `mig_${randomAlphanumeric(20)}`,
      apiKeyId,
      organizationId: input.organizationId,
      fromDocumentId: input.documentId,
      toDocumentId: input.newDocumentId,
      status: 'pending',
      error: null,
      attempts: 0,
      createdAt: Date.now(),
      startedAt: null,
      completedAt: null,
    };
    tx.insert(documentMigrations).values(created).run();
    return created;
  });
  app.jobs.wake();
  return row;
}

export function migrationStatus(app: AppContext, apiKeyId: string, organizationId: string, migrationId: string) {
  const row = app.db
    .select()
    .from(documentMigrations)
    .where(and(eq(documentMigrations.id, migrationId), eq(documentMigrations.apiKeyId, apiKeyId), eq(documentMigrations.organizationId, organizationId)))
    .get();
  if (!row) throw notFound('Migration not found.');
  return {
    migrationId: row.id,
    status: row.status,
    documentId: row.fromDocumentId,
    newDocumentId: row.toDocumentId,
    error: row.error,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    completedAt: row.completedAt,
  };
}

/**
 * Moves a document to its new id in one transaction: the document row and every area's data (the
 * registered document parts) and the job's `completed` state commit together, so a crash leaves either the
 * old state (and the job is run again) or the whole move, never half of it.
 */
function runMigration(app: Pick<AppContext, 'db' | 'accessEvents'>, job: MigrationRow) {
  transaction(app.db, (tx) => {
    const where = (id: string) => and(eq(documents.apiKeyId, job.apiKeyId), eq(documents.organizationId, job.organizationId), eq(documents.id, id));
    const source = findDocumentIn(tx, job.apiKeyId, job.organizationId, job.fromDocumentId);
    if (!source) throw new Error(`the document ${job.fromDocumentId} no longer exists`);
    if (findDocumentIn(tx, job.apiKeyId, job.organizationId, job.toDocumentId)) throw new Error(`a document ${job.toDocumentId} exists already`);
    tx.insert(documents).values({ ...source, id: job.toDocumentId, updatedAt: Date.now() }).run();
    moveDocumentData(tx, { apiKeyId: job.apiKeyId, organizationId: job.organizationId, fromDocumentId: job.fromDocumentId, toDocumentId: job.toDocumentId });
    tx.delete(documents).where(where(job.fromDocumentId)).run();
    tx.update(documentMigrations).set({ status: 'completed', completedAt: Date.now(), error: null }).where(eq(documentMigrations.id, job.id)).run();
  });
  // the old id's rooms are gone (moved): their connections are closed, to reconnect to the new id
  app.accessEvents.publish({ apiKeyId: job.apiKeyId, organizationId: job.organizationId, documentIds: [job.fromDocumentId] });
}

/** Document migrations as a durable job queue (see jobs.ts). */
export const migrationQueue: JobQueue<MigrationRow> = {
  name: 'document migration',
  next: (db) => db.select().from(documentMigrations).where(eq(documentMigrations.status, 'pending')).orderBy(asc(documentMigrations.createdAt)).limit(1).get(),
  markStarted(db, job) {
    db.update(documentMigrations).set({ status: 'in_progress', startedAt: Date.now(), attempts: job.attempts + 1 }).where(eq(documentMigrations.id, job.id)).run();
  },
  run: (app, job) => runMigration(app, job),
  markFailed(db, job, message) {
    db.update(documentMigrations).set({ status: 'failed', error: message, completedAt: Date.now() }).where(eq(documentMigrations.id, job.id)).run();
  },
  recover(tx) {
    tx.update(documentMigrations)
      .set({ status: 'failed', error: `interrupted ${MAX_ATTEMPTS} times; not retried`, completedAt: Date.now() })
      .where(and(eq(documentMigrations.status, 'in_progress'), gte(documentMigrations.attempts, MAX_ATTEMPTS)))
      .run();
    tx.update(documentMigrations).set({ status: 'pending' }).where(and(eq(documentMigrations.status, 'in_progress'), lt(documentMigrations.attempts, MAX_ATTEMPTS))).run();
  },
};
