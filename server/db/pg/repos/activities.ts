// The key's activity records on PostgreSQL: the same repository as ../../repos/activities.ts (its type is the
// contract; test/pg/activities.test.ts runs both on the same calls and compares).
import { and, asc, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { ActivitiesRepo, ActivityRow } from '../../repos/activities.ts';
import type { PgEngine } from '../engine.ts';
import { keysetAfterPg } from '../pagination.ts';
import { pgTableFor } from '../schema.ts';

const { table: activities, c } = pgTableFor('activities');

const KEY = ['apiKeyId', 'organizationId', 'id'] as const;
/** On a taken id, every column but the key takes the new record's value (SQLite's upsert of rowInserter). */
const overwrite = Object.fromEntries(
  Object.entries(c)
    .filter(([key]) => !(KEY as readonly string[]).includes(key))
    .map(([key, column]) => [key, sql.raw(`excluded."${column.name}"`)]),
);

const own = (apiKeyId: string, organizationId: string, id: string) => and(eq(c.apiKeyId, apiKeyId), eq(c.organizationId, organizationId), eq(c.id, id));

export function activitiesRepoPg(engine: PgEngine): ActivitiesRepo {
  return {
    upsert: (scope, rows) =>
      engine.write(async (db) => {
        if (rows.length === 0) return;
        // one statement; a later record with the same id overwrites an earlier one, as the SQLite loop does (a
        // statement may not update one row twice, and the last record decides every column, so it alone is written)
        const last = new Map<string, Omit<ActivityRow, 'apiKeyId'>>();
        for (const row of rows) {
          last.delete(`${row.organizationId}\u0000${row.id}`);
          last.set(`${row.organizationId}\u0000${row.id}`, row);
        }
        await db
          .insert(activities)
          .values([...last.values()].map((row) => ({ ...row, apiKeyId: scope.apiKeyId })) as never)
          .onConflictDoUpdate({ target: KEY.map((key) => c[key]), set: overwrite as never });
      }),

    page: (scope, f, after, limit) =>
      engine.read(async (db) => {
        const descending = f.order === 'desc';
        const conditions: (SQL | undefined)[] = [eq(c.apiKeyId, scope.apiKeyId), eq(c.organizationId, f.organizationId)];
        conditions.push(keysetAfterPg(c.timestamp, c.id, after, descending));
        if (f.documentId) conditions.push(eq(c.documentId, f.documentId));
        if (f.targetEntityId) conditions.push(eq(c.targetEntityId, f.targetEntityId));
        if (f.userId) conditions.push(eq(c.actionUserId, f.userId));
        if (f.featureTypes?.length) conditions.push(inArray(c.featureType, [...f.featureTypes]));
        if (f.actionTypes?.length) conditions.push(inArray(c.actionType, [...f.actionTypes]));
        if (f.activityIds?.length) conditions.push(inArray(c.id, [...f.activityIds]));
        const direction = descending ? desc : asc;
        return (await db
          .select()
          .from(activities)
          .where(and(...conditions))
          .orderBy(direction(c.timestamp), direction(c.id))
          .limit(limit)) as ActivityRow[];
      }),

    update: (scope, organizationId, changes) =>
      engine.write(async (db) => {
        const found: boolean[] = [];
        for (const { id, set } of changes) {
          const where = own(scope.apiKeyId, organizationId, id);
          if (Object.keys(set).length > 0)
            found.push(
              ((
                await db
                  .update(activities)
                  .set(set as never)
                  .where(where)
              ).rowCount ?? 0) > 0,
            );
          else found.push((await db.select({ id: c.id }).from(activities).where(where).limit(1)).length > 0);
        }
        return found;
      }),

    delete: (scope, filters) =>
      engine.write(async (db) => {
        const conditions: SQL[] = [eq(c.apiKeyId, scope.apiKeyId), eq(c.organizationId, filters.organizationId)];
        if (filters.documentId) conditions.push(eq(c.documentId, filters.documentId));
        if (filters.targetEntityId) conditions.push(eq(c.targetEntityId, filters.targetEntityId));
        if (filters.activityIds) conditions.push(inArray(c.id, filters.activityIds));
        // SQLite answers the ids in the order its plan reads them: by (timestamp, id) on the index of a document or
        // target filter, else by id on the primary key; RETURNING has no order, so they are sorted the same way
        const byTime = Boolean(filters.documentId || filters.targetEntityId);
        const deleted = (await db
          .delete(activities)
          .where(and(...conditions))
          .returning({ id: c.id, timestamp: c.timestamp })) as Array<{ id: string; timestamp: number }>;
        return deleted.sort((x, y) => (byTime ? x.timestamp - y.timestamp : 0) || Buffer.compare(Buffer.from(x.id), Buffer.from(y.id))).map((r) => r.id);
      }),
  };
}
