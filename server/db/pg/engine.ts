// The PostgreSQL engine (issue 31): a connection pool, units of work on one pooled connection each, and the
// migrations of ./migrations applied at start under a cluster-wide lock. The SQLite engine's contract (../storage.ts)
// holds here too: every repository call made while a unit of work runs (in its async context) joins its transaction,
// nested units of work are savepoints, and a write outside a unit of work is a unit of work of its own.
//
// Isolation. Units of work run at READ COMMITTED unless they ask for more: every statement sees what was committed
// before it began, and row locks (`FOR UPDATE`, unique keys, `INSERT … ON CONFLICT`) settle the races a
// read-then-write step has, the way the repositories write them. A unit of work whose correctness rests on what
// it read staying true until it commits (a check across rows that no lock covers) asks for SERIALIZABLE and is
// retried from the start when PostgreSQL refuses it (40001, or a deadlock, 40P01; and at any level a foreign key
// met by a parent's deletion, 23503, at most twice): its `work` must be safe to
// run again, which the storage rule "a unit of work waits on nothing but storage" makes so.
//
// Every connection carries a statement timeout, so that no statement holds a connection (and its locks) without
// end; and the pool is bounded, so that a burst of requests queues for connections instead of overwhelming the
// database.
import { AsyncLocalStorage } from 'node:async_hooks';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { StorageConflict, StorageUnavailable } from '../../errors.ts';
import { byCodePoint } from '../engine.ts';
import { Gate } from './gate.ts';
import { PG_MIGRATIONS_DIR } from '../../paths.ts';

/**
 * The drizzle database a repository's statements run on: the unit of work's connection, or the pool; `$client` is
 * that connection (or pool) for the few statements written as SQL text (a hot read's named statement).
 */
export type PgDb = NodePgDatabase<Record<string, never>> & { $client: pg.Pool | pg.PoolClient };

export type Isolation = 'read committed' | 'repeatable read' | 'serializable';

export interface PgEngineOptions {
  url: string;
  /** Connections at most (default 10). */
  poolSize?: number;
  /** Longest a statement may run before PostgreSQL cancels it (default 30 s). */
  statementTimeoutMs?: number;
  /** Attempts of a SERIALIZABLE unit of work that PostgreSQL refuses before its error is thrown (default 12). */
  serializableAttempts?: number;
}

// found from the package root, as SQLite's: the built server is bundled into dist/ (paths.ts)
const MIGRATIONS = PG_MIGRATIONS_DIR;
/** The advisory lock instances take to migrate one at a time (any fixed 64-bit number; this one spells "hearthdb"). */
const MIGRATION_LOCK = '7522525534844469346';
/** Held by the one server instance a database has (claimInstance), on a connection of its own. */
const INSTANCE_LOCK = '7522525534844469347';
/** The application_name of the connection that holds an instance's claim (`…:<instance id>` for a cluster's). */
export const INSTANCE_CONNECTION = 'hearth-instance';
/** PostgreSQL's answers that say "run the transaction again": serialization failure, deadlock. */
const RETRYABLE = new Set(['40001', '40P01']);
/**
 * unique_violation. In a SERIALIZABLE unit of work it is a serialization failure by another name (PostgreSQL's
 * manual advises retrying it): the unit checked that a row was absent and another unit committed it in between, so
 * run again it sees the row and answers as SQLite's one writer does (ALREADY_EXISTS, "exists" per item). Escaping
 * any unit, it becomes a StorageConflict (issue 43).
 */
const UNIQUE_VIOLATION = '23505';
/**
 * foreign_key_violation. Under READ COMMITTED a unit that read a parent row (an annotation) and then inserts a child
 * of it (a read mark, a comment) meets the parent's deletion, committed meanwhile, only in the foreign key's check:
 * run again, the unit reads that the parent is gone and answers as SQLite's one writer does (not found). A violation
 * that outlives a second run is a fault of the unit's own, and surfaces as it is.
 */
