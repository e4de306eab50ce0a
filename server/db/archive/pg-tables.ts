// What the PostgreSQL archive reader and writer (pg-source.ts, pg-target.ts) share: the PostgreSQL tables by SQL
// name (converted from the one schema source, ../pg/schema.ts), values as SQLite stores them, a connection of the
// tools' own, and where a database stands against this build's migrations.
//
// Values. The archive's conversions (values.ts) speak SQLite's forms: booleans as 0/1, JSON as its text, integers
// as numbers, blobs as Buffers. Rows are read in those forms here (a `json` column's text as PostgreSQL keeps it,
// byte for byte; not parsed), and written from them (0/1 to a boolean; JSON text into `json`, which keeps it as
// written), so the tooling sees the same rows from either engine.
import { getTableColumns, getTableName } from 'drizzle-orm';
import { getTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { createPgEngine } from '../pg/engine.ts';
import { pgTables } from '../pg/schema.ts';

const OID_BOOL = 16;
const OID_JSON = 114;
const OID_INT8 = 20;

/** Type parsers that answer values as SQLite stores them: booleans as 0/1, JSON as its text, bigint as a number (bytea is a Buffer already). */
export const sqliteForms = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === OID_BOOL) return (v: string) => (v === 't' ? 1 : 0);
    if (oid === OID_JSON) return (v: string) => v;
    if (oid === OID_INT8) return Number;
    return pg.types.getTypeParser(oid, format as 'text');
  }) as typeof pg.types.getTypeParser,
};

export const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** What the archive needs of a PostgreSQL table. */
export interface PgTableFacts {
  name: string;
  /** Boolean columns (SQLite's 0/1 become true/false on the way in). */
  booleans: Set<string>;
  /** The identity column (SQLite's integer primary key), if any. */
  identity: string | undefined;
  /** The order rows are read in: the identity (SQLite's rowid order, which it is), else the primary key. */
  order: string[];
}

function factsOf(table: PgTable): PgTableFacts {
  const columns = Object.values(getTableColumns(table)) as PgColumn[];
  const config = getTableConfig(table);
  const identity = columns.find((c) => c.generatedIdentity)?.name;
  const primaryKey = config.primaryKeys[0]?.columns.map((c) => c.name) ?? columns.filter((c) => c.primary).map((c) => c.name);
  if (!identity && primaryKey.length === 0) throw new Error(`archive: PostgreSQL table ${config.name} has no primary key to read it in order by`);
  return {
    name: config.name,
    booleans: new Set(columns.filter((c) => c.columnType === 'PgBoolean').map((c) => c.name)),
    identity,
    order: identity ? [identity] : primaryKey,
  };
}

let facts_: Map<string, PgTableFacts> | undefined;
/** The PostgreSQL tables by SQL name (worked out on first use). */
export function pgTableFacts(): Map<string, PgTableFacts> {
  return (facts_ ??= new Map(Object.values(pgTables).map((t) => [getTableName(t), factsOf(t)])));
}

/** The database a URL names, for messages (never its password). */
export function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url);
    return `PostgreSQL database ${decodeURIComponent(parsed.pathname.replace(/^\//, '')) || '(default)'} on ${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}`;
  } catch {
    return 'the PostgreSQL database';
  }
}

/** A connection of the tools' own (not the engine's pool: one transaction holds it from start to end). */
export async function connect(url: string, applicationName: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: applicationName, types: sqliteForms });
  // a connection the server closes while idle must not crash the process: the next query fails instead
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/**
 * Where a database stands against this build's PostgreSQL migrations: `current`, `empty` (no Hearth schema),
 * or refused with a message (`newer`: made by a newer Hearth; `older`: an older one's, which the server upgrades at
 * start). `migrate` applies this build's migrations to an empty database (the engine's own, under its lock).
 */
export async function schemaState(url: string, options: { migrate: boolean }): Promise<'current' | 'empty'> {
  const engine = createPgEngine({ url, poolSize: 1 });
  try {
    const status = await engine.schemaStatus();
    const where = describeDatabase(url);
    if (status.unknown > 0) throw new Error(`${where} was migrated by a newer Hearth (${status.unknown} migrations this build does not know): use that Hearth`);
    if (status.applied > 0 && status.pending > 0)
      throw new Error(
        `${where} is at an older schema (${status.pending} of this Hearth's migrations not applied): start the server once on it to upgrade it, then try again`,
      );
    if (status.applied === 0 && !options.migrate) return 'empty';
    // applies what is pending (nothing, when current) and refuses a database that sorts text by a language's collation
    if (options.migrate) await engine.migrate();
    return status.applied === 0 ? 'empty' : 'current';
  } finally {
    await engine.close();
  }
}
