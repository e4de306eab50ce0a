// The storage layer's engine: the one place that runs statements and units of work. Repositories (db/repos/) own
// every query and run them through `read` and `write`; services group them in `transaction`. Only this folder
// imports the database driver, drizzle or the schema (test/unit/storage-boundary.test.ts holds every other file to
// that).
//
// Two connections to hearth.db. Reads outside a unit of work run on the main connection, at once: in WAL mode they
// see every committed write and never wait for a writer. Units of work run on the write connection, one at a time
// (gate.ts): a transaction there is invisible to the main connection until it commits, so a unit of work that awaits
// between its statements lets other requests read and queue their own writes, but never see it half done nor put
// a statement of theirs inside it. Inside a unit of work every read and write (found by its async context) goes to
// the write connection, so it reads its own writes.
import type Database from 'better-sqlite3';
import { Column, fillPlaceholders, getTableColumns, is, SQL, sql } from 'drizzle-orm';
import { changeStampOf, tableChanges } from './change-stamp.ts';
import { openConnection, type Db } from './client.ts';
import { sessionOf } from './connection.ts';
import type { Engine, Placeholders, Prepared, Q, Tables } from './engine.ts';
import { WriterTurns, type Transactional } from './gate.ts';
import * as schema from './schema.ts';
import { StorageConflict } from '../errors.ts';

export interface SqliteEngine {
  readonly kind: 'sqlite';
  /** Runs statements (synchronously, as one step) that only read: on the main connection, or in the unit of work. */
  read<T>(statements: (db: Db) => T): Promise<T>;
  /** Runs statements that write: in the unit of work the caller runs in, else as a unit of work of their own. */
  write<T>(statements: (db: Db) => T): Promise<T>;
  /**
   * Runs statements that read, awaited one after another, as of one instant: in the caller's unit of work, else in a
   * read transaction on a connection of their own (opened at the first call), one such read at a time. The main
   * connection cannot hold one: its other readers would then see that instant too, older than their own commits.
   */
  snapshot<T>(statements: (db: Db) => Promise<T>): Promise<T>;
  /**
   * One unit of work: every repository call made while `work` runs (in its async context) joins one transaction,
   * committed when `work` resolves and rolled back when it throws. Inside another unit of work it is a savepoint of
   * it. `work` should wait on nothing but storage: the write connection is held while it runs.
   */
  transaction<T>(work: () => Promise<T>, options?: { bulk?: boolean }): Promise<T>;
  /** Whether the caller runs inside a unit of work. */
  inTransaction(): boolean;
  /** Runs `callback` once the caller's unit of work has committed (never after a rollback); outside one, at once. */
  afterCommit(callback: () => void): void;
  /**
   * A number that changes whenever the database may have changed: any write of this process (either connection),
   * at once, or a commit of another process (the CLI, an import), from the next event-loop turn. For caches that
   * answer from memory (change-stamp.ts).
   */
  changes(): number;
  /** The same for writes to the given tables only (another process's commit to anything counts too). */
  tableChanges(tables: readonly string[]): () => number;
  /** The connection statements of the caller go to now (for repositories' synchronous helpers). */
  current(): Db;
  /** The main connection (reads outside units of work, the change stamp of the caches). */
  readonly main: { db: Db; sqlite: Database.Database };
  /** The write connection. */
  readonly writer: { db: Db; sqlite: Database.Database };
  close(): void;
}

/** SQLite's codes for a unique key already taken (a primary key is one). */
const UNIQUE_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

/** A unit of work's failure as its callers see it: a unique key taken becomes a StorageConflict (issue 43). */
function conflictOf(error: unknown): never {
  // on the driver's error, or on the error drizzle wraps it in
  for (let e = error, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++)
    if (UNIQUE_CODES.has(String((e as { code?: unknown }).code))) throw new StorageConflict(error);
  throw error;
}