const FOREIGN_KEY_VIOLATION = '23503';
/** Runs of a unit that met a foreign key violation, the first included (deadlocks and other refusals apart). */
const FOREIGN_KEY_ATTEMPTS = 3;
/**
 * Thrown by a repository whose write found that rows its unit of work read have changed since (an optimistic check:
 * users.save's merge of a profile). Its code is a serialization failure's: the unit runs again from the start, at
 * any isolation, and reads the rows as they are now.
 */
export class ConcurrentChange extends Error {
  readonly code = '40001';
  constructor(what: string) {
    super(`${what} changed while this unit of work ran; it runs again`);
    this.name = 'ConcurrentChange';
  }
}
/**
 * Takes a lock on a key until the caller's unit of work ends (pg_advisory_xact_lock of the parts' hash): the mutex
 * of a row that may not exist yet (a caller's id about to be created), which no row lock can cover. A second unit
 * that asks waits for the first's commit; it must then read in a statement of its own (READ COMMITTED reads as of
 * each statement's start). Hash collisions only make unrelated units wait for each other.
 */
export async function lockKey(db: PgDb, ...parts: string[]): Promise<void> {
  await db.$client.query({ name: 'hearth-key-lock', text: 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', values: [JSON.stringify(parts)] });
}
/**
 * Takes a key shared until the caller's unit of work ends (pg_advisory_xact_lock_shared): units that share a key run
 * side by side, and one that fences it (PgEngine.transaction's `fence`) waits for them all. Sent, not awaited: the
 * caller pipelines it ahead of its statements (inOrder).
 */
export function shareKey(db: PgDb, parts: readonly string[]) {
  return db.$client.query({
    name: 'hearth-key-lock-shared',
    text: 'SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0))',
    values: [JSON.stringify(parts)],
  });
}
/**
 * The key of an organization's document data (db/tenancy.ts, DOCUMENT_DATA): a unit at READ COMMITTED that adds rows
 * under a document it read shares it (notifications/add), and a document's or a folder's delete fences it, so that
 * it sees every row such a unit added (docs/storage.md, "Fences").
 */
export const documentDataKey = (apiKeyId: string, organizationId: string) => ['document-data', apiKeyId, organizationId] as const;

/** Past this many rows of one kind in a unit of work, `lockRows` takes one lock on the kind instead (engine.ts). */
export const ROW_LOCKS_MAX = 32;

/**
 * engine.ts's `lockRows` on PostgreSQL: a shared lock on the kind, then each row's; or, past ROW_LOCKS_MAX, the kind's.
 * The statements go out together (pg's pipeline mode, the pool's connections'): one round trip however many rows,
 * each lock still taken in its order, since PostgreSQL runs a connection's statements one after the other. A lock
 * that fails (a deadlock, the statement timeout) fails the ones behind it as "transaction aborted"; its own error is
 * the one thrown (inOrder).
 */
export async function lockRows(db: PgDb, kind: readonly string[], ids: readonly string[]): Promise<void> {
  const rows = [...new Set(ids)].sort(byCodePoint);
  if (rows.length > ROW_LOCKS_MAX) return lockKey(db, ...kind);
  await inOrder([shareKey(db, kind), ...rows.map((id) => lockKey(db, ...kind, id))]);
}

/**
 * Awaits statements sent one behind the other without waiting (pipelined) and answers their results, or throws the
 * first failure in the order they were sent: the cause, where the ones behind it fail only as "transaction aborted"
 * (25P02). Promise.all would throw whichever rejection reached it first, which depends on how many promises each
 * answer passes through, not on the order PostgreSQL answered in.
 */
export async function inOrder<T extends readonly unknown[]>(sent: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(sent);
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}

/** PostgreSQL's type id of bigint. */
const INT8 = 20;
/**
 * The SQLSTATE PostgreSQL answered with, on the error or on the error drizzle wraps it in; undefined when the
 * failure was below SQL (a connection reset or ended).
 */
function sqlStateOf(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/**
 * Whether an error is the connection's loss, not an answer to a statement: pg's own (terminated, not queryable, the
 * socket's codes), SQLSTATE class 08 (connection exception), or PostgreSQL ending the backend (57P01 admin shutdown,
 * 57P02 crash shutdown, 57P03 cannot connect now).
 */
function connectionLost(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (/^08|^57P0[123]$/.test(code) || /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT)$/.test(code))) return true;
    if (typeof message === 'string' && /^(Connection terminated|Client has encountered a connection error|Client was closed)/.test(message)) return true;
  }
  return false;
}

