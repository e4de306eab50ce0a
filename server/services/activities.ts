import { currentTime } from '../clock.ts';
import type { z } from 'zod';
import type { activitiesDeleteInput, activitiesGetInput, activitiesUpdateInput, activityInput, FEATURE_TYPES } from '../../shared/schemas/feed.ts';
import type { PageTokens } from '../db/pagination.ts';
import { paginate } from '../db/pagination.ts';
import type { ActivityChange, ActivityRow } from '../db/repos/activities.ts';
import type { Storage } from '../db/repos/index.ts';
import type { StoredUser } from '../db/repos/notifications.ts';
import type { TenantScope } from '../db/scope.ts';
import { failedPrecondition, invalid } from '../errors.ts';
import { randomAlphanumeric } from '../security/secrets.ts';
import { activityServiceEnabled } from './apikeys.ts';
import { ensureOrganization } from './organizations.ts';
import { readPageToken } from './paging.ts';
import { keyed } from './keyed.ts';

export type { ActivityRow };
type FeatureType = (typeof FEATURE_TYPES)[number];
type Outcomes = Record<string, { success: boolean; message: string }>;
type Deps = { storage: Storage };

/** One activity record as the areas that record what happened describe it. */
export interface ActivityEntry {
  organizationId: string;
  documentId?: string | null;
  id?: string;
  featureType: FeatureType;
  actionType: string;
  actionUser: StoredUser;
  targetEntityId?: string | null;
  targetSubEntityId?: string | null;
  changes?: Record<string, { from?: unknown; to?: unknown }> | null;
  entityData?: unknown;
  entityTargetData?: unknown;
  displayMessageTemplate?: string | null;
  displayMessageTemplateData?: Record<string, unknown> | null;
  actionIcon?: string | null;
  resolver?: boolean;
  timestamp?: number;
}

const stripUser = (user: StoredUser, resolver: boolean): StoredUser =>
  resolver ? { userId: user.userId } : (Object.fromEntries(Object.entries(user).filter(([, v]) => v !== undefined)) as StoredUser);

/** The stored record of an entry: a new id unless it names one, the acting user stripped to its id in resolver mode. */
function activityRow(entry: ActivityEntry): Omit<ActivityRow, 'apiKeyId'> {
  const resolver = entry.resolver ?? false;
  return {
    organizationId: entry.organizationId,
    id: entry.id ?? randomAlphanumeric(20),
    documentId: entry.documentId ?? null,
    featureType: entry.featureType,
    actionType: entry.actionType,
    actionUser: stripUser(entry.actionUser, resolver),
    actionUserId: entry.actionUser.userId,
    targetEntityId: entry.targetEntityId ?? null,
    targetSubEntityId: entry.targetSubEntityId ?? null,
    changes: entry.changes ?? null,
    entityData: entry.entityData ?? null,
    entityTargetData: entry.entityTargetData ?? null,
    displayMessageTemplate: entry.displayMessageTemplate ?? null,
    displayMessageTemplateData: entry.displayMessageTemplateData ?? null,
    actionIcon: entry.actionIcon ?? null,
    resolver,
    timestamp: entry.timestamp ?? currentTime(),
  };
}

/**
 * Writes one activity record in the caller's unit of work: the operation below and every area that records what
 * happened (comments, reactions, recordings, CRDT) use it, so an activity commits with its change or not at all.
 * An existing id is overwritten (the idempotent write of activities add). Returns the record's id.
 */
export async function recordActivity(deps: Deps, scope: TenantScope, entry: ActivityEntry): Promise<string> {
  const row = activityRow(entry);
  await deps.storage.activities.upsert(scope, [row]);
  return row.id;
}

/** The refusal of activities/add while the key's activity service is off (the hosted service has no published wording). */
const ACTIVITY_SERVICE_DISABLED =
  'Activity logs are disabled for this API key: enable activityServiceConfig.isEnabled with /v2/workspace/activityconfig/update.';

/**
 * /v2/activities/add: custom and feature activities; a given id overwrites the record with that id. Refused
 * while the key's activity service is off (reference §3.8), read in the writing unit of work.
 */
