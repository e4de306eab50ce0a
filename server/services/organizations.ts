import { and, asc, eq, gt, inArray, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { organizationsAddInput, organizationsGetInput } from '../../shared/schemas/access.ts';
import type { AppContext } from '../context.ts';
import { transaction, type Db } from '../db/client.ts';
import { paginate } from '../db/pagination.ts';
import { preparedFor } from '../db/prepared.ts';
import { organizations } from '../db/schema.ts';
import { invalid, notFound } from '../errors.ts';
import { readPageToken } from './paging.ts';
import { keyed } from './keyed.ts';

export type OrganizationRow = typeof organizations.$inferSelect;

/** Per-item outcome of a bulk operation, keyed by the caller's id (reference §1.6). */
export type Outcomes = Record<string, { success: boolean; id?: string; message: string }>;

const byId = preparedFor((db) =>
  db
    .select()
    .from(organizations)
    .where(and(eq(organizations.apiKeyId, sql.placeholder('apiKeyId')), eq(organizations.id, sql.placeholder('id'))))
    .prepare(),
);

export function findOrganization(tx: Db, apiKeyId: string, organizationId: string): OrganizationRow | undefined {
  return byId(tx).get({ apiKeyId, id: organizationId });
}

/** The organization, created on demand when `create` (the `createOrganization` flags); else NOT_FOUND. */
export function ensureOrganization(tx: Db, apiKeyId: string, organizationId: string, create: boolean): OrganizationRow {
  const existing = findOrganization(tx, apiKeyId, organizationId);
  if (existing) return existing;
  if (!create) throw notFound(`Organization does not exist: ${organizationId}. Pass createOrganization: true to create it.`);
  const now = Date.now();
  const row: OrganizationRow = { apiKeyId, id: organizationId, name: '', disabled: false, metadata: {}, createdAt: now, updatedAt: now };
  tx.insert(organizations).values(row).run();
  return row;
}

export function describeOrganization(row: OrganizationRow) {
  return { id: row.id, organizationName: row.name, disabled: row.disabled, metadata: row.metadata, createdAt: row.createdAt, lastUpdated: row.updatedAt };
}

type Records = z.output<typeof organizationsAddInput>['organizations'];

/** INVALID_ARGUMENT for a list naming an id twice: its keyed per-item outcomes could only report one of them. */
export function checkUniqueIds(list: string[], field: string) {
  if (new Set(list).size !== list.length) throw invalid(`${field} lists an id more than once.`);
}

export function addOrganizations(app: AppContext, apiKeyId: string, records: Records): Outcomes {
  checkUniqueIds(records.map((r) => r.organizationId), 'organizations');
  return transaction(app.db, (tx) => {
    const out: Outcomes = keyed();
    for (const record of records) {
      if (findOrganization(tx, apiKeyId, record.organizationId)) {
        out[record.organizationId] = { success: false, id: record.organizationId, message: 'Organization already exists' };
        continue;
      }
      const now = Date.now();
      tx.insert(organizations)
        .values({ apiKeyId, id: record.organizationId, name: record.organizationName ?? '', metadata: record.metadata ?? {}, createdAt: now, updatedAt: now })
        .run();
      out[record.organizationId] = { success: true, id: record.organizationId, message: 'Added Successfully' };
    }
    return out;
  });
}

export function updateOrganizations(app: AppContext, apiKeyId: string, records: Records): Outcomes {
  checkUniqueIds(records.map((r) => r.organizationId), 'organizations');
  return transaction(app.db, (tx) => {
    const out: Outcomes = keyed();
    for (const record of records) {
      const existing = findOrganization(tx, apiKeyId, record.organizationId);
      if (!existing) {
        out[record.organizationId] = { success: false, id: record.organizationId, message: 'Organization does not exist' };
        continue;
      }
      tx.update(organizations)
        .set({
          name: record.organizationName ?? existing.name,
          metadata: record.metadata ? { ...existing.metadata, ...record.metadata } : existing.metadata,
          updatedAt: Date.now(),
        })
        .where(and(eq(organizations.apiKeyId, apiKeyId), eq(organizations.id, record.organizationId)))
        .run();
      out[record.organizationId] = { success: true, id: record.organizationId, message: 'Updated Successfully' };
    }
    return out;
  });
}

/** Deleting an organization deletes everything in it (folders, documents, memberships, groups) by cascade. */
export function deleteOrganizations(app: AppContext, apiKeyId: string, organizationIds: string[]): Outcomes {
  const outcomes = transaction(app.db, (tx) => {
    const out: Outcomes = keyed();
    for (const organizationId of new Set(organizationIds)) {
      const deleted = tx
        .delete(organizations)
        .where(and(eq(organizations.apiKeyId, apiKeyId), eq(organizations.id, organizationId)))
        .run();
      out[organizationId] =
        deleted.changes > 0
          ? { success: true, id: organizationId, message: 'Deleted Successfully' }
          : { success: false, id: organizationId, message: 'Organization does not exist' };
    }
    return out;
  });
  for (const organizationId of new Set(organizationIds)) app.accessEvents.publish({ apiKeyId, organizationId });
  return outcomes;
}

export function setOrganizationsDisabled(app: AppContext, apiKeyId: string, organizationIds: string[], disabled: boolean): Outcomes {
  const outcomes = transaction(app.db, (tx) => {
    const out: Outcomes = keyed();
    for (const organizationId of new Set(organizationIds)) {
      const changed = tx
        .update(organizations)
        .set({ disabled, updatedAt: Date.now() })
        .where(and(eq(organizations.apiKeyId, apiKeyId), eq(organizations.id, organizationId)))
        .run();
      out[organizationId] =
        changed.changes > 0
          ? { success: true, id: organizationId, message: 'Organization disable state updated.' }
          : { success: false, id: organizationId, message: 'Organization does not exist' };
    }
    return out;
  });
  for (const organizationId of new Set(organizationIds)) app.accessEvents.publish({ apiKeyId, organizationId });
  return outcomes;
}

/** Organizations of the key by id, keyset-paginated on the id. */
export function listOrganizations(app: AppContext, apiKeyId: string, input: z.output<typeof organizationsGetInput>) {
  const scope = { op: 'organizations/get', apiKeyId, ids: input.organizationIds ?? null };
  const conditions: SQL[] = [eq(organizations.apiKeyId, apiKeyId)];
  if (input.organizationIds) conditions.push(inArray(organizations.id, input.organizationIds));
  const cursor = readPageToken(app, scope, input.pageToken, ['string']);
  if (cursor) conditions.push(gt(organizations.id, cursor[0] as string));
  const rows = app.db
    .select()
    .from(organizations)
    .where(and(...conditions))
    .orderBy(asc(organizations.id))
    .limit(input.pageSize + 1)
    .all();
  const page = paginate(rows, input.pageSize, (r) => [r.id], app.pageTokens, scope);
  return { items: page.items.map(describeOrganization), pageToken: page.pageToken };
}
