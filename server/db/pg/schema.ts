// The PostgreSQL schema, made from the one schema source (../schema.ts and ../delivery-schema.ts, drizzle's SQLite
// dialect) so that the two engines cannot drift: every table, column, default, primary key, foreign key and index
// has its PostgreSQL counterpart here, converted by the rules below, and drizzle-kit generates the PostgreSQL
// migrations from these tables (drizzle.pg.config.ts) as it generates SQLite's from the source.
//
// Types: text stays text (enums keep their values); integers become bigint (timestamps are milliseconds, past
// int4), except boolean-mode integers, which become boolean; an integer primary key (SQLite's rowid) becomes an identity column; JSON
// text becomes `json`, which keeps the text as written (key order and all: the API answers it byte for byte, which
// jsonb's normalized form would not); blobs become bytea. SQLite-only expressions (NOCASE collations, the time
// default) are mapped one by one below, and anything else stops the conversion, so that a new construct in the
// source is translated on purpose, never by accident. Constraint names longer than PostgreSQL's 63 characters are
// cut and suffixed with a digest of the whole (cut alone, two foreign keys of one table would collide).
//
// Two intended differences, and only two: the tables SQLite answers in creation order (INSERTION_ORDER_TABLES below)
// get a PostgreSQL-only insertion-order column, which the source does not have; and the PostgreSQL-only tables,
// attachment_blobs (recordings' attachment bytes, which SQLite keeps as files of the data dir) and cluster_identity
// (the id instances check their Redis against; SQLite has no cluster), both below.
import { createHash } from 'node:crypto';
import { getTableColumns, is, SQL, sql, type Column } from 'drizzle-orm';
import {
  bigint,
  boolean,
  customType,
  foreignKey,
  getTableConfig as pgTableConfig,
  index,
  json,
  type PgColumn,
  type PgColumnBuilderBase,
  type PgTable,
  pgTable,
  primaryKey,
  smallint,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { getTableConfig, SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { webhookAttempts, webhookDeliveries } from '../delivery-schema.ts';
import * as source from '../schema.ts';

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/** The source's `now` default (milliseconds since the epoch, at the statement's time), in PostgreSQL. */
const NOW_MS = sql`((extract(epoch from clock_timestamp()) * 1000)::bigint)`;

/**
 * Index expressions of the source that are SQLite's own, by index name: a case-insensitive sort on `name`
 * (`COLLATE NOCASE`) is `lower(name)` here, which orders the same for the ASCII that NOCASE folds.
 */
const INDEX_EXPRESSIONS: Record<string, Record<string, SQL>> = {
  organizations_name: { 'name COLLATE NOCASE': sql`lower("name")` },
  documents_name: { 'name COLLATE NOCASE': sql`lower("name")` },
  documents_folder_name: { 'name COLLATE NOCASE': sql`lower("name")` },
  users_name: { "(CASE WHEN name IS NULL THEN '' ELSE name END) COLLATE NOCASE": sql`lower(coalesce("name", ''))` },
};

/** The SQL text of an expression without column references (an index expression of the source). */
function plainText(expression: SQL): string {
  return expression.queryChunks
    .map((chunk) => {
      if (typeof chunk === 'object' && chunk !== null && 'value' in chunk && Array.isArray(chunk.value)) return chunk.value.join('');
      throw new Error('pg schema: an index expression with parameters or columns needs a rule');
    })
    .join('');
}

/** The builder methods the conversion chains, common to every PostgreSQL column builder it makes. */
interface Chain extends PgColumnBuilderBase {
  notNull(): Chain;
  primaryKey(): Chain;
  unique(name?: string): Chain;
  default(value: unknown): Chain;
}

function columnOf(sqliteColumn: SQLiteColumn): PgColumnBuilderBase {
  const name = sqliteColumn.name;
  let builder: Chain;
  switch (sqliteColumn.columnType) {
    case 'SQLiteText': {
      const values = sqliteColumn.enumValues;
      builder = (values && values.length > 0 ? text(name, { enum: values as [string, ...string[]] }) : text(name)) as unknown as Chain;
      break;
    }
    case 'SQLiteTextJson':
      builder = json(name) as unknown as Chain;
      break;
    case 'SQLiteInteger':
      // an integer primary key is SQLite's rowid, given a value when an insert names none: an identity column here
      builder = (sqliteColumn.primary || (sqliteColumn as SQLiteColumn & { autoIncrement: boolean }).autoIncrement
        ? bigint(name, { mode: 'number' }).generatedByDefaultAsIdentity()
        : bigint(name, { mode: 'number' })) as unknown as Chain;
      break;
    case 'SQLiteBoolean':
      builder = boolean(name) as unknown as Chain;
      break;
    case 'SQLiteBlobBuffer':
      builder = bytea(name) as unknown as Chain;
      break;
    default:
      throw new Error(`pg schema: ${name} has a column type (${sqliteColumn.columnType}) without a PostgreSQL rule`);
  }
  if (sqliteColumn.notNull) builder = builder.notNull();
  if (sqliteColumn.primary) builder = builder.primaryKey();
  if (sqliteColumn.isUnique) builder = builder.unique(sqliteColumn.uniqueName);
  if (sqliteColumn.hasDefault && sqliteColumn.default !== undefined) {
    const value = sqliteColumn.default;
    if (is(value, SQL)) {
      if (!plainText(value).includes('unixepoch')) throw new Error(`pg schema: ${name} has an SQL default without a PostgreSQL rule`);
      builder = builder.default(NOW_MS);
    } else builder = builder.default(value);
  }
  return builder;
}

/**
 * The tables whose rows SQLite answers in creation order, by `created_at` and then by its implicit `rowid` (rows of one
 * millisecond in the order they were inserted): a thread's comments and reactions (repos/comments.ts,
 * repos/reactions.ts). PostgreSQL has no rowid (`ctid` is where a row version lies: an update or VACUUM moves it), so
 * each gets an explicit insertion-order column, `seq bigint GENERATED ALWAYS AS IDENTITY`, that the source does not
 * have: PostgreSQL-only, numbered by the database at insert (ALWAYS: no statement can write a value, so an import or
 * a copy cannot carry another database's numbers into it), never part of a row the repositories answer (`pgTableFor`'s
 * columns leave it out; `insertionOrderOf` names it for ORDER BY). SQLite keeps its rowid, which is the same order.
 * A table added here must be one SQLite orders by rowid (test/unit/pg-schema.test.ts checks both ways).
 */
export const INSERTION_ORDER_TABLES: ReadonlySet<string> = new Set(['comments', 'reactions']);

/** The insertion-order column's name (and property name) in the tables of INSERTION_ORDER_TABLES. */
export const INSERTION_ORDER_COLUMN = 'seq';

/** PostgreSQL's longest identifier: longer names are cut, and two cut alike would collide. */
const MAX_IDENTIFIER = 63;

/**
 * A constraint's name as PostgreSQL can hold it: the source's name when it fits, else its first characters and a
 * digest of the whole (drizzle names foreign keys after both tables and all their columns).
 */
function fitName(name: string): string {
  if (name.length <= MAX_IDENTIFIER) return name;
  return `${name.slice(0, MAX_IDENTIFIER - 9)}_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}

/** A partial index's WHERE with the source's columns replaced by this table's. */
function whereOf(where: SQL, columns: Record<string, PgColumn>): SQL {
  return new SQL(
    where.queryChunks.map((chunk) => {
      if (is(chunk, SQLiteColumn)) {
        const column = columns[(chunk as Column).name];
        if (!column) throw new Error(`pg schema: a partial index names ${(chunk as Column).name}, which the table lacks`);
        return column;
      }
      return chunk;
    }),
  );
}

const converted = new Map<SQLiteTable, PgTable>();

/** The PostgreSQL table of a source table (made once: foreign keys refer to the same objects). */
function pgTableOf(table: SQLiteTable): PgTable {
  const done = converted.get(table);
  if (done) return done;
  const config = getTableConfig(table);
  const builders: Record<string, PgColumnBuilderBase> = Object.fromEntries(
    Object.entries(getTableColumns(table)).map(([key, column]) => [key, columnOf(column as SQLiteColumn)]),
  );
  if (INSERTION_ORDER_TABLES.has(config.name)) {
    if (INSERTION_ORDER_COLUMN in builders || config.columns.some((c) => c.name === INSERTION_ORDER_COLUMN))
      throw new Error(`pg schema: ${config.name} has a column named ${INSERTION_ORDER_COLUMN} already, the insertion order's name`);
    builders[INSERTION_ORDER_COLUMN] = bigint(INSERTION_ORDER_COLUMN, { mode: 'number' }).generatedAlwaysAsIdentity().notNull();
  }
  const made = pgTable(config.name, builders, (t) => {
    const columns = Object.fromEntries(Object.values(t as Record<string, PgColumn>).map((c) => [c.name, c]));
    const byName = (c: Column) => columns[c.name] as PgColumn;
    const extra = [];
    for (const pk of config.primaryKeys) {
      extra.push(primaryKey({ name: fitName(pk.getName()), columns: pk.columns.map(byName) as [PgColumn, ...PgColumn[]] }));
    }
    for (const fk of config.foreignKeys) {
      const ref = fk.reference();
      const target = pgTableOf(ref.foreignTable);
      const targetColumns = Object.fromEntries(Object.values(getTableColumns(target)).map((c) => [c.name, c]));
      let key = foreignKey({
        name: fitName(fk.getName()),
        columns: ref.columns.map(byName) as [PgColumn, ...PgColumn[]],
        foreignColumns: ref.foreignColumns.map((c) => targetColumns[c.name] as PgColumn) as [PgColumn, ...PgColumn[]],
      });
      if (fk.onDelete) key = key.onDelete(fk.onDelete);
      if (fk.onUpdate) key = key.onUpdate(fk.onUpdate);
      extra.push(key);
    }
    for (const idx of config.indexes) {
      const { name, columns: on, unique, where } = idx.config;
      const parts = on.map((part) => {
        if (is(part, SQL)) {
          const mapped = INDEX_EXPRESSIONS[name]?.[plainText(part)];
          if (!mapped) throw new Error(`pg schema: index ${name} has an expression without a PostgreSQL rule: ${plainText(part)}`);
          return mapped;
        }
        return byName(part as Column);
      });
      let built = (unique ? uniqueIndex(fitName(name)) : index(fitName(name))).on(...(parts as [PgColumn, ...PgColumn[]]));
      if (where) built = built.where(whereOf(where, columns));
      extra.push(built);
    }
    if (config.checks.length > 0 || config.uniqueConstraints.length > 0)
      throw new Error(`pg schema: ${config.name} has checks or unique constraints without a PostgreSQL rule`);
    return extra;
  });
  converted.set(table, made);
  return made;
}

/** Every table of the source (hearth.db's and the delivery tables), as PostgreSQL tables, by the source's export names. */
export const pgTables: Record<string, PgTable> = Object.fromEntries([
  ...(Object.entries(source) as Array<[string, unknown]>)
    .filter((entry): entry is [string, SQLiteTable] => is(entry[1], SQLiteTable))
    .map(([key, table]) => [key, pgTableOf(table)]),
  ['webhookDeliveries', pgTableOf(webhookDeliveries)],
  ['webhookAttempts', pgTableOf(webhookAttempts)],
]);

/**
 * The one PostgreSQL-only table: recordings' attachment bytes. SQLite keeps them as files in DATA_DIR/attachments,
 * on the disk of the one process that serves them; a cluster's instances each have their own disk, so on
 * PostgreSQL the bytes live in the database every instance reads (an attachment is at most 8 MB). Keyed by the
 * random storage key of its recording_attachments row; written before the unit of work that records the row, so a
 * blob no row points at is swept once it is older than any unit of work (repos/attachments.ts).
 */
export const attachmentBlobs = pgTable('attachment_blobs', {
  storageKey: text('storage_key').primaryKey(),
  bytes: bytea('bytes').notNull(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
});

/**
 * PostgreSQL-only too: the cluster's identity (issue 42). One row, written by the first instance that starts on the
 * database; every instance writes the same id into its Redis and refuses to start (or reports not ready) when its
 * Redis holds another cluster's id, so that instances given different REDIS_URLs cannot split one database's
 * cluster unnoticed (cluster/identity.ts). SQLite runs one process and has no cluster.
 */
export const clusterIdentity = pgTable('cluster_identity', {
  id: smallint('id').primaryKey(),
  clusterId: text('cluster_id').notNull(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
});

/** A converted table's columns by property name, without the PostgreSQL-only insertion-order column: the source's columns. */
export function sourceColumnsOf(table: PgTable): Record<string, PgColumn> {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  if (!INSERTION_ORDER_TABLES.has(pgTableConfig(table).name)) return columns;
  const { [INSERTION_ORDER_COLUMN]: _order, ...source } = columns;
  return source;
}

/** The source's exports that are tables. */
type TableKey = { [K in keyof typeof source]: (typeof source)[K] extends SQLiteTable ? K : never }[keyof typeof source];

/**
 * A converted table and its columns by the source's property names, for a PostgreSQL repository's queries: the
 * same names as the SQLite repository's, so that the two read alike (rows come back typed as the caller casts them
 * to the source's row types, which the conversion keeps). `c` holds the source's columns only: select a whole row as
 * `db.select(c)`, since `db.select()` would add the insertion-order column of INSERTION_ORDER_TABLES.
 */
export function pgTableFor<K extends TableKey>(key: K): { table: PgTable; c: Record<keyof (typeof source)[K]['_']['columns'], PgColumn> } {
  const table = pgTables[key];
  if (!table) throw new Error(`pg schema: no table ${key}`);
  return { table, c: sourceColumnsOf(table) as Record<keyof (typeof source)[K]['_']['columns'], PgColumn> };
}

/**
 * A row of the source's table `key` (as `alias` in the statement) as a JSON object keyed by the source's property
 * names, for a statement that answers rows inside JSON (several kinds of rows in one round trip): parsed, it is the
 * row drizzle reads (json columns nested as their values, bigint as JSON numbers, booleans as JSON booleans). Not
 * for bytea columns, which JSON cannot carry.
 */
export function jsonRowSql(key: TableKey, alias: string): string {
  const columns = Object.entries(sourceColumnsOf(pgTableFor(key).table));
  return `json_build_object(${columns.map(([property, column]) => `'${property}', ${alias}."${column.name}"`).join(', ')})`;
}

/** The insertion-order column of a table of INSERTION_ORDER_TABLES (SQLite's rowid order), for ORDER BY. */
export function insertionOrderOf(key: 'comments' | 'reactions'): PgColumn {
  const table = pgTables[key];
  const column = table && (getTableColumns(table) as Record<string, PgColumn>)[INSERTION_ORDER_COLUMN];
  if (!column) throw new Error(`pg schema: ${key} has no insertion-order column`);
  return column;
}
