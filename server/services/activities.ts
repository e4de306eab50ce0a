import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { activitiesDeleteInput, activitiesGetInput, activitiesUpdateInput, activityInput, FEATURE_TYPES } from '../../shared/schemas/feed.ts';
import type { AppContext } from '../context.ts';
import { transaction, type Db } from '../db/client.ts';
import { keysetAfter, paginate } from '../db/pagination.ts';
import { compiledRows, listValues, placeholderList, rowInserter } from '../db/prepared.ts';
import { activities, type StoredUser } from '../db/schema.ts';
import { failedPrecondition, invalid } from '../errors.ts';
import { randomAlphanumeric } from '../security/secrets.ts';
import { activityServiceEnabled } from './apikeys.ts';
import { ensureOrganizationIn } from './organizations.ts';
import { readPageToken } from './paging.ts';
import { keyed } from './keyed.ts';

type ActivityRow = typeof activities.$inferSelect;
type FeatureType = (typeof FEATURE_TYPES)[number];
type Outcomes = Record<string, { success: boolean; message: string }>;

const stripUser = (user: StoredUser, resolver: boolean): StoredUser =>
  resolver ? { userId: user.userId } : (Object.fromEntries(Object.entries(user).filter(([, v]) => v !== undefined)) as StoredUser);

/**
 * Writes one activity record in the caller's transaction: the operation below and every area that records
 * what happened (comments, reactions, recordings, CRDT) use it, so an activity commits with its change or not at all.
 * An existing id is overwritten (the idempotent write of activities add).
 */
export function recordActivityIn(
  tx: Db,
  entry: {
    apiKeyId: string;
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
  },
): string {
  const resolver = entry.resolver ?? false;
  const row: ActivityRow = {
    apiKeyId: entry.apiKeyId,
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
    timestamp: entry.timestamp ?? Date.now(),
  };
  upsertActivity(tx, row);
  return row.id;
}

/** A given id overwrites the record with that id (every field but the key). */
const upsertActivity = rowInserter(activities, { upsertOn: [activities.apiKeyId, activities.organizationId, activities.id] });

/** The refusal of activities/add while the key's activity service is off (the hosted service has no published wording). */
const ACTIVITY_SERVICE_DISABLED =
  'Activity logs are disabled for this API key: enable activityServiceConfig.isEnabled with /v2/workspace/activityconfig/update.';

/**
 * /v2/activities/add: custom and feature activities; a given id overwrites the record with that id. Refused
 * while the key's activity service is off (reference §3.8), read in the writing transaction.
 */
