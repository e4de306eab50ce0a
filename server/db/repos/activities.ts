// Activity records (the feed's log of what happened): written by activities/add and by every area that records its
// changes, read by activities/get one filter shape at a time over the index that leads with each filter. Written once
// for both engines (engine.ts; test/pg/activities.test.ts runs it on both and compares every answer).
import { and, asc, desc, eq, inArray, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { byCodePoint, type Engine, type Placeholders, type Prepared, type Q } from '../engine.ts';
import { keysetAfter } from '../pagination.ts';
import { listValues } from '../prepared.ts';
import type { activities } from '../schema.ts';
import type { TenantScope } from '../scope.ts';

export type ActivityRow = typeof activities.$inferSelect;
/** What a change to activities/update may set. */
export type ActivityChange = Partial<
  Pick<ActivityRow, 'changes' | 'entityData' | 'entityTargetData' | 'displayMessageTemplate' | 'displayMessageTemplateData' | 'actionIcon'>
>;

/** The filters of an activities page: which are present, and how many values each list filter has. */
type PageShape = `${'<' | '>'}${'' | '+after'}${'' | '+document'}${'' | '+target'}${'' | '+user'}:${number}:${number}:${number}`;

/**
 * How many page shapes get a prepared statement of their own. The shapes are finite but many (list filters of up to
 * 100 values); past this many, a new shape is built per call with its values, so that neither engine keeps statements
 * without bound (PostgreSQL keeps each named statement on each pooled connection).
 */
const MAX_SHAPES = 256;

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

/** The key's activity records. */
export function activitiesRepo(engine: Engine) {
  const { activities: a } = engine.t;
  const columns = Object.entries(engine.columns(a));
  const key = [a.apiKeyId, a.organizationId, a.id];
  /** On a taken id, every column but the key takes the new record's value. */
  const overwrite: Partial<Record<keyof ActivityRow, SQL>> = Object.fromEntries(
    columns.filter(([name]) => !['apiKeyId', 'organizationId', 'id'].includes(name)).map(([name, column]) => [name, sql.raw(`excluded."${column.name}"`)]),
  );

  /**
   * One record written, with a statement prepared once per connection (every area records its changes with one).
   * Its values are the columns' driver values, each given as is (`sql` around the placeholder): drizzle's placeholder
   * in an insert would encode a null through its column too, and a null JSON would be stored as the text `null`.
   */
  const upsertOne = engine.prepare('activities.upsertOne', (db) =>
    db
      .insert(a)
      .values(Object.fromEntries(columns.map(([name]) => [name, sql`${sql.placeholder(name)}`])) as Record<keyof ActivityRow, SQL>)
      .onConflictDoUpdate({ target: key, set: overwrite }),
  );
  const driverValues = (row: ActivityRow): Placeholders =>
    Object.fromEntries(
      columns.map(([name, column]) => {
        const value = (row as Record<string, unknown>)[name];
        return [name, value === null || value === undefined ? null : column.mapToDriverValue(value)];
      }),
    );

  /**
   * The activities page of one filter shape (`value` gives a placeholder, or the value itself for a shape built per
   * call): a value per list element (`in (?, ?)` keeps an index's order for a single feature type, where one list
   * parameter would not).
   */
  const pageOf = (db: Q, shape: PageShape, value: (name: string) => Placeholder) => {
    const [flags, features, actions, ids] = shape.split(':') as [string, string, string, string];
    const descending = flags.startsWith('<');
    const list = (prefix: string, count: string) => Array.from({ length: Number(count) }, (_, i) => value(`${prefix}${i}`));
    const conditions: (SQL | undefined)[] = [eq(a.apiKeyId, value('apiKeyId')), eq(a.organizationId, value('organizationId'))];
    if (flags.includes('+after')) conditions.push(keysetAfter(a.timestamp, a.id, [value('afterTimestamp'), value('afterId')], descending));
    if (flags.includes('+document')) conditions.push(eq(a.documentId, value('documentId')));
    if (flags.includes('+target')) conditions.push(eq(a.targetEntityId, value('targetEntityId')));
    if (flags.includes('+user')) conditions.push(eq(a.actionUserId, value('userId')));
    if (features !== '0') conditions.push(inArray(a.featureType, list('feature', features)));
    if (actions !== '0') conditions.push(inArray(a.actionType, list('action', actions)));
    if (ids !== '0') conditions.push(inArray(a.id, list('id', ids)));
    const direction = descending ? desc : asc;
    return db
      .select()
      .from(a)
      .where(and(...conditions))
      .orderBy(direction(a.timestamp), direction(a.id))
      .limit(value('limit'));
  };
  const pages = new Map<PageShape, Prepared<ActivityRow>>();

  /** The rows of one page: after `after` (timestamp, id) in the filters' order, at most `limit`. */
  async function page(db: Q, apiKeyId: string, f: ActivityFilters, after: readonly [number, string] | null, limit: number): Promise<ActivityRow[]> {
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
    let prepared = pages.get(shape);
    if (!prepared && pages.size < MAX_SHAPES)
      pages.set(shape, (prepared = engine.prepare(`activities.page${shape}`, (db) => pageOf(db, shape, (name) => sql.placeholder(name)))));
    if (prepared) return prepared.all(db, values);
    // a shape past MAX_SHAPES: the same statement with the values where its placeholders would be (drizzle binds either)
    return pageOf(db, shape, (name) => values[name] as Placeholder);
  }

  const own = (apiKeyId: string, organizationId: string, id: string) => and(eq(a.apiKeyId, apiKeyId), eq(a.organizationId, organizationId), eq(a.id, id));

  return {
    /** Writes the records (a record with an existing id overwrites it), in one step. */
    upsert: (scope: TenantScope, rows: ReadonlyArray<Omit<ActivityRow, 'apiKeyId'>>) =>
      engine.write(async (db) => {
        if (rows.length === 0) return;
        if (rows.length === 1) {
          await upsertOne.run(db, driverValues({ ...(rows[0] as Omit<ActivityRow, 'apiKeyId'>), apiKeyId: scope.apiKeyId }));
          return;
        }
        // several in one statement: a later record with the same id overwrites an earlier one, as writing them one
        // by one would (a statement may not update one row twice on PostgreSQL, and the last record decides every
        // column, so it alone is written)
        const last = new Map<string, Omit<ActivityRow, 'apiKeyId'>>();
        for (const row of rows) {
          last.delete(`${row.organizationId}\u0000${row.id}`);
          last.set(`${row.organizationId}\u0000${row.id}`, row);
        }
        await db
          .insert(a)
          .values([...last.values()].map((row) => ({ ...row, apiKeyId: scope.apiKeyId })))
          .onConflictDoUpdate({ target: key, set: overwrite });
      }),

    page: (scope: TenantScope, filters: ActivityFilters, after: readonly [number, string] | null, limit: number) =>
      engine.read((db) => page(db, scope.apiKeyId, filters, after, limit)),

    /** Applies each change to the record with its id; per id, whether the record exists (an empty change only looks). */
    update: (scope: TenantScope, organizationId: string, changes: ReadonlyArray<{ id: string; set: ActivityChange }>) =>
      engine.write(async (db) => {
        const found: boolean[] = [];
        for (const { id, set } of changes) {
          const where = own(scope.apiKeyId, organizationId, id);
          if (Object.keys(set).length > 0) found.push(engine.changed(await db.update(a).set(set).where(where)) > 0);
          else found.push((await db.select({ id: a.id }).from(a).where(where).limit(1)).length > 0);
        }
        return found;
      }),

    /**
     * Deletes the organization's records matching every filter given; the ids deleted, by (timestamp, id) when a
     * document or target filter is given (the order of its index), else by id (the primary key's).
     */
    delete: (
      scope: TenantScope,
      filters: { organizationId: string; documentId?: string | undefined; targetEntityId?: string | undefined; activityIds?: string[] | undefined },
    ) =>
      engine.write(async (db) => {
        const conditions: SQL[] = [eq(a.apiKeyId, scope.apiKeyId), eq(a.organizationId, filters.organizationId)];
        if (filters.documentId) conditions.push(eq(a.documentId, filters.documentId));
        if (filters.targetEntityId) conditions.push(eq(a.targetEntityId, filters.targetEntityId));
        if (filters.activityIds) conditions.push(inArray(a.id, filters.activityIds));
        // RETURNING: exactly the rows this statement deleted (a select before it could miss a row committed between
        // the two on PostgreSQL); it has no order, so they are sorted here, ids by code point as SQLite's BINARY
        const byTime = Boolean(filters.documentId || filters.targetEntityId);
        const deleted = await db
          .delete(a)
          .where(and(...conditions))
          .returning({ id: a.id, timestamp: a.timestamp });
        return deleted.sort((x, y) => (byTime ? x.timestamp - y.timestamp : 0) || byCodePoint(x.id, y.id)).map((r) => r.id);
      }),
  };
}

export type ActivitiesRepo = ReturnType<typeof activitiesRepo>;
