import type { Db } from './client.ts';

/**
 * Statements prepared once per database and reused: drizzle builds SQL and better-sqlite3 compiles it on
 * every call otherwise, which dominates a hot path such as authentication. `build` runs once per `db`.
 */
export function preparedFor<T>(build: (db: Db) => T): (db: Db) => T {
  const cache = new WeakMap<Db, T>();
  return (db) => {
    let prepared = cache.get(db);
    if (!prepared) {
      prepared = build(db);
      cache.set(db, prepared);
    }
    return prepared;
  };
}
