// The engine as a repository written once sees it (issue 43, docs/storage.md "One storage code"): the same calls run
// on SQLite (storage.ts's `sqliteDialect`) and on PostgreSQL (pg/dialect.ts's `pgDialect`). A repository builds its
// statements with drizzle against `t`, the schema's tables, and runs them through `read`, `write` and `prepare`;
// what differs between the engines (the driver, units of work, how a changed-row count is reported, how a statement
// is prepared and cached) stays in the two dialect modules.
//
// The builder is typed as SQLite's drizzle database and `t` as the source schema (schema.ts): PostgreSQL's tables are
// converted from those (pg/schema.ts) with the same property names and the same row types, and drizzle builds each
// dialect's SQL from the same calls. So a repository written once type-checks against one schema, and the parity
// tests (test/pg/) prove that both engines answer alike. SQL that truly differs between the engines (json_each and
// json_array_elements_text, FTS5 and tsvector) is written in the repository that needs it, in one `engine.kind`
// branch with its reason (docs/storage.md lists them).
import type { SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from './connection.ts';
import type * as schema from './schema.ts';

/**
 * Text in code point order, which SQLite's BINARY collation gives (it compares UTF-8 bytes; UTF-16 units, as
 * JavaScript's `<` compares them, order some characters otherwise): how a repository sorts rows PostgreSQL answers
 * in no order (a DELETE's RETURNING) so that both engines answer alike.
 */
export const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** The query builder of a repository written once (see above). */
export type Q = Db;

/** The schema's tables by the source's names. */
export type Tables = { [K in keyof typeof schema as (typeof schema)[K] extends SQLiteTable ? K : never]: (typeof schema)[K] };

/** Values for a prepared statement's placeholders (`sql.placeholder(name)`). */
export type Placeholders = Record<string, unknown>;

/** A statement prepared once per connection: its rows, its first row, or how many rows it changed. */
export interface Prepared<Row> {
  all(db: Q, values?: Placeholders): Promise<Row[]>;
  one(db: Q, values?: Placeholders): Promise<Row | undefined>;
  run(db: Q, values?: Placeholders): Promise<number>;
}

/** What a statement's builder is: drizzle's select, insert, update or delete (its rows typed by its `all`). */
export type Statement = { prepare(...args: never[]): unknown };
export type RowOf<S> = S extends { all(...args: never[]): Array<infer R> } ? R : never;

export interface Engine {
  readonly kind: 'sqlite' | 'postgres';
  /** The schema's tables: on PostgreSQL their conversion, with the same properties and row types. */
  readonly t: Tables;
  /** Statements that only read: in the caller's unit of work, else on a connection of reads. */
  read<T>(statements: (db: Q) => Promise<T>): Promise<T>;
  /**
   * Statements that read, as of one instant however many awaits lie between them: the caller's unit of work, else a
   * read transaction (SQLite: on a connection of its own, one at a time; PostgreSQL: REPEATABLE READ). For views
   * of several statements whose answer must be one state of the data (the admin's views).
   */
  snapshot<T>(statements: (db: Q) => Promise<T>): Promise<T>;
  /** Statements that write: in the caller's unit of work, else in a unit of work of their own. */
  write<T>(statements: (db: Q) => Promise<T>): Promise<T>;
  /**
   * A table's columns as the source schema has them, for a whole row's select (`db.select(engine.columns(t.x))`):
   * PostgreSQL's comments and reactions have one more, their insertion order (pg/schema.ts), never part of a row.
   */
  columns<T extends SQLiteTable>(table: T): T['_']['columns'];
  /**
   * The order a table's rows were inserted in, for rows of one millisecond (docs/storage.md, "Rows created in the same
   * millisecond"): SQLite's rowid; PostgreSQL's `seq`, the insertion-order column of exactly these tables
   * (pg/schema.ts, INSERTION_ORDER_TABLES; test/unit/pg-schema.test.ts holds the two lists together).
   */
  insertionOrder(table: 'comments' | 'reactions'): SQL;
  /**
   * Holds the keys of the rows `ids` of one kind (`kind`: the rows' kind and owners, say reaction, key, organization)
   * until the caller's unit of work ends: the mutex of a read-then-write of a row that may not exist yet, which no row
   * lock can cover; the next statement reads as of after the holder's commit. Each is taken once and in code point
   * order, so that two units naming the same rows never wait on each other in a circle. On PostgreSQL each is a
   * transaction-scoped advisory lock on (…kind, id) (pg/engine.ts, lockKey), after a shared lock on
   * `kind`; past `ROW_LOCKS_MAX` rows, one exclusive lock on `kind` instead, which waits for and holds off every unit
   * holding any of its rows. PostgreSQL's lock table holds max_locks_per_transaction × max_connections locks for the
   * whole server (6,400 by default): a thousand locks a unit, a few units at once, would fill it, and every unit
   * that then asks for a lock fails. SQLite has nothing to do.
   */
  lockRows(db: Q, kind: readonly string[], ids: readonly string[]): Promise<void>;
  /** Runs a statement written as SQL (drizzle's `sql`) on `db`; its result goes to `changed`. */
  execute(db: Q, statement: SQL): Promise<unknown>;
  /** How many rows an awaited insert, update or delete changed. */
  changed(result: unknown): number;
  /**
   * A statement built once per connection (drizzle's build costs 50–80 µs, many times what a lookup by key takes to
   * run: db/prepared.ts), with `sql.placeholder(…)` for its values. `name` is unique in the server: PostgreSQL keeps
   * it as the connection's prepared statement, and refuses a second text under one name.
   */
  prepare<S extends Statement>(name: string, build: (db: Q, t: Tables) => S): Prepared<RowOf<S>>;
}
