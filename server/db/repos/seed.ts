// What `hearth seed` asks of the storage besides the services it goes through (default credentials, webhook
// configuration and endpoints): the key to fill, whether its demo set is there already, a bulk load of the set's rows
// (db/bulk.ts), and the undoing of a seed that failed. Written once for both engines (issue 43, docs/storage.md "One
// storage code"); test/pg/seed.test.ts runs it over each engine on the same calls and compares every answer and every
// table.
//
// What differs between the engines, and why:
// - `presentOrganization` answers the smallest id of those present: SQLite's plan did without being asked (it seeks
//   the primary key for each id of the list in sorted order); the order is written, so PostgreSQL answers the same.
// - The bulk load (`openBulkLoad`, one `engine.kind` branch). Its writer's calls are synchronous (the seed's generator
//   calls them row by row, a million rows for the large set), and SQLite's is kept as it was, for its speed: db/bulk.ts
//   runs each row's insert at once on the main connection (one statement prepared per table) and commits every
//   `batchRows` rows. PostgreSQL's statements are awaited, so there (`openPgBulkLoad`) the rows are taken
//   synchronously and kept; every `batchRows` rows make a batch, written as a unit of work of its own (multi-row
//   inserts, in the order given) one after the other in the background, as soon as the event loop turns. `commit()`
//   and `finish()` return the promise of every batch taken so far being written (the type says `void`: a caller that
//   awaits them works on both engines, and must, there); a batch PostgreSQL refuses rejects them, is written not at
//   all (its unit of work rolls back, as SQLite's open batch), no later batch is written, and until `rollback()` every
//   row handed to the writer throws the error. `rollback()` drops the rows not yet in a batch and waits for the
//   batches already taken (what they wrote stays, as what SQLite committed stays), without throwing their error
//   again; the writer then takes rows again, as SQLite's does. `rows()` counts the rows taken (SQLite's, the rows its
//   inserts ran: after a refusal the two differ). `finish()` has no WAL to checkpoint on PostgreSQL: it ANALYZEs the
//   tables written instead, so that the planner knows their new sizes at once (autovacuum would, later).
//   While the generator runs without awaiting, nothing reaches PostgreSQL and every row is held in memory: a large
//   set needs a generator that awaits the writer between batches for the memory to stay bounded.
import { and, eq, getTableColumns, getTableName, inArray, type Column } from 'drizzle-orm';
import { openBulkLoad, type BulkLoad, type BulkRow, type BulkTable } from '../bulk.ts';
import type { Engine } from '../engine.ts';
import type { PgDb } from '../pg/engine.ts';
import type { apiKeys } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

export type { BulkLoad, BulkRow, BulkTable, BulkWriter } from '../bulk.ts';
export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** What a seed wrote, to undo it. */
export interface SeedWrites {
  organizationIds: string[];
  userIds: string[];
  webhookEndpointIds: string[];
  /** The seed made the key's advanced webhook configuration (it had none). */
  webhookConfigCreated: boolean;
}

/** PostgreSQL's multi-row inserts stay below its 65,535 parameters. */
const MAX_PARAMETERS = 60_000;

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** One table's inserter on PostgreSQL: its SQL name and the columns its first row named. */
interface Target {
  table: string;
  columns: Array<[string, Column]>;
}
interface Insert {
  target: Target;
  values: unknown[];
}

/** Writes a batch in its order on PostgreSQL: consecutive rows of one inserter as multi-row inserts. */
async function writeBatch(db: PgDb, batch: readonly Insert[]) {
  for (let i = 0; i < batch.length; ) {
    const { target } = batch[i] as Insert;
    const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / Math.max(1, target.columns.length)));
    let j = i;
    while (j < batch.length && j - i < perStatement && batch[j]?.target === target) j++;
    const values: unknown[] = [];
    const tuples = batch.slice(i, j).map((insert) => `(${insert.values.map((v) => `$${values.push(v)}`).join(', ')})`);
    await db.$client.query(
      `INSERT INTO ${quote(target.table)} (${target.columns.map(([, c]) => quote(c.name)).join(', ')}) VALUES ${tuples.join(', ')}`,
      values,
    );
    i = j;
  }
}