/** Prepared BEGIN/COMMIT/ROLLBACK of one connection, and its savepoints by depth. */
function transactionStatements(sqlite: Database.Database) {
  const statement = (sql: string) => {
    const prepared = sqlite.prepare(sql);
    return () => void prepared.run();
  };
  // IMMEDIATE takes the write lock up front: a read-then-write unit of work cannot then lose a race with another
  // process (the CLI) and fail with SQLITE_BUSY_SNAPSHOT; it waits (busy_timeout) instead.
  const begin = statement('BEGIN IMMEDIATE');
  const commit = statement('COMMIT');
  const rollback = statement('ROLLBACK');
  const top: Transactional = {
    begin,
    commit,
    // an error SQLite answers by rolling back itself (a full disk) leaves no transaction to roll back
    rollback: () => {
      if (sqlite.inTransaction) rollback();
    },
  };
  const savepoints: Transactional[] = [];
  const savepoint = (depth: number): Transactional =>
    (savepoints[depth] ??= (() => {
      const release = statement(`RELEASE hearth_${depth}`);
      const rollbackTo = statement(`ROLLBACK TO hearth_${depth}`);
      return {
        begin: statement(`SAVEPOINT hearth_${depth}`),
        commit: release,
        rollback: () => {
          rollbackTo();
          release();
        },
      };
    })());
  return { top, savepoint };
}

/**
 * `top` with the connection's automatic checkpoint off from its begin to its end: the commit of a unit that wrote
 * tens of MB would otherwise copy the whole log into the database file on this thread, holding the event loop
 * (1.6 s for a 50 MB import, issue 42); the checkpointer's thread copies it instead (checkpointer.ts).
 */
function withoutAutoCheckpoint(sqlite: Database.Database, top: Transactional): Transactional {
  let pages = 0;
  const restore = () => void sqlite.pragma(`wal_autocheckpoint = ${pages}`);
  return {
    begin() {
      // once the transaction is open: a BEGIN that fails (busy) is followed by no commit or rollback to restore it
      top.begin();
      pages = sqlite.pragma('wal_autocheckpoint', { simple: true }) as number;
      sqlite.pragma('wal_autocheckpoint = 0');
    },
    commit() {
      try {
        top.commit();
      } finally {
        restore();
      }
    },
    rollback() {
      try {
        top.rollback();
      } finally {
        restore();
      }
    },
  };
}

/** The engine over a database openDatabase opened (and migrated): `main` is that connection. */
export function createSqliteEngine(file: string, main: { db: Db; sqlite: Database.Database }): SqliteEngine {
  const writer = openConnection(file);
  // the caches' change stamp counts this process's writes on both connections (made first here, shared after)
  const stamp = changeStampOf(main.sqlite, [writer.sqlite]);
  const turns = new WriterTurns();
  const { top, savepoint } = transactionStatements(writer.sqlite);
  const bulk = withoutAutoCheckpoint(writer.sqlite, top);
  const transaction = <T>(work: () => Promise<T>, options?: { bulk?: boolean }) => turns.hold(work, options?.bulk ? bulk : top, savepoint).catch(conflictOf);
  // snapshot reads: a third connection, opened when first asked for, and the chain that runs them one at a time
  let reader: { db: Db; sqlite: Database.Database; begin: Database.Statement; commit: Database.Statement } | undefined;
  let snapshots: Promise<unknown> = Promise.resolve();
  const snapshotOn = async <T>(statements: (db: Db) => Promise<T>): Promise<T> => {
    if (!reader) {
      const opened = openConnection(file);
      reader = { ...opened, begin: opened.sqlite.prepare('BEGIN'), commit: opened.sqlite.prepare('COMMIT') };
    }
    const { db, sqlite, begin, commit } = reader;
    // WAL: the instant is the first read's, and every statement until COMMIT reads that one
    begin.run();
    try {
      return await statements(db);
    } finally {
      if (sqlite.inTransaction) commit.run();
    }
  };
  return {
    kind: 'sqlite',
    main,
    writer,
    async read(statements) {
      return statements(turns.owns() ? writer.db : main.db);
    },
    async write(statements) {
      if (turns.owns()) return statements(writer.db);
      // synchronous statements alone: nothing can run inside them, so they need no async context
      return turns.holdAlone(() => statements(writer.db), top).catch(conflictOf);
    },
    snapshot(statements) {
      if (turns.owns()) return statements(writer.db);
      const run = snapshots.then(() => snapshotOn(statements));
      snapshots = run.catch(() => undefined);
      return run;
    },
    transaction,
    inTransaction: () => turns.owns(),
    afterCommit: (callback) => turns.afterCommit(callback),
    changes: () => stamp.current(),
    tableChanges: (tables) => tableChanges(main.sqlite, [writer.sqlite], tables),
    current: () => (turns.owns() ? writer.db : main.db),
    close() {
      if (writer.sqlite.open) writer.sqlite.close();
      if (reader?.sqlite.open) reader.sqlite.close();
    },
  };
}

