// The PostgreSQL schema is made from the one schema source (server/db/pg/schema.ts): every table, column, key and
// index has its counterpart, drizzle-kit sees every table, and the committed migrations of both dialects are what
// drizzle-kit generates from the schema as it stands (a schema change without its migration fails here). The one
// intended differences are checked as such: the PostgreSQL-only insertion-order column of the tables SQLite orders by
// rowid (on those tables, and on no other, one column more, exactly as the rule makes it), and the
// PostgreSQL-only tables, attachment_blobs (recordings' attachment bytes, which SQLite keeps as files) and cluster_identity.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { getTableColumns, is } from 'drizzle-orm';
import { getTableConfig as pgConfig } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { afterAll, describe, expect, it } from 'vitest';
import { webhookAttempts, webhookDeliveries } from '../../server/db/delivery-schema.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { attachmentBlobs, clusterIdentity, INSERTION_ORDER_COLUMN, INSERTION_ORDER_TABLES, pgTables } from '../../server/db/pg/schema.ts';
import * as entry from '../../server/db/pg/tables.ts';
import * as source from '../../server/db/schema.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'hearth-schema-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const sourceTables: Array<[string, SQLiteTable]> = [
  ...(Object.entries(source) as Array<[string, unknown]>).filter((e): e is [string, SQLiteTable] => is(e[1], SQLiteTable)),
  ['webhookDeliveries', webhookDeliveries],
  ['webhookAttempts', webhookAttempts],
];

const PG_TYPE: Record<string, string> = {
  SQLiteText: 'PgText',
  SQLiteTextJson: 'PgJson',
  SQLiteInteger: 'PgBigInt53',
  SQLiteBoolean: 'PgBoolean',
  SQLiteBlobBuffer: 'PgCustomColumn',
};

describe('the PostgreSQL schema', () => {
  it('has every table of the source, and drizzle-kit’s entry exports each one, and the PostgreSQL-only tables', () => {
    expect(Object.keys(pgTables).sort()).toEqual(sourceTables.map(([name]) => name).sort());
    // the second intended difference: recordings' attachment bytes, files of the data dir on SQLite; and the cluster's
    // identity (issue 42), which SQLite, one process, has no use for
    expect(Object.keys(entry).sort()).toEqual([...Object.keys(pgTables), 'attachmentBlobs', 'clusterIdentity'].sort());
    expect(entry.attachmentBlobs).toBe(attachmentBlobs);
    expect(entry.clusterIdentity).toBe(clusterIdentity);
    expect(Object.keys(source)).not.toContain('attachmentBlobs');
    expect(Object.keys(source)).not.toContain('clusterIdentity');
    for (const [name, table] of Object.entries(pgTables)) expect((entry as Record<string, unknown>)[name]).toBe(table);
  });

  it('has each table’s columns with their types, nullability and defaults, its keys and its indexes', () => {
    for (const [name, table] of sourceTables) {
      const from = sqliteConfig(table);
      const to = pgConfig(pgTables[name]!);
      expect(to.name).toBe(from.name);
      const columns = (t: Record<string, { name: string; columnType: string; notNull: boolean; hasDefault: boolean; primary: boolean }>) =>
        Object.values(t).map((c) => ({ name: c.name, notNull: c.notNull, hasDefault: c.hasDefault, primary: c.primary }));
      const toColumns = columns(getTableColumns(pgTables[name]!) as never);
      const expected = columns(getTableColumns(table) as never);
      // the intended difference: the insertion order, last, on exactly the tables the rule names
      if (INSERTION_ORDER_TABLES.has(from.name)) expected.push({ name: INSERTION_ORDER_COLUMN, notNull: true, hasDefault: true, primary: false });
      expect(toColumns, from.name).toEqual(expected);
      for (const column of from.columns) {
        expect(to.columns.find((c) => c.name === column.name)?.columnType, `${from.name}.${column.name}`).toBe(PG_TYPE[column.columnType]);
      }
      expect(to.primaryKeys.map((k) => k.columns.map((c) => c.name))).toEqual(from.primaryKeys.map((k) => k.columns.map((c) => c.name)));
      const targets = (fks: Array<{ reference(): { columns: Array<{ name: string }>; foreignColumns: Array<{ name: string }> } }>) =>
        fks.map((k) => JSON.stringify([k.reference().columns.map((c) => c.name), k.reference().foreignColumns.map((c) => c.name)])).sort();
      expect(targets(to.foreignKeys), from.name).toEqual(targets(from.foreignKeys));
      const indexes = (list: Array<{ config: { name: string; unique: boolean; where?: unknown; columns: unknown[] } }>) =>
        list
          .map((i) => ({ name: i.config.name, unique: i.config.unique, partial: i.config.where !== undefined, parts: i.config.columns.length }))
          .sort((a, b) => a.name.localeCompare(b.name));
      expect(indexes(to.indexes as never), from.name).toEqual(indexes(from.indexes as never));
    }
  });
});

