// The drizzle database type of hearth.db and the better-sqlite3 connection under it: a leaf that the engine
// (client.ts, storage.ts) and the repositories' helpers (prepared.ts) both build on.
import type Database from 'better-sqlite3';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type * as schema from './schema.ts';

export type Db = BetterSQLite3Database<typeof schema>;

type Session = { client: Database.Database };

/**
 * The session a drizzle database or transaction runs on. drizzle gives a transaction (and a nested one) the
 * session of the database that opened it, so a query prepared on one runs on the others.
 */
export const sessionOf = (db: Db): Session => (db as unknown as { session: Session }).session;

/**
 * The better-sqlite3 connection under a drizzle database or transaction: for plain SQL in a service's hot path
 * (compiled once by the statement cache of db/client.ts), run inside the caller's transaction.
 */
export const connectionOf = (db: Db): Database.Database => sessionOf(db).client;
