import { currentTime } from '../clock.ts';
import type { z } from 'zod';
import type { organizationsAddInput, organizationsGetInput } from '../../shared/schemas/access.ts';
import type { PageTokens } from '../db/pagination.ts';
import { paginate } from '../db/pagination.ts';
import type { OrganizationRow } from '../db/repos/organizations.ts';
import type { Storage } from '../db/repos/index.ts';
import type { TenantScope } from '../db/scope.ts';
import { invalid, notFound } from '../errors.ts';
import type { AccessEvents } from './access-events.ts';
import { keyed } from './keyed.ts';
import { readPageToken } from './paging.ts';

export type { OrganizationRow };

/** Per-item outcome of a bulk operation, keyed by the caller's id (reference §1.6). */
export type Outcomes = Record<string, { success: boolean; id?: string; message: string }>;

type Deps = { storage: Storage };

export function describeOrganization(row: OrganizationRow) {
  return { id: row.id, organizationName: row.name, disabled: row.disabled, metadata: row.metadata, createdAt: row.createdAt, lastUpdated: row.updatedAt };
}

/** INVALID_ARGUMENT for a list naming an id twice: its keyed per-item outcomes could only report one of them. */
export function checkUniqueIds(list: string[], field: string) {
  if (new Set(list).size !== list.length) throw invalid(`${field} lists an id more than once.`);
}

const missing = (organizationId: string) => notFound(`Organization does not exist: ${organizationId}. Pass createOrganization: true to create it.`);
const newRow = (id: string, name = '', metadata: Record<string, unknown> = {}): Omit<OrganizationRow, 'apiKeyId'> => {
  const now = currentTime();
  return { id, name, disabled: false, metadata, createdAt: now, updatedAt: now };
};

/** The organization, created on demand when `create` (the `createOrganization` flags); else NOT_FOUND. */
export async function ensureOrganization(deps: Deps, scope: TenantScope, organizationId: string, create: boolean): Promise<OrganizationRow> {
  const existing = await deps.storage.organizations.find(scope, organizationId);
  if (existing) return existing;
  if (!create) throw missing(organizationId);
  const row = newRow(organizationId);
  await deps.storage.organizations.insert(scope, row);
  return { ...row, apiKeyId: scope.apiKeyId };
}

type Records = z.output<typeof organizationsAddInput>['organizations'];

export async function addOrganizations(deps: Deps, scope: TenantScope, records: Records): Promise<Outcomes> {
  checkUniqueIds(
    records.map((r) => r.organizationId),
    'organizations',
  );
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the insert is ON CONFLICT DO NOTHING and its count is
  // the answer, so of two adds of one organization one adds it and the other answers that it exists
  return deps.storage.transaction(
    async () => {
      const out: Outcomes = keyed();
      for (const record of records) {
        const added = await deps.storage.organizations.insert(scope, newRow(record.organizationId, record.organizationName ?? '', record.metadata ?? {}));
        out[record.organizationId] = added
          ? { success: true, id: record.organizationId, message: 'Added Successfully' }
          : { success: false, id: record.organizationId, message: 'Organization already exists' };
      }
      return out;
    },
    { rowLevel: true },
  );
}

export async function updateOrganizations(deps: Deps, scope: TenantScope, records: Records): Promise<Outcomes> {
  checkUniqueIds(
    records.map((r) => r.organizationId),
    'organizations',
  );
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): each organization is read under its key lock, so that a
  // metadata merge goes over what the update before it wrote
  return deps.storage.transaction(
    async () => {
      await deps.storage.organizations.lock(
        scope,
        records.map((r) => r.organizationId),
      );
      const out: Outcomes = keyed();
      for (const record of records) {
        const existing = await deps.storage.organizations.find(scope, record.organizationId);
        if (!existing) {
          out[record.organizationId] = { success: false, id: record.organizationId, message: 'Organization does not exist' };
          continue;
        }
        await deps.storage.organizations.update(scope, record.organizationId, {
          name: record.organizationName ?? existing.name,
          metadata: record.metadata ? { ...existing.metadata, ...record.metadata } : existing.metadata,
          updatedAt: currentTime(),
        });
        out[record.organizationId] = { success: true, id: record.organizationId, message: 'Updated Successfully' };
      }
      return out;
    },
    { rowLevel: true },
  );
}

/** Deleting an organization deletes everything in it (folders, documents, memberships, groups) by cascade. */
export async function deleteOrganizations(deps: Deps & { accessEvents: AccessEvents }, scope: TenantScope, organizationIds: string[]): Promise<Outcomes> {
  const unique = [...new Set(organizationIds)];
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): a DELETE whose count is the answer; its children's foreign
  // keys refuse an insert meanwhile, whose unit runs again and finds the organization gone
  const outcomes = await deps.storage.transaction(
    async () => {
      const out: Outcomes = keyed();
      for (const organizationId of unique) {
        out[organizationId] = (await deps.storage.organizations.delete(scope, organizationId))
          ? { success: true, id: organizationId, message: 'Deleted Successfully' }
          : { success: false, id: organizationId, message: 'Organization does not exist' };
      }
      return out;
    },
    { rowLevel: true },
  );
  for (const organizationId of unique) deps.accessEvents.publish({ apiKeyId: scope.apiKeyId, organizationId });
  return outcomes;
}

export async function setOrganizationsDisabled(
  deps: Deps & { accessEvents: AccessEvents },
  scope: TenantScope,
  organizationIds: string[],
  disabled: boolean,
): Promise<Outcomes> {
  const unique = [...new Set(organizationIds)];
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): an UPDATE of the state given, its count the answer
  const outcomes = await deps.storage.transaction(
    async () => {
      const out: Outcomes = keyed();
      for (const organizationId of unique) {
        out[organizationId] = (await deps.storage.organizations.update(scope, organizationId, { disabled, updatedAt: currentTime() }))
          ? { success: true, id: organizationId, message: 'Organization disable state updated.' }
          : { success: false, id: organizationId, message: 'Organization does not exist' };
      }
      return out;
    },
    { rowLevel: true },
  );
  for (const organizationId of unique) deps.accessEvents.publish({ apiKeyId: scope.apiKeyId, organizationId });
  return outcomes;
}

/** Organizations of the key by id, keyset-paginated on the id. */
export async function listOrganizations(deps: Deps & { pageTokens: PageTokens }, scope: TenantScope, input: z.output<typeof organizationsGetInput>) {
  const query = { op: 'organizations/get', apiKeyId: scope.apiKeyId, ids: input.organizationIds ?? null };
  const cursor = readPageToken(deps, query, input.pageToken, ['string']);
  const rows = await deps.storage.organizations.page(scope, {
    ids: input.organizationIds,
    after: cursor?.[0] as string | undefined,
    limit: input.pageSize + 1,
  });
  const page = paginate(rows, input.pageSize, (r) => [r.id], deps.pageTokens, query);
  return { items: page.items.map(describeOrganization), pageToken: page.pageToken };
}