/** `drizzle-kit generate` against a copy of a dialect's committed migrations: what it prints. */
function generateInto(dialect: 'sqlite' | 'postgresql', schema: string, migrations: string): Promise<string> {
  // drizzle-kit takes its folders relative to the working directory
  const out = relative(ROOT, join(scratch, dialect));
  cpSync(join(ROOT, migrations), join(ROOT, out), { recursive: true });
  const config = join(scratch, `${dialect}.config.json`);
  writeFileSync(config, JSON.stringify({ dialect, schema: `./${schema}`, out }));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(ROOT, 'node_modules', 'drizzle-kit', 'bin.cjs'), 'generate', '--config', config],
      { cwd: ROOT },
      (error, stdout, stderr) => (error ? reject(new Error(`${stdout}\n${stderr}`)) : resolve(stdout + stderr)),
    );
  });
}

describe('the PostgreSQL-only insertion order', () => {
  it('is a bigint numbered by the database (GENERATED ALWAYS AS IDENTITY), in no key and no index', () => {
    expect(INSERTION_ORDER_TABLES.size).toBeGreaterThan(0);
    for (const name of INSERTION_ORDER_TABLES) {
      const table = Object.values(pgTables).find((t) => pgConfig(t).name === name);
      expect(table, name).toBeDefined();
      const config = pgConfig(table!);
      const column = config.columns.find((c) => c.name === INSERTION_ORDER_COLUMN);
      expect(column?.columnType, name).toBe('PgBigInt53');
      expect(column?.generatedIdentity?.type, name).toBe('always');
      const named = (list: Array<{ name: string }>) => list.some((c) => c.name === INSERTION_ORDER_COLUMN);
      expect(config.primaryKeys.some((k) => named(k.columns)) || config.foreignKeys.some((k) => named(k.reference().columns))).toBe(false);
    }
  });

  it('is on exactly the tables whose rows a repository orders by insertion', () => {
    // engine.insertionOrder('<table>') in server/db/repos/ (rowid on SQLite, the insertion-order column on
    // PostgreSQL), and no rowid order written by hand after a createdAt, which PostgreSQL could not follow
    const dir = join(ROOT, 'server', 'db', 'repos');
    const ordered = new Set<string>();
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const match of text.matchAll(/insertionOrder\('(\w+)'\)/g)) ordered.add(match[1]!);
      expect(text, file).not.toMatch(/createdAt\),\s*sql`[^`]*rowid/);
    }
    expect(ordered.size).toBeGreaterThan(0);
    const tables = [...ordered].map((key) => sqliteConfig((source as unknown as Record<string, SQLiteTable>)[key]!).name).sort();
    expect(tables).toEqual([...INSERTION_ORDER_TABLES].sort());
  });
});

describe('the PostgreSQL names', () => {
  it('fit in 63 characters, and no two collide (PostgreSQL would cut them alike)', () => {
    const schemaWide: string[] = [];
    for (const table of Object.values(pgTables)) {
      const config = pgConfig(table);
      const perTable = [...config.primaryKeys.map((k) => k.getName()), ...config.foreignKeys.map((k) => k.getName())];
      for (const name of [...perTable, ...config.indexes.map((i) => i.config.name!)]) expect(name.length, name).toBeLessThanOrEqual(63);
      expect(new Set(perTable).size, config.name).toBe(perTable.length);
      schemaWide.push(...config.primaryKeys.map((k) => k.getName()), ...config.indexes.map((i) => i.config.name!));
    }
    expect(new Set(schemaWide).size).toBe(schemaWide.length);
  });
});

describe('the committed migrations', () => {
  it('are what drizzle-kit generates from the schema, for SQLite and for PostgreSQL', async () => {
    expect(await generateInto('sqlite', 'server/db/schema.ts', 'server/db/migrations')).toContain('No schema changes');
    expect(await generateInto('postgresql', 'server/db/pg/tables.ts', 'server/db/pg/migrations')).toContain('No schema changes');
  }, 60_000);
});
