// Activity records (the feed's log of what happened): written by activities/add and by every area that records its
// changes, read by activities/get one filter shape at a time over the index that leads with each filter.
import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { keysetAfter } from '../pagination.ts';
import { compiledRows, listValues, placeholderList, rowInserter } from '../prepared.ts';
import { activities } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

export type ActivityRow = typeof activities.$inferSelect;
/** What a change to activities/update may set. */
export type ActivityChange = Partial<
  Pick<ActivityRow, 'changes' | 'entityData' | 'entityTargetData' | 'displayMessageTemplate' | 'displayMessageTemplateData' | 'actionIcon'>
>;

/** A given id overwrites the record with that id (every field but the key). */
const upsertActivity = rowInserter(activities, { upsertOn: [activities.apiKeyId, activities.organizationId, activities.id] });

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

export interface ActivityFilters {
  organizationId: string;
  documentId?: string | undefined;
  targetEntityId?: string | undefined;
  userId?: string | undefined;
  featureTypes?: readonly string[] | undefined;
  actionTypes?: readonly string[] | undefined;
  activityIds?: readonly string[] | undefined;
  order: 'asc' | 'desc';
}

/** The rows of one page: after `after` (timestamp, id) in the filters' order, at most `limit`. */
function page(db: Db, apiKeyId: string, f: ActivityFilters, after: readonly [number, string] | null, limit: number): ActivityRow[] {
  const shape: PageShape = `${f.order === 'desc' ? '<' : '>'}${after ? '+after' : ''}${f.documentId ? '+document' : ''}${f.targetEntityId ? '+target' : ''}${f.userId ? '+user' : ''}:${
    f.featureTypes?.length ?? 0
  }:${f.actionTypes?.length ?? 0}:${f.activityIds?.length ?? 0}`;
  const values: Record<string, unknown> = {
    apiKeyId,
    organizationId: f.organizationId,
    afterTimestamp: after?.[0],
    afterId: after?.[1],
    documentId: f.documentId,
    targetEntityId: f.targetEntityId,
    userId: f.userId,
    limit,
  };
  listValues(values, 'feature', f.featureTypes);
  listValues(values, 'action', f.actionTypes);
  listValues(values, 'id', f.activityIds);
  return pageQuery(db, shape, values);
}

const own = (apiKeyId: string, organizationId: string, id: string) =>
  and(eq(activities.apiKeyId, apiKeyId), eq(activities.organizationId, organizationId), eq(activities.id, id));

/** The key's activity records. */
export function activitiesRepo(engine: SqliteEngine) {
  return {
    /** Writes the records (a record with an existing id overwrites it), in one step. */
    upsert: (scope: TenantScope, rows: ReadonlyArray<Omit<ActivityRow, 'apiKeyId'>>) =>
      engine.write((db) => {
        for (const row of rows) upsertActivity(db, { ...row, apiKeyId: scope.apiKeyId });
      }),

    page: (scope: TenantScope, filters: ActivityFilters, after: readonly [number, string] | null, limit: number) =>
      engine.read((db) => page(db, scope.apiKeyId, filters, after, limit)),

    /** Applies each change to the record with its id; per id, whether the record exists (an empty change only looks). */
    update: (scope: TenantScope, organizationId: string, changes: ReadonlyArray<{ id: string; set: ActivityChange }>) =>
      engine.write((db) =>
        changes.map(({ id, set }) => {
          const where = own(scope.apiKeyId, organizationId, id);
          const found = db.select({ id: activities.id }).from(activities).where(where).get() !== undefined;
          if (found && Object.keys(set).length > 0) db.update(activities).set(set).where(where).run();
          return found;
        }),
      ),

    /** Deletes the organization's records matching every filter given; the ids deleted. */
    delete: (
      scope: TenantScope,
      filters: { organizationId: string; documentId?: string | undefined; targetEntityId?: string | undefined; activityIds?: string[] | undefined },
    ) =>
      engine.write((db) => {
        const conditions: SQL[] = [eq(activities.apiKeyId, scope.apiKeyId), eq(activities.organizationId, filters.organizationId)];
        if (filters.documentId) conditions.push(eq(activities.documentId, filters.documentId));
        if (filters.targetEntityId) conditions.push(eq(activities.targetEntityId, filters.targetEntityId));
        if (filters.activityIds) conditions.push(inArray(activities.id, filters.activityIds));
        const ids = db
          .select({ id: activities.id })
          .from(activities)
          .where(and(...conditions))
          .all()
          .map((r) => r.id);
        db.delete(activities)
          .where(and(...conditions))
          .run();
        return ids;
      }),
  };
}

export type ActivitiesRepo = ReturnType<typeof activitiesRepo>;