/** drizzle's prepared statement on SQLite (better-sqlite3: synchronous), with the parts `rowsOf` reads. */
interface SqlitePrepared {
  all(values?: Record<string, unknown>): unknown[];
  get(values?: Record<string, unknown>): unknown;
  run(values?: Record<string, unknown>): { changes: number };
  stmt: Database.Statement;
  query: { params: unknown[] };
  fields?: Array<{ path: string[]; field: unknown }>;
  customResultMapper?: unknown;
}

/**
 * A select's rows, read in raw mode and decoded by one generated function per statement: drizzle's own decoding tests
 * every cell of every row with `is()` (an activities page of 50 took twice the time of the SQLite repository that
 * decoded it this way, prepared.ts's compiledRows). The same values as drizzle's `mapResultRow` for a flat selection
 * (each field one key: a column, or SQL with its decoder); anything else (a nested selection, a join's nullable
 * table) is left to drizzle.
 */
function rowsOf(prepared: SqlitePrepared): { all(values?: Placeholders): unknown[]; one(values?: Placeholders): unknown } | undefined {
  const { fields, customResultMapper } = prepared;
  if (!fields || customResultMapper || fields.some((f) => f.path.length !== 1)) return undefined;
  const decoders = fields.map(({ field }) => {
    if (is(field, Column)) return field;
    if (is(field, SQL)) return (field as unknown as { decoder: Column }).decoder;
    if (is(field, SQL.Aliased)) return (field.sql as unknown as { decoder: Column }).decoder;
    return undefined;
  });
  if (decoders.some((d) => d === undefined)) return undefined;
  const keys = fields.map((f) => JSON.stringify(f.path[0]));
  const decode = new Function(
    'd',
    `return (row) => ({ ${keys.map((key, i) => `${key}: row[${i}] === null ? null : d[${i}].mapFromDriverValue(row[${i}])`).join(', ')} });`,
  )(decoders) as (row: unknown[]) => unknown;
  // raw on every run: db/client.ts's statement cache shares a statement among queries of the same text
  const bound = (values?: Placeholders) => fillPlaceholders(prepared.query.params, values ?? {});
  return {
    all: (values) => (prepared.stmt.raw(true).all(...bound(values)) as unknown[][]).map(decode),
    one: (values) => {
      const row = prepared.stmt.raw(true).get(...bound(values)) as unknown[] | undefined;
      return row === undefined ? undefined : decode(row);
    },
  };
}

/**
 * SQLite's dialect of the engine repositories written once see (engine.ts). Its statements run synchronously: a
 * repository's awaits between them are microtasks, and inside a unit of work no other request's statement comes
 * between them (the writer's turn, gate.ts). A write outside a unit of work is a unit of its own.
 */
export function sqliteDialect(engine: SqliteEngine): Engine {
  return {
    kind: 'sqlite',
    t: schema as Tables,
    read: async (statements) => statements(engine.current()),
    snapshot: (statements) => engine.snapshot(statements),
    write: async (statements) => (engine.inTransaction() ? statements(engine.writer.db) : engine.transaction(() => statements(engine.writer.db))),
    columns: (table) => getTableColumns(table),
    insertionOrder: (table) => sql`${schema[table]}.rowid`,
    lockRows: async () => undefined,
    execute: async (db, statement) => db.run(statement),
    changed: (result) => (result as { changes?: number }).changes ?? 0,
    prepare<Row>(_name: string, build: (db: Q, t: Tables) => unknown): Prepared<Row> {
      // once per connection (a transaction runs on its database's session, so one prepared statement serves both)
      const cache = new WeakMap<object, { prepared: SqlitePrepared; rows: ReturnType<typeof rowsOf> }>();
      const of = (db: Q) => {
        const session = sessionOf(db);
        let entry = cache.get(session);
        if (!entry) {
          const prepared = (build(db, schema as Tables) as { prepare(): SqlitePrepared }).prepare();
          cache.set(session, (entry = { prepared, rows: rowsOf(prepared) }));
        }
        return entry;
      };
      return {
        all: async (db, values) => {
          const { prepared, rows } = of(db);
          return (rows ? rows.all(values) : prepared.all(values)) as Row[];
        },
        one: async (db, values) => {
          const { prepared, rows } = of(db);
          return (rows ? rows.one(values) : prepared.get(values)) as Row | undefined;
        },
        run: async (db, values) => of(db).prepared.run(values).changes,
      };
    },
  };
}