export async function addActivities(
  deps: Deps,
  scope: TenantScope,
  input: { organizationId: string; documentId?: string | undefined; activities: Array<z.output<typeof activityInput>> },
): Promise<string[]> {
  input.activities.forEach((a, i) => {
    if (a.featureType === 'custom' && !a.targetEntityId) throw invalid(`activities[${i}].targetEntityId is required when featureType is custom.`);
  });
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the upsert's conflict clause makes a concurrent writer of
  // one id wait and overwrite, and the organization's foreign key meets its deletion meanwhile.
  return deps.storage.transaction(
    async () => {
      if (!(await activityServiceEnabled(deps, scope))) throw failedPrecondition(ACTIVITY_SERVICE_DISABLED);
      await ensureOrganization(deps, scope, input.organizationId, false);
      const rows = input.activities.map((a) =>
        activityRow({ ...a, organizationId: input.organizationId, documentId: input.documentId ?? null, resolver: a.isActivityResolverUsed ?? false }),
      );
      await deps.storage.activities.upsert(scope, rows);
      return rows.map((row) => row.id);
    },
    { rowLevel: true },
  );
}

export function describeActivity(row: ActivityRow) {
  return {
    id: row.id,
    featureType: row.featureType,
    actionType: row.actionType,
    actionUser: row.actionUser,
    targetEntityId: row.targetEntityId,
    targetSubEntityId: row.targetSubEntityId,
    changes: row.changes,
    entityData: row.entityData,
    entityTargetData: row.entityTargetData,
    displayMessageTemplate: row.displayMessageTemplate,
    displayMessageTemplateData: row.displayMessageTemplateData ?? {},
    actionIcon: row.actionIcon,
    isActivityResolverUsed: row.resolver,
    metadata: { apiKey: row.apiKeyId, documentId: row.documentId, organizationId: row.organizationId },
    timestamp: row.timestamp,
  };
}

/**
 * /v2/activities/get: every filter of interface.md combined, ordered by (timestamp, id) either way and
 * keyset-paginated. Document, target, user and single-feature filters each have an index led by that column.
 */
export async function getActivities(deps: Deps & { pageTokens: PageTokens }, scope: TenantScope, input: z.output<typeof activitiesGetInput>) {
  const { pageToken, pageSize, ...filters } = input;
  const query = { op: 'activities/get', apiKeyId: scope.apiKeyId, ...filters };
  const cursor = readPageToken(deps, query, pageToken, ['number', 'string']) as readonly [number, string] | null;
  const rows = await deps.storage.activities.page(scope, input, cursor, pageSize + 1);
  const page = paginate(rows, pageSize, (row) => [row.timestamp, row.id], deps.pageTokens, query);
  return { items: page.items.map(describeActivity), pageToken: page.pageToken };
}

/** /v2/activities/update: the updatable fields of interface.md, per id. */
export async function updateActivities(deps: Deps, scope: TenantScope, input: z.output<typeof activitiesUpdateInput>): Promise<Outcomes> {
  const changes = input.activities.map(({ id, ...fields }) => ({
    id,
    set: Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as ActivityChange,
  }));
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): each change is one UPDATE of the fields given (no merge of
  // a read), its count the answer
  const found = await deps.storage.transaction(() => deps.storage.activities.update(scope, input.organizationId, changes), { rowLevel: true });
  const out: Outcomes = keyed();
  changes.forEach(({ id }, i) => {
    out[id] = found[i] ? { success: true, message: 'Activity updated.' } : { success: false, message: 'Failed to update activity.' };
  });
  return out;
}

/** /v2/activities/delete: by document, target entity and/or ids (at least one); named ids not matched fail. */
export async function deleteActivities(deps: Deps, scope: TenantScope, input: z.output<typeof activitiesDeleteInput>): Promise<Outcomes> {
  if (!input.documentId && !input.targetEntityId && !input.activityIds) throw invalid('Pass at least one of documentId, targetEntityId or activityIds.');
  // Row level on PostgreSQL: one DELETE … RETURNING; a second delete of a row waits for the first's commit and
  // deletes nothing
  const ids = await deps.storage.transaction(() => deps.storage.activities.delete(scope, input), { rowLevel: true });
  const out: Outcomes = keyed();
  for (const id of ids) out[id] = { success: true, message: 'Activity deleted.' };
  for (const id of input.activityIds ?? []) if (!out[id]) out[id] = { success: false, message: 'Failed to delete activity.' };
  return out;
}