/** PostgreSQL's bulk load: rows taken synchronously, written in background batches (see above). */
function openPgBulkLoad(engine: Engine, batchRows: number): BulkLoad {
  let open: Insert[] = [];
  let total = 0;
  let failure: { error: unknown } | undefined;
  /** The batches taken, written one after the other; settles when the last one taken is written (or one failed). */
  let written: Promise<void> = Promise.resolve();
  const tables = new Set<string>();

  const take = () => {
    if (open.length === 0) return;
    const batch = open;
    open = [];
    written = written.then(async () => {
      if (failure) return;
      try {
        await engine.write((db) => writeBatch(db as unknown as PgDb, batch));
      } catch (error) {
        failure = { error };
      }
    });
  };
  /** Every batch taken, written; rejects with the first refusal. */
  const settled = async () => {
    await written;
    if (failure) throw failure.error;
  };

  return {
    into<T extends BulkTable>(name: T) {
      // PostgreSQL's table, converted from the source's with its property names (its columns map values to pg's)
      const table = engine.t[name];
      if (!table) throw new Error(`bulk load: no PostgreSQL table ${name}`);
      const columns = Object.entries(getTableColumns(table)) as Array<[string, Column]>;
      let target: Target | undefined;
      return (row: BulkRow<T>) => {
        if (failure) throw failure.error;
        const values = row as Record<string, unknown>;
        target ??= { table: getTableName(table), columns: columns.filter(([key]) => values[key] !== undefined) };
        tables.add(target.table);
        open.push({
          target,
          values: target.columns.map(([key, column]) => {
            const value = values[key];
            return value === null || value === undefined ? null : column.mapToDriverValue(value);
          }),
        });
        total++;
        if (open.length >= batchRows) take();
      };
    },
    // promises where BulkLoad says void (a function answering a promise is one answering void): see above
    commit: () => {
      take();
      return settled();
    },
    rollback: async () => {
      open = [];
      await written;
      failure = undefined;
    },
    rows: () => total,
    finish: async () => {
      take();
      await settled();
      if (tables.size > 0) await engine.write((db) => (db as unknown as PgDb).$client.query(`ANALYZE ${[...tables].map(quote).join(', ')}`));
    },
  };
}

/**
 * The seed's repository over `engine`. `sqlite`: SQLite's engine, whose main connection the bulk load writes on
 * (db/bulk.ts); nothing on PostgreSQL.
 */
export function seedRepo(engine: Engine, sqlite?: SqliteEngine) {
  const t = engine.t;
  return {
    /** The API key an operator named (the seed's target), or undefined. */
    apiKey: (apiKeyId: string) =>
      engine.read(async (db): Promise<ApiKeyRow | undefined> => (await db.select().from(t.apiKeys).where(eq(t.apiKeys.id, apiKeyId)).limit(1))[0]),

    /** The first of these organizations the key holds already, or undefined. */
    presentOrganization: (scope: TenantScope, organizationIds: string[]) =>
      engine.read(
        async (db) =>
          (
            await db
              .select({ id: t.organizations.id })
              .from(t.organizations)
              .where(and(eq(t.organizations.apiKeyId, scope.apiKeyId), inArray(t.organizations.id, organizationIds)))
              .orderBy(t.organizations.id)
              .limit(1)
          )[0]?.id,
      ),

    /** Whether the key's advanced webhooks are on, off, or not configured. */
    webhookConfig: (scope: TenantScope) =>
      engine.read(
        async (db) =>
          (await db.select({ isEnabled: t.webhookConfigs.isEnabled }).from(t.webhookConfigs).where(eq(t.webhookConfigs.apiKeyId, scope.apiKeyId)).limit(1))[0],
      ),

    /**
     * A bulk load of rows on the main connection (no server may run on the data dir meanwhile): db/bulk.ts. On
     * PostgreSQL, in background batches whose `commit`, `finish` and `rollback` answer promises, to await (above).
     */
    openBulkLoad: (options: { batchRows: number }): BulkLoad => {
      // SQLite's writer is kept as it was (its per-row prepared inserts are the seed's speed); PostgreSQL's batches
      // its rows into multi-row inserts awaited in the background (see the header)
      if (engine.kind === 'postgres') return openPgBulkLoad(engine, options.batchRows);
      if (!sqlite) throw new Error("the seed's bulk load on SQLite needs SQLite's engine (seedRepo's second argument)");
      return openBulkLoad(sqlite, options.batchRows);
    },

    /** Deletes what a failed seed committed: its organizations (and by cascade everything in them), CRDT documents, users, endpoints and configuration. */
    remove: (scope: TenantScope, set: SeedWrites) =>
      engine.write(async (db) => {
        const apiKeyId = scope.apiKeyId;
        const { organizationIds, userIds } = set;
        // organizations cascade to everything in them; CRDT documents and users are keyed by the API key only
        await db.delete(t.crdtDocuments).where(and(eq(t.crdtDocuments.apiKeyId, apiKeyId), inArray(t.crdtDocuments.organizationId, organizationIds)));
        await db.delete(t.organizations).where(and(eq(t.organizations.apiKeyId, apiKeyId), inArray(t.organizations.id, organizationIds)));
        for (let i = 0; i < userIds.length; i += 500)
          await db.delete(t.users).where(and(eq(t.users.apiKeyId, apiKeyId), inArray(t.users.id, userIds.slice(i, i + 500))));
        if (set.webhookEndpointIds.length > 0)
          await db.delete(t.webhookEndpoints).where(and(eq(t.webhookEndpoints.apiKeyId, apiKeyId), inArray(t.webhookEndpoints.id, set.webhookEndpointIds)));
        if (set.webhookConfigCreated) await db.delete(t.webhookConfigs).where(eq(t.webhookConfigs.apiKeyId, apiKeyId));
      }),
  };
}