export function addActivities(app: AppContext, apiKeyId: string, input: { organizationId: string; documentId?: string | undefined; activities: Array<z.output<typeof activityInput>> }) {
  input.activities.forEach((a, i) => {
    if (a.featureType === 'custom' && !a.targetEntityId) throw invalid(`activities[${i}].targetEntityId is required when featureType is custom.`);
  });
  return transaction(app.db, (tx) => {
    if (!activityServiceEnabled(tx, apiKeyId)) throw failedPrecondition(ACTIVITY_SERVICE_DISABLED);
    ensureOrganizationIn(tx, apiKeyId, input.organizationId, false);
    return input.activities.map((a) =>
      recordActivityIn(tx, {
        ...a,
        apiKeyId,
        organizationId: input.organizationId,
        documentId: input.documentId ?? null,
        resolver: a.isActivityResolverUsed ?? false,
      }),
    );
  });
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

/** The filters of an activities page: which are present, and how many values each list filter has. */
type PageShape = `${'<' | '>'}${'' | '+after'}${'' | '+document'}${'' | '+target'}${'' | '+user'}:${number}:${number}:${number}`;

/**
 * The activities page of one filter shape, compiled once: placeholders for the values, one per list element
 * (`in (?, ?)` keeps an index's order for a single feature type, where a JSON list would not).
 */
const pageQuery = compiledRows(activities, (db, shape: PageShape, columns) => {
  const a = activities;
  const [flags, features, actions, ids] = shape.split(':') as [string, string, string, string];
  const descending = flags.startsWith('<');
  const conditions: (SQL | undefined)[] = [eq(a.apiKeyId, sql.placeholder('apiKeyId')), eq(a.organizationId, sql.placeholder('organizationId'))];
  if (flags.includes('+after')) conditions.push(keysetAfter(a.timestamp, a.id, [sql.placeholder('afterTimestamp'), sql.placeholder('afterId')], descending));
  if (flags.includes('+document')) conditions.push(eq(a.documentId, sql.placeholder('documentId')));
  if (flags.includes('+target')) conditions.push(eq(a.targetEntityId, sql.placeholder('targetEntityId')));
  if (flags.includes('+user')) conditions.push(eq(a.actionUserId, sql.placeholder('userId')));
  if (features !== '0') conditions.push(inArray(a.featureType, placeholderList('feature', Number(features))));
  if (actions !== '0') conditions.push(inArray(a.actionType, placeholderList('action', Number(actions))));
  if (ids !== '0') conditions.push(inArray(a.id, placeholderList('id', Number(ids))));
  const direction = descending ? desc : asc;
  return db
    .select(columns)
    .from(a)
    .where(and(...conditions))
    .orderBy(direction(a.timestamp), direction(a.id))
    .limit(sql.placeholder('limit'));
});

/**
 * /v2/activities/get: every filter of interface.md combined, ordered by (timestamp, id) either way and
 * keyset-paginated. Document, target, user and single-feature filters each have an index led by that column.
 */
export function getActivities(app: AppContext, apiKeyId: string, input: z.output<typeof activitiesGetInput>) {
  const { pageToken, pageSize, ...filters } = input;
  const scope = { op: 'activities/get', apiKeyId, ...filters };
  const cursor = readPageToken(app, scope, pageToken, ['number', 'string']);
  const shape: PageShape = `${input.order === 'desc' ? '<' : '>'}${cursor ? '+after' : ''}${input.documentId ? '+document' : ''}${input.targetEntityId ? '+target' : ''}${
    input.userId ? '+user' : ''
  }:${input.featureTypes?.length ?? 0}:${input.actionTypes?.length ?? 0}:${input.activityIds?.length ?? 0}`;
  const values: Record<string, unknown> = {
    apiKeyId,
    organizationId: input.organizationId,
    afterTimestamp: cursor?.[0],
    afterId: cursor?.[1],
    documentId: input.documentId,
    targetEntityId: input.targetEntityId,
    userId: input.userId,
    limit: pageSize + 1,
  };
  listValues(values, 'feature', input.featureTypes);
  listValues(values, 'action', input.actionTypes);
  listValues(values, 'id', input.activityIds);
  const rows = pageQuery(app.db, shape, values);
  const page = paginate(rows, pageSize, (row) => [row.timestamp, row.id], app.pageTokens, scope);
  return { items: page.items.map(describeActivity), pageToken: page.pageToken };
}

/** /v2/activities/update: the updatable fields of interface.md, per id. */
export function updateActivities(app: AppContext, apiKeyId: string, input: z.output<typeof activitiesUpdateInput>): Outcomes {
  return transaction(app.db, (tx) => {
    const out: Outcomes = keyed();
    for (const { id, ...fields } of input.activities) {
      const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
      const where = and(eq(activities.apiKeyId, apiKeyId), eq(activities.organizationId, input.organizationId), eq(activities.id, id));
      const found = tx.select({ id: activities.id }).from(activities).where(where).get();
      if (found && Object.keys(set).length > 0) tx.update(activities).set(set).where(where).run();
      out[id] = found ? { success: true, message: 'Activity updated.' } : { success: false, message: 'Failed to update activity.' };
    }
    return out;
  });
}

/** /v2/activities/delete: by document, target entity and/or ids (at least one); named ids not matched fail. */
export function deleteActivities(app: AppContext, apiKeyId: string, input: z.output<typeof activitiesDeleteInput>): Outcomes {
  if (!input.documentId && !input.targetEntityId && !input.activityIds) throw invalid('Pass at least one of documentId, targetEntityId or activityIds.');
  return transaction(app.db, (tx) => {
    const conditions: SQL[] = [eq(activities.apiKeyId, apiKeyId), eq(activities.organizationId, input.organizationId)];
    if (input.documentId) conditions.push(eq(activities.documentId, input.documentId));
    if (input.targetEntityId) conditions.push(eq(activities.targetEntityId, input.targetEntityId));
    if (input.activityIds) conditions.push(inArray(activities.id, input.activityIds));
    const ids = tx.select({ id: activities.id }).from(activities).where(and(...conditions)).all().map((r) => r.id);
    tx.delete(activities).where(and(...conditions)).run();
    const out: Outcomes = keyed();
    for (const id of ids) out[id] = { success: true, message: 'Activity deleted.' };
    for (const id of input.activityIds ?? []) if (!out[id]) out[id] = { success: false, message: 'Failed to delete activity.' };
    return out;
  });
}
