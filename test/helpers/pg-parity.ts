// Both engines side by side for the parity tests of ported repositories (test/pg/): a throwaway PostgreSQL migrated
// by the PostgreSQL engine, and a SQLite data dir opened by the storage layer, each holding the same two workspaces
// with one API key each (k1 in w1, k2 in w2), so that repositories' scopes point at real rows on both.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Engine } from '../../server/db/engine.ts';
import { pgDialect } from '../../server/db/pg/dialect.ts';
import { createPgEngine, type PgEngine } from '../../server/db/pg/engine.ts';
import { openStorage, sqliteEngineOf, type Storage } from '../../server/db/repos/index.ts';
import type { SqliteEngine } from '../../server/db/storage.ts';
import { type TenantScope, tenantScope } from '../../server/db/scope.ts';
import { startPostgres, type ThrowawayPostgres } from './external-servers.ts';

export interface BothEngines {
  /** The SQLite storage (its repositories are the originals). */
  storage: Storage;
  /** Its engine (connections), for tests that read SQLite's tables directly. */
  sqlite: SqliteEngine;
  /** The PostgreSQL engine the ported repositories run on. */
  engine: PgEngine;
  /** The same engine as repositories written once for both engines see it (server/db/engine.ts). */
  pg: Engine;
  /** The scopes of the two API keys, the same on both engines. */
  k1: TenantScope;
  k2: TenantScope;
  /** Rows inserted on both engines with the same statement (`?` placeholders; PostgreSQL's are made from them). */
  insertBoth(statement: string, values: unknown[]): Promise<void>;
  /** Organizations on both engines, `[apiKeyId, organizationId]` each (named after their id, times fixed). */
  insertOrganizations(keysAndIds: ReadonlyArray<readonly [string, string]>): Promise<void>;
  close(): Promise<void>;
}

export async function bothEngines(): Promise<BothEngines> {
  const server: ThrowawayPostgres = await startPostgres();
  const dir = mkdtempSync(join(tmpdir(), 'hearth-parity-'));
  const engine = createPgEngine({ url: server.url });
  await engine.migrate();
  await openStorage(dir).close();
  const insertBoth = async (statement: string, values: unknown[]) => {
    const sqlite = new Database(join(dir, 'hearth.db'));
    try {
      sqlite.prepare(statement).run(...values.map((v) => (typeof v === 'boolean' ? Number(v) : v)));
    } finally {
      sqlite.close();
    }
    let n = 0;
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      await client.query(
        statement.replace(/\?/g, () => `$${++n}`),
        values,
      );
    } finally {
      await client.end();
    }
  };
  for (const [workspace, key] of [
    ['w1', 'k1'],
    ['w2', 'k2'],
  ]) {
    await insertBoth('INSERT INTO workspaces (id, name, owner_id, owner_email, auth_token_enc, auth_token_digest) VALUES (?, ?, ?, ?, ?, ?)', [
      workspace,
      'W',
      'owner',
      'o@x.test',
      'enc',
      `digest-${workspace}`,
    ]);
    await insertBoth('INSERT INTO api_keys (id, workspace_id, name, type, owner_email, allowed_domains, settings) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      key,
      workspace,
      'K',
      'testing',
      'o@x.test',
      '[]',
      '{}',
    ]);
  }
  const storage = openStorage(dir);
  return {
    storage,
    sqlite: sqliteEngineOf(storage),
    engine,
    pg: pgDialect(engine),
    k1: tenantScope('k1', 'w1'),
    k2: tenantScope('k2', 'w2'),
    insertBoth,
    async insertOrganizations(keysAndIds) {
      for (const [key, id] of keysAndIds)
        await insertBoth('INSERT INTO organizations (api_key_id, id, name, disabled, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
          key,
          id,
          id,
          false,
          '{}',
          1,
          1,
        ]);
    },
    async close() {
      await storage.close();
      await engine.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs `script` on the SQLite repository, then on its PostgreSQL port (or the one written once, over each engine),
 * and returns what each step answered.
 */
export async function onBoth<R>(original: R, port: R, script: (repo: R) => Promise<unknown[]>): Promise<{ sqlite: unknown[]; pg: unknown[] }> {
  return { sqlite: await script(original), pg: await script(port) };
}

/** Values as SQLite stores them (booleans 0/1, JSON as its text, bigint as numbers), for PostgreSQL's rows. */
export const AS_SQLITE_TYPES = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === 16) return (v: string) => (v === 't' ? 1 : 0);
    if (oid === 114) return (v: string) => v;
    if (oid === 20) return Number;
    return pg.types.getTypeParser(oid, format as 'text');
  }) as typeof pg.types.getTypeParser,
};

/** A row with its columns in name order, so that rows compare whatever order an engine answers columns in. */
export const keysSorted = <R extends Record<string, unknown>>(row: R): R => Object.fromEntries(Object.entries(row).sort(([a], [b]) => (a < b ? -1 : 1))) as R;

/** A row as text, its columns in name order. */
export const canonicalRow = (row: Record<string, unknown>): string => JSON.stringify(keysSorted(row));

/** Rows in one order whatever order an engine answered them in (its plan's index order, or its primary key's). */
export const sortedRows = <R extends Record<string, unknown>>(rows: R[]): R[] =>
  rows
    .map(canonicalRow)
    .sort()
    .map((text) => JSON.parse(text) as R);
