// What `hearth seed` asks of the storage, on PostgreSQL: the same repository as ../../repos/seed.ts (its type is the
// contract; test/pg/seed.test.ts runs both on the same calls and compares every answer and every table).
//
// What differs, and why:
// - `presentOrganization` answers the smallest id of those present, as SQLite's plan does (it seeks the primary key
//   for each id of the list in sorted order); here the order is written.
// - The bulk load. SQLite's writer runs each row's insert at once and commits every `batchRows` rows; PostgreSQL's
//   statements are awaited, and the writer's calls are synchronous (the seed's generator calls them row by row). So
//   here the rows are taken synchronously and kept; every `batchRows` rows make a batch, written as a unit of work
//   of its own (multi-row inserts, in the order given) one after the other in the background, as soon as the
//   event loop turns. `commit()` and `finish()` return the promise of every batch taken so far being written (the
//   type says `void`: a caller that awaits them works on both engines, and must, here); a batch PostgreSQL refuses
//   rejects them, is written not at all (its unit of work rolls back, as SQLite's open batch), no later batch is
//   written, and until `rollback()` every row handed to the writer throws the error. `rollback()` drops the rows
//   not yet in a batch and waits for the batches already taken (what they wrote stays, as what SQLite committed
//   stays), without throwing their error again; the writer then takes rows again, as SQLite's does. `rows()`
//   counts the rows taken (SQLite's, the rows its inserts ran: after a refusal the two differ). `finish()` has no
//   WAL to checkpoint: it ANALYZEs the tables written instead, so that the planner knows their new sizes at once
//   (autovacuum would, later).
//   While the generator runs without awaiting, nothing reaches PostgreSQL and every row is held in memory: a large
//   set needs a generator that awaits the writer between batches for the memory to stay bounded.
import { eq, getTableColumns, getTableName } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { BulkLoad, BulkRow, BulkTable } from '../../bulk.ts';
import type { ApiKeyRow, seedRepo } from '../../repos/seed.ts';
import type { PgDb, PgEngine } from '../engine.ts';
import { pgTableFor, pgTables } from '../schema.ts';

export type SeedRepo = ReturnType<typeof seedRepo>;

const { table: apiKeys, c: k } = pgTableFor('apiKeys');
const { table: webhookConfigs, c: wc } = pgTableFor('webhookConfigs');

/** PostgreSQL's multi-row inserts stay below its 65,535 parameters. */
const MAX_PARAMETERS = 60_000;

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** One table's inserter: its SQL name and the columns its first row named. */
interface Target {
  table: string;
  columns: Array<[string, PgColumn]>;
}
interface Insert {
  target: Target;
  values: unknown[];
}

/** Writes a batch in its order: consecutive rows of one inserter as multi-row inserts. */
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

function openBulkLoadPg(engine: PgEngine, batchRows: number): BulkLoad {
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
        await engine.write((db) => writeBatch(db, batch));
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
      const table = pgTables[name];
      if (!table) throw new Error(`bulk load: no PostgreSQL table ${name}`);
      const columns = Object.entries(getTableColumns(table)) as Array<[string, PgColumn]>;
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
      if (tables.size > 0) await engine.write((db) => db.$client.query(`ANALYZE ${[...tables].map(quote).join(', ')}`));
    },
  };
}

export function seedRepoPg(engine: PgEngine): SeedRepo {
  return {
    apiKey: (apiKeyId) => engine.read(async (db) => (await db.select().from(apiKeys).where(eq(k.id, apiKeyId)).limit(1))[0] as ApiKeyRow | undefined),

    presentOrganization: (scope, organizationIds) =>
      engine.read(async (db) => {
        const { rows } = await db.$client.query<{ id: string }>(
          'SELECT id FROM organizations WHERE api_key_id = $1 AND id = ANY($2::text[]) ORDER BY id LIMIT 1',
          [scope.apiKeyId, organizationIds],
        );
        return rows[0]?.id;
      }),

    webhookConfig: (scope) =>
      engine.read(
        async (db) =>
          (await db.select({ isEnabled: wc.isEnabled }).from(webhookConfigs).where(eq(wc.apiKeyId, scope.apiKeyId)).limit(1))[0] as
            | { isEnabled: boolean }
            | undefined,
      ),

    openBulkLoad: (options) => openBulkLoadPg(engine, options.batchRows),

    remove: (scope, set) =>
      engine.write(async (db) => {
        const apiKeyId = scope.apiKeyId;
        const { organizationIds, userIds } = set;
        // organizations cascade to everything in them; CRDT documents and users are keyed by the API key only
        await db.$client.query('DELETE FROM crdt_documents WHERE api_key_id = $1 AND organization_id = ANY($2::text[])', [apiKeyId, organizationIds]);
        await db.$client.query('DELETE FROM organizations WHERE api_key_id = $1 AND id = ANY($2::text[])', [apiKeyId, organizationIds]);
        await db.$client.query('DELETE FROM users WHERE api_key_id = $1 AND id = ANY($2::text[])', [apiKeyId, userIds]);
        if (set.webhookEndpointIds.length > 0)
          await db.$client.query('DELETE FROM webhook_endpoints WHERE api_key_id = $1 AND id = ANY($2::text[])', [apiKeyId, set.webhookEndpointIds]);
        if (set.webhookConfigCreated) await db.delete(webhookConfigs).where(eq(wc.apiKeyId, apiKeyId));
      }),
  };
}