interface Unit {
  client: pg.PoolClient;
  db: PgDb;
  depth: number;
  /** Committed or rolled back: its connection is back in the pool. */
  ended: boolean;
  /** What waits for its commit (afterCommit), dropped when it rolls back. */
  committed: Array<() => void>;
  /** The watched tables (tableChanges) its statements named: the ones its commit counts as changed. */
  named: Set<string>;
  /** Its statements sent with `defer`, each settled to its error (or undefined): awaited at its commit. */
  deferred: Array<Promise<unknown>>;
}

/**
 * Holds a connection's socket writes until this turn of the event loop ends (cork, uncorked by setImmediate), so that
 * statements sent one behind the other without waiting (pipeline mode) leave in one write: BEGIN with the unit's first
 * statement, a deferred insert with COMMIT. Each write is a system call, a large share of the hot add's CPU (BENCHMARKS.md).
 */
function coalesceWrites(client: pg.PoolClient): void {
  const stream = (client as { connection?: { stream?: { cork?: () => void; uncork?: () => void } } }).connection?.stream;
  if (!stream?.cork || !stream.uncork) return;
  stream.cork();
  setImmediate(() => stream.uncork?.());
}

/** The first error among a unit's deferred statements, once all have answered. */
async function firstFailure(deferred: Array<Promise<unknown>>): Promise<unknown> {
  for (const failure of await Promise.all(deferred)) if (failure !== undefined) return failure;
  return undefined;
}

export interface PgEngine {
  readonly kind: 'postgres';
  /** Units of work PostgreSQL refused (a serialization failure or a deadlock) and this instance ran again, since its start. */
  retries(): number;
  /** Runs statements that only read: in the caller's unit of work, else on a pooled connection. */
  read<T>(statements: (db: PgDb) => Promise<T>): Promise<T>;
  /** Runs statements that write: in the caller's unit of work, else as a unit of work of their own. */
  write<T>(statements: (db: PgDb) => Promise<T>): Promise<T>;
  /**
   * Sends a write whose answer nothing in the caller's unit of work reads (its last insert), without waiting for it:
   * COMMIT then goes out right behind it, one round trip less. Its failure fails the unit all the same: PostgreSQL
   * answers the COMMIT of a failed transaction by rolling it back, and the unit throws the statement's error (retried
   * as any other). Outside a unit of work, and in a nested one (a savepoint), the write is awaited.
   */
  defer(statement: () => Promise<unknown>): Promise<void>;
  /**
   * One unit of work on one connection: committed when `work` resolves, rolled back when it throws; nested, a savepoint.
   * `fence`: keys the unit holds exclusively from before its BEGIN until after its end (session-level advisory locks):
   * the units sharing one (shareKey) in flight commit first, so that even a SERIALIZABLE unit, whose statements see
   * what was committed at its first one, sees their rows; those that come after wait for its end. `share`: keys the
   * unit shares from its first statement (sent behind BEGIN), before it takes any row lock that a fence's holder may
   * come to wait for. Both ignored nested.
   */
  transaction<T>(
    work: () => Promise<T>,
    options?: { isolation?: Isolation; fence?: ReadonlyArray<readonly string[]>; share?: ReadonlyArray<readonly string[]> },
  ): Promise<T>;
  inTransaction(): boolean;
  /**
   * Runs `callback` once the caller's unit of work commits (never when it rolls back), or at once outside one: for
   * what must not be seen before the data is (waking the delivery worker, which reads on another connection).
   */
  afterCommit(callback: () => void): void;
  /**
   * Claims the database for this server instance: a session lock on a connection of its own, held until `release`
   * (or until the process dies and PostgreSQL drops the connection). Exclusive for a lone instance; `shared` for the
   * instances of a cluster, which hold it together. False when it is held in the other way.
   */
  claimInstance(shared?: boolean, instanceId?: string): Promise<{ claimed: false } | { claimed: true; release(): Promise<void> }>;
  /** Applies this build's migrations (under a lock: instances starting together migrate one at a time). */
  migrate(): Promise<void>;
  /**
   * A number that changes whenever one of `tables` may have changed: at once for this instance's committed units of
   * work whose statements named one of them (see `watched` below), and for every instance's commits when
   * PostgreSQL's notification of them arrives (the triggers of migration 0002, LISTEN on one connection of its
   * own). While that connection is down, every read is a change. For caches, as SQLite's change stamp.
   */
  tableChanges(tables: readonly string[]): () => number;
  /** How the database stands against this build's migrations: applied, pending, and unknown (newer) ones. */
  schemaStatus(): Promise<{ applied: number; pending: number; unknown: number }>;
  close(): Promise<void>;
}

