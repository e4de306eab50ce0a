import { currentTime } from '../clock.ts';
import type { MigrationRow } from '../db/repos/document-migrations.ts';
import type { Storage } from '../db/repos/index.ts';
import type { TenantScope } from '../db/scope.ts';
import { LeaseLostError } from '../db/repos/lease.ts';
import { alreadyExists, invalid, notFound } from '../errors.ts';
import { randomAlphanumeric } from '../security/secrets.ts';
import type { AccessEvents } from './access-events.ts';
import { JobFailure, MAX_ATTEMPTS, type JobQueue, type JobRunner } from './jobs.ts';

export type { MigrationRow };
type Deps = { storage: Storage };

export async function startMigration(
  deps: Deps & { jobs: Pick<JobRunner, 'wake'> },
  scope: TenantScope,
  input: { organizationId: string; documentId: string; newDocumentId: string },
): Promise<MigrationRow> {
  if (input.documentId === input.newDocumentId) throw invalid('newDocumentId must differ from documentId.');
  const { storage } = deps;
  const row = await storage.transaction(async () => {
    if (!(await storage.documents.find(scope, input.organizationId, input.documentId))) throw notFound(`Document does not exist: ${input.documentId}.`);
    if (await storage.documents.find(scope, input.organizationId, input.newDocumentId))
      throw alreadyExists(`A document with id ${input.newDocumentId} already exists.`);
    const created: Omit<MigrationRow, 'apiKeyId'> = {
      id: `mig_${randomAlphanumeric(20)}`,
      organizationId: input.organizationId,
      fromDocumentId: input.documentId,
      toDocumentId: input.newDocumentId,
      status: 'pending',
      error: null,
      attempts: 0,
      leaseUntil: null,
      createdAt: Date.now(),
      startedAt: null,
      completedAt: null,
    };
    await storage.documentMigrations.insert(scope, created);
    return { ...created, apiKeyId: scope.apiKeyId };
  });
  deps.jobs.wake();
  return row;
}

export async function migrationStatus(deps: Deps, scope: TenantScope, organizationId: string, migrationId: string) {
  const row = await deps.storage.documentMigrations.find(scope, organizationId, migrationId);
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

/** The old id's rooms are gone (moved): their connections are closed, to reconnect to the new id. */
const moved = (deps: { accessEvents: AccessEvents }, job: MigrationRow) =>
  deps.accessEvents.publish({ apiKeyId: job.apiKeyId, organizationId: job.organizationId, documentIds: [job.fromDocumentId] });

/**
 * Moves a document to its new id in one unit of work: the document row, every table's data
 * (db/repos/document-data.ts) and the job's `completed` state commit together, so a crash leaves either the old
 * state (and the job is run again) or the whole move, never half of it. A job taken back meanwhile (its lease ran
 * out) is not completed: the move is undone and LeaseLostError thrown. A failure (the document gone, the new id
 * taken) throws, and the job runner fails the job with its message.
 */
export async function runMigration(deps: Deps & { accessEvents: AccessEvents }, scope: TenantScope, job: MigrationRow) {
  const { storage } = deps;
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the fence, as a delete's; the source document held, as a
  // delete holds it; the new id's document inserted ON CONFLICT DO NOTHING (taken meanwhile: it exists already); the
  // room's rows held before the data moves (documentData.move). SERIALIZABLE, a room edited live refused every attempt
  // and the job failed
  await storage.transaction(
    async () => {
      const source = (await storage.documents.holdAll(scope, job.organizationId, [job.fromDocumentId])).get(job.fromDocumentId);
      if (!source) throw new JobFailure(`the document ${job.fromDocumentId} no longer exists`);
      const made = await storage.documents.insert(scope, [{ ...source, id: job.toDocumentId, updatedAt: currentTime() }]);
      if (made.size === 0) throw new JobFailure(`a document ${job.toDocumentId} exists already`);
      await storage.documentData.move(scope, job.organizationId, job.fromDocumentId, job.toDocumentId);
      await storage.documents.delete(scope, job.organizationId, [job.fromDocumentId]);
      // taken back meanwhile (its lease ran out): the move is undone, the job's new holder makes it
      if (!(await storage.documentMigrations.complete(scope, job.id, Date.now(), job.leaseUntil))) throw new LeaseLostError(`document migration ${job.id}`);
    },
    // the old id's data moves, as a delete's goes: with every row added under it (docs/storage.md, "Fences")
    { rowLevel: true, deletesDocumentsOf: { scope, organizationId: job.organizationId } },
  );
  moved(deps, job);
}

/** Document migrations as a durable job queue, for the job runner (services/jobs.ts). */
export function migrationQueue(deps: Deps & { accessEvents: AccessEvents }): JobQueue<MigrationRow> {
  const { documentMigrations } = deps.storage;
  return {
    name: 'document migration',
    claim: (now, leaseUntil) => documentMigrations.claim(now, leaseUntil, MAX_ATTEMPTS),
    async run(job) {
      const scope = await deps.storage.keys.scopeFor(job.apiKeyId);
      if (!scope) throw new JobFailure(`the API key ${job.apiKeyId} no longer exists`);
      await runMigration(deps, scope, job);
    },
    markFailed: (job, message) => documentMigrations.markFailed(job.id, message, Date.now(), job.leaseUntil),
    recover: (heldBefore) => documentMigrations.recover(MAX_ATTEMPTS, Date.now(), heldBefore),
  };
}
