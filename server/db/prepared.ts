import type Database from 'better-sqlite3';
import type { Db } from './client.ts';

type Session = { client: Database.Database };

/**
 * The session a drizzle database or transaction runs on. drizzle gives a transaction (and a nested one) the
 * session of the database that opened it, so a query prepared on one runs on the others.
 */
const sessionOf = (db: Db): Session => (db as unknown as { session: Session }).session;

/**
 * The better-sqlite3 connection under a drizzle database or transaction: for plain SQL in a service's hot path
 * (compiled once by the statement cache of db/client.ts), run inside the caller's transaction.
 */
export const connectionOf = (db: Db): Database.Database => sessionOf(db).client;

/**
 * Queries built by drizzle once per connection, with placeholders for their values, and reused. Building a
 * select costs drizzle 50–80 µs (its `is()` walks prototype chains for every column and chunk), many times what
 * SQLite then takes to run it: a lookup by primary key runs in 2–3 µs. `build` runs once per connection; the
 * queries it returns run on that connection inside or outside a transaction (`db` or any `tx` of it).
 */
export function preparedFor<T>(build: (db: Db) => T): (db: Db) => T {
  const cache = new WeakMap<object, T>();
  return (db) => {
    const session = sessionOf(db);
    let prepared = cache.get(session);
    if (!prepared) {
      prepared = build(db);
      cache.set(session, prepared);
    }
    return prepared;
  };
}

/**
 * preparedFor with one query per shape: `shape` names the filters a call uses, from a fixed set of keys (never
 * the caller's values), and `build` prepares the query of that shape the first time it is asked for.
 */
export function preparedShapes<S extends string, T>(build: (db: Db, shape: S) => T): (db: Db, shape: S) => T {
  const shapesOf = preparedFor(() => new Map<S, T>());
  return (db, shape) => {
    const shapes = shapesOf(db);
    let prepared = shapes.get(shape);
    if (prepared === undefined) {
      // a shape that counts ids (a folder chain's depth) has no fixed bound: past MAX_SHAPES the cache starts over
      if (shapes.size >= MAX_SHAPES) shapes.clear();
      shapes.set(shape, (prepared = build(db, shape)));
    }
    return prepared;
  };
}

const MAX_SHAPES = 256;