/**
 * Text must compare as SQLite's BINARY does, byte by byte (code point order): keyset pages, sorted lists and range
 * conditions depend on it, and a database's collation decides it in PostgreSQL. A database whose default collation
 * is a language's (en_US, an ICU locale) would page and sort differently from the embedded engine, so it is refused
 * before anything is written.
 */
async function checkCollation(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ name: string; collate: string; provider: string }>(
    'SELECT datname AS name, datcollate AS collate, datlocprovider AS provider FROM pg_database WHERE datname = current_database()',
  );
  const db = rows[0];
  if (!db) return;
  const codePointOrder = db.provider === 'c' && /^(C|POSIX|C\.utf-?8)$/i.test(db.collate);
  if (!codePointOrder) {
    throw new Error(
      `PostgreSQL database ${db.name} sorts text by a language's collation (${db.provider === 'i' ? 'ICU' : db.collate}); Hearth needs code point order, ` +
        `as SQLite's: create it with CREATE DATABASE ${db.name} TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'. Nothing was changed.`,
    );
  }
}

export function createPgEngine(options: PgEngineOptions): PgEngine {
  const pool = new pg.Pool({
    connectionString: options.url,
    // bigint (int8) as a number, as the SQLite engine hands integers: the schema's bigints are milliseconds and
    // counts, far below 2^53 (pg hands them as strings by default, to be safe with any int8)
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8 ? Number : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
    max: options.poolSize ?? 10,
    // statements sent without waiting for the previous one's answer (pg 8.23's pipeline mode): a unit's BEGIN travels
    // with its first statement (once, below); statements awaited one by one behave as before
    pipeline: true,
    statement_timeout: options.statementTimeoutMs ?? 30_000,
    application_name: 'hearth',
  });
  // an idle pooled connection that the server closed (a restart of PostgreSQL) must not crash the process
  pool.on('error', () => undefined);
  // the server processes behind this pool's connections: their notifications are this instance's own commits,
  // counted at once (localByTable), not heard again a moment later (which would drop the caches twice per write)
  const ownBackends = new Set<number>();
  pool.on('connect', (client) => {
    // and no connection's error event ends it at any moment: the pool listens while a connection is idle, a unit of
    // work while it holds one (once, below), but between the two, when the pool hands out a connection it has just
    // opened, an error that came in the same packet as the connection's last startup message is emitted before the
    // unit's listener is attached (a backend terminated as it started: CI of stop 57). Such a connection is not
    // queryable: the unit's statements fail with it, its ROLLBACK too, and it is closed as broken.
    client.on('error', () => undefined);
    const backend = (client as pg.Client & { processID?: number }).processID;
    if (backend === undefined) return;
    ownBackends.add(backend);
    client.once('end', () => ownBackends.delete(backend));
  });
  const poolDb: PgDb = drizzle(pool);
  const units = new AsyncLocalStorage<Unit>();
  const attempts = options.serializableAttempts ?? 12;
  const gate = new Gate();

  // Change notifications: commits of this instance per table, notifications per table, and changes that nobody heard
  // (counted while the listening connection is down, and once when it is back).
  //
  // A commit of this instance counts at once for the watched tables its statements named (a statement's text names
  // every table it writes; a foreign key's cascade writes a table it does not name, but the tables watched apart, the
  // credential tables, cascade only from one another: test/pg/engine.test.ts holds the schema to that). Counting every
  // commit for every table, as before, dropped the credentials cache at each write of any kind, and each request of
  // a write load then verified its key again (a statement more per request, issue 43's hot-row bench).
  const watched = new Set<string>();
  const localByTable = new Map<string, number>();
  let unheard = 0;
  const notified = new Map<string, number>();
  let listener: pg.Client | undefined;
  let listening = false;
  let closed = false;
  function listen() {
    if (listener || closed) return;
    const client = new pg.Client({ connectionString: options.url, application_name: 'hearth-changes' });
    listener = client;
    const retry = () => {
      listening = false;
      listener = undefined;
      if (!closed) setTimeout(listen, 1000).unref();
    };
    client.on('notification', (message) => {
      if (message.payload && !ownBackends.has(message.processId)) notified.set(message.payload, (notified.get(message.payload) ?? 0) + 1);
    });
    client.on('error', () => undefined);
    client.on('end', retry);
    client
      .connect()
      .then(() => client.query('LISTEN hearth_changes'))
      .then(() => {
        unheard++;
        listening = true;
      })
      .catch(() => {
        // a connection that never listened may never report its end: retry from here, once
        client.removeListener('end', retry);
        void client.end().catch(() => undefined);
        retry();
      });
  }

  /**
   * The unit of work the caller runs in. Async context outlives it: a timer or a promise chain started inside a unit
   * of work (a debounce scheduled by a request) carries it on after the commit, when its connection may already
   * serve someone else. An ended unit is no unit: such work runs on its own, as any other caller's.
   */
  const current = (): Unit | undefined => {
    const unit = units.getStore();
    return unit && !unit.ended ? unit : undefined;
  };

  async function inUnit<T>(unit: Unit, work: () => Promise<T>): Promise<T> {
    const name = `hearth_${++unit.depth}`;
    await unit.client.query(`SAVEPOINT ${name}`);
    try {
      const result = await work();
      await unit.client.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      await unit.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      await unit.client.query(`RELEASE SAVEPOINT ${name}`);
      throw error;
    } finally {
      unit.depth--;
    }
  }

  async function once<T>(work: () => Promise<T>, isolation: Isolation, fence: readonly string[], share: readonly string[]): Promise<T> {
    const client = await pool.connect();
    let fenced = false;
    // a connection that failed below SQL (reset, ended) or could not roll back is closed, not handed on
    let broken = false;
    let unit: Unit | undefined;
    let restore: (() => void) | undefined;
    const mark = (error: unknown) => {
      if (sqlStateOf(error) === undefined) broken = true;
      return error;
    };
    // A connection lost while the unit holds it (PostgreSQL restarted, the backend terminated, the network reset) is
    // an 'error' event on its client: the pool listens only while it is idle, and an event nobody listens to ends the
    // process. The unit's pending and later statements fail with it, and the unit rolls back; the client is closed.
    const lost = () => {
      broken = true;
    };
    client.on('error', lost);
    try {
      if (fence.length > 0) {
        // awaited before BEGIN: the unit's snapshot is taken once the units sharing a key have committed
        await client.query({ name: 'hearth-fence', text: 'SELECT pg_advisory_lock(hashtextextended(k, 0)) FROM unnest($1::text[]) k', values: [fence] });
        fenced = true;
      }
      // pipelined (the pool's connections are in pg's pipeline mode): the unit's first statement goes out behind BEGIN
      // without waiting for its answer, one round trip less a unit of work. BEGIN on a pooled connection, idle by
      // construction, fails only with the connection, and then so does every statement behind it; its answer is
      // awaited before COMMIT all the same, and a failed BEGIN rolls the unit back with a broken connection.
      coalesceWrites(client);
      const begun = client.query(`BEGIN ISOLATION LEVEL ${isolation.toUpperCase()}`).then(
        () => undefined,
        (error: unknown) => {
          broken = true;
          return error;
        },
      );
      const named = new Set<string>();
      unit = { client, db: drizzle(client), depth: 0, ended: false, committed: [], named, deferred: [] };
      if (share.length > 0) {
        // behind BEGIN, not awaited: its failure (a deadlock, the statement timeout) is the unit's, as a deferred one's
        unit.deferred.push(
          client
            .query({ name: 'hearth-share', text: 'SELECT pg_advisory_xact_lock_shared(hashtextextended(k, 0)) FROM unnest($1::text[]) k', values: [share] })
            .then(
              () => undefined,
              (error: unknown) => error,
            ),
        );
      }
      // the watched tables each statement of the unit names (its text, whichever way it was sent)
      const query = client.query;
      const ownQuery = Object.hasOwn(client, 'query');
      (client as { query: unknown }).query = function (this: unknown, ...args: unknown[]) {
        const first = args[0];
        const text = typeof first === 'string' ? first : (first as { text?: unknown } | null)?.text;
        if (typeof text === 'string') for (const table of watched) if (!named.has(table) && text.includes(table)) named.add(table);
        return (query as (...a: unknown[]) => unknown).apply(client, args);
      };
      // as it was: the pool's client keeps no `query` of its own (one left behind would hide its prototype's)
      restore = () => {
        if (ownQuery) client.query = query;
        else delete (client as { query?: unknown }).query;
      };
      let result: T;
      try {
        result = await units.run(unit, work);
        const failed = await begun;
        if (failed !== undefined) throw failed;
      } catch (error) {
        unit.ended = true;
        await client.query('ROLLBACK').catch(() => (broken = true));
        // a deferred statement's failure is the cause of what failed behind it (25P02, the transaction aborted)
        throw (await firstFailure(unit.deferred)) ?? error;
      }
      unit.ended = true;
      const commit = client.query('COMMIT').catch((error: unknown) => Promise.reject(mark(error)));
      const failure = await firstFailure(unit.deferred);
      await commit;
      // PostgreSQL answered the COMMIT of the transaction the failure aborted with ROLLBACK: nothing was written
      if (failure !== undefined) throw mark(failure);
      for (const table of named) localByTable.set(table, (localByTable.get(table) ?? 0) + 1);
      for (const callback of unit.committed) callback();
      return result;
    } finally {
      if (unit) unit.ended = true;
      restore?.();
      // a connection that cannot say unlock is closed, which releases its session's locks
      if (fenced && !broken) {
        await client
          .query({ name: 'hearth-fence-end', text: 'SELECT pg_advisory_unlock(hashtextextended(k, 0)) FROM unnest($1::text[]) k', values: [fence] })
          .catch(() => (broken = true));
      }
      client.removeListener('error', lost);
      client.release(broken);
    }
  }

  let retried = 0;
  const transaction: PgEngine['transaction'] = async (work, opts = {}) => {
    const unit = current();
    if (unit) return inUnit(unit, work);
    const isolation = opts.isolation ?? 'read committed';
    // each key once, in one order for every unit, so that two fences never wait for each other
    const keys = (parts: ReadonlyArray<readonly string[]> = []) => [...new Set(parts.map((p) => JSON.stringify(p)))].sort(byCodePoint);
    const [fence, share] = [keys(opts.fence), keys(opts.share)];
    // violations of a foreign key met so far: counted apart from the attempts, which other refusals (a deadlock) use
    // up too; a parent found gone twice is a fault of the unit's own
    let parentsGone = 0;
    for (let attempt = 1; ; attempt++) {
      // a serializable unit runs again alone in this instance (gate.ts); read committed ones never wait
      const alone = attempt > 1;
      const gated = isolation === 'serializable';
      if (gated) await gate.enter(alone);
      try {
        return await once(work, isolation, fence, share);
      } catch (error) {
        const code = sqlStateOf(error);
        // a deadlock, or a repository's optimistic check that found the rows it read changed (ConcurrentChange), at any
        // level; a unique key met is a retry only where SERIALIZABLE's read-then-insert made it one; a parent deleted
        // under a child's insert, twice at most
        const again =
          code !== undefined &&
          (RETRYABLE.has(code) ||
            (code === UNIQUE_VIOLATION && isolation === 'serializable') ||
            (code === FOREIGN_KEY_VIOLATION && ++parentsGone < FOREIGN_KEY_ATTEMPTS));
        if (!again || attempt >= attempts) {
          if (code === UNIQUE_VIOLATION) throw new StorageConflict(error);
          throw connectionLost(error) ? new StorageUnavailable(error) : error;
        }
        retried++;
      } finally {
        if (gated) gate.leave(alone);
      }
      // a short random pause, so that the units of work that collided (other instances' among them) do not collide again at once
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** Math.min(attempt + 1, 8)));
    }
  };

  return {
    kind: 'postgres',
    retries: () => retried,
    read(statements) {
      const unit = current();
      if (unit) return statements(unit.db);
      // a read on the pool: its connection's loss is answered as the unit of work's is
      return statements(poolDb).catch((error: unknown) => Promise.reject(connectionLost(error) ? new StorageUnavailable(error) : error));
    },
    write(statements) {
      const unit = current();
      if (unit) return statements(unit.db);
      return transaction(() => statements((current() as Unit).db));
    },
    async defer(send) {
      const unit = current();
      // outside a unit, and inside a nested one (a savepoint, whose failure its caller may catch and go on), awaited
      if (!unit || unit.depth > 0) return void (await send());
      coalesceWrites(unit.client);
      unit.deferred.push(
        send().then(
          () => undefined,
          (error: unknown) => error ?? new Error('a deferred statement failed'),
        ),
      );
    },
    transaction,
    inTransaction: () => current() !== undefined,
    afterCommit(callback) {
      const unit = current();
      if (unit) unit.committed.push(callback);
      else callback();
    },
    async claimInstance(shared = false, instanceId?: string) {
      // named after the instance (its cluster bus id): the cluster's identity check lists the instances running
      const name = instanceId === undefined ? INSTANCE_CONNECTION : `${INSTANCE_CONNECTION}:${instanceId}`;
      const client = new pg.Client({ connectionString: options.url, application_name: name });
      client.on('error', () => undefined);
      await client.connect();
      try {
        const { rows } = await client.query<{ claimed: boolean }>(`SELECT ${shared ? 'pg_try_advisory_lock_shared' : 'pg_try_advisory_lock'}($1) AS claimed`, [
          INSTANCE_LOCK,
        ]);
        if (rows[0]?.claimed) return { claimed: true, release: () => client.end().catch(() => undefined) };
      } catch (error) {
        await client.end().catch(() => undefined);
        throw error;
      }
      await client.end().catch(() => undefined);
      return { claimed: false };
    },
    async migrate() {
      const client = await pool.connect();
      try {
        await checkCollation(client);
        await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
        try {
          await migrate(drizzle(client), { migrationsFolder: MIGRATIONS });
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
        }
      } finally {
        client.release();
      }
    },
    async schemaStatus() {
      const known = readMigrationFiles({ migrationsFolder: MIGRATIONS });
      const table = await pool.query<{ exists: boolean }>("SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS exists");
      const rows = table.rows[0]?.exists
        ? (await pool.query<{ created_at: string }>('SELECT created_at FROM drizzle.__drizzle_migrations')).rows.map((r) => Number(r.created_at))
        : [];
      const last = rows.length > 0 ? Math.max(...rows) : undefined;
      const newestKnown = Math.max(0, ...known.map((m) => m.folderMillis));
      return {
        applied: rows.length,
        pending: known.filter((m) => last === undefined || m.folderMillis > last).length,
        unknown: rows.filter((at) => at > newestKnown).length,
      };
    },
    tableChanges(tables) {
      listen();
      for (const table of tables) watched.add(table);
      return () => {
        if (!listening) return ++unheard;
        let count = unheard;
        for (const table of tables) count += (notified.get(table) ?? 0) + (localByTable.get(table) ?? 0);
        return count;
      };
    },
    async close() {
      closed = true;
      await listener?.end().catch(() => undefined);
      await pool.end();
    },
  };
}
