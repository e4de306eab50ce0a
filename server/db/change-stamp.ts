// Whether the database changed, for the caches that answer from memory (read answers; credentials, which watch
// this process's writes to their own tables and ask here only about other processes'). This process's own writes,
// on its main and its write connection, show in their `total_changes()`, counters in memory, looked at on every
// call. Other processes' commits (the CLI, an import) show in `PRAGMA data_version` of the main connection, which
// opens a read transaction (two file-lock syscalls); it is looked at once per event-loop turn, at the first look.
// A commit made elsewhere is therefore seen by every call that arrives after it (its request is read in a later
// turn); a call already being handled in the same turn as that commit was under way before it anyway.
import type Database from 'better-sqlite3';

export class ChangeStamp {
  private generation = 0;
  /** Bumped only by other connections' commits (`data_version`), for caches that watch this connection's own writes themselves. */
  private foreign = 0;
  private changes = -1;
  private version = -1;
  private versionLooked = false;
  private readonly totalChanges: Array<Database.Statement<[], number>>;
  private readonly dataVersion: Database.Statement<[], number>;
  private readonly nextTurn = () => {
    this.versionLooked = false;
  };

  /** `sqlite`: the main connection; `others`: this process's other connections to the same database. */
  constructor(sqlite: Database.Database, others: readonly Database.Database[] = []) {
    this.totalChanges = [sqlite, ...others].map((connection) => connection.prepare<[], number>('SELECT total_changes()').pluck());
    this.dataVersion = sqlite.prepare<[], number>('PRAGMA data_version').pluck();
  }

  /** A number that changes whenever the database may have changed since the last look. */
  current(): number {
    this.lookForeign();
    let changes = 0;
    // both only grow: their sum changes whenever either does
    for (const statement of this.totalChanges) changes += statement.get() as number;
    if (changes !== this.changes) {
      this.changes = changes;
      this.generation++;
    }
    return this.generation;
  }

  /** A number that changes whenever another connection or process may have committed since the last look. */
  foreignChanges(): number {
    this.lookForeign();
    return this.foreign;
  }

  private lookForeign() {
    if (this.versionLooked) return;
    this.versionLooked = true;
    setImmediate(this.nextTurn).unref();
    const version = this.dataVersion.get() as number;
    if (version !== this.version) {
      this.version = version;
      this.generation++;
      this.foreign++;
    }
  }
}

const stamps = new WeakMap<Database.Database, ChangeStamp>();

/** The one stamp of a database opened by this process (its main connection, and its others), shared by its caches. */
export function changeStampOf(sqlite: Database.Database, others: readonly Database.Database[] = []): ChangeStamp {
  let stamp = stamps.get(sqlite);
  if (stamp === undefined) {
    stamp = new ChangeStamp(sqlite, others);
    stamps.set(sqlite, stamp);
  }
  return stamp;
}

/** How many times this process's connections wrote to a watched table; the triggers of every watched table count here. */
interface TableWrites {
  count: number;
  watched: Set<string>;
}

const writesBySqlite = new WeakMap<Database.Database, TableWrites>();
const WRITTEN_FUNCTION = 'hearth_watched_table_written';

/**
 * Counts a connection's writes to `tables` (inserts, updates and deletes, cascaded ones included), with temporary
 * triggers: they live in this connection only and cost nothing on writes to other tables. A write later rolled back
 * still counts, which only drops a cache once more than needed.
 */
function watchTableWrites(sqlite: Database.Database, tables: readonly string[]): TableWrites {
  let writes = writesBySqlite.get(sqlite);
  if (writes === undefined) {
    const created: TableWrites = { count: 0, watched: new Set() };
    sqlite.function(WRITTEN_FUNCTION, { deterministic: false }, () => {
      created.count++;
      return null;
    });
    writesBySqlite.set(sqlite, (writes = created));
  }
  for (const table of tables) {
    if (writes.watched.has(table)) continue;
    for (const event of ['insert', 'update', 'delete']) {
      sqlite.exec(
        `CREATE TEMP TRIGGER IF NOT EXISTS "hearth_written_${table}_${event}" AFTER ${event} ON main."${table}" BEGIN SELECT ${WRITTEN_FUNCTION}(); END`,
      );
    }
    writes.watched.add(table);
  }
  return writes;
}

/**
 * A number that changes whenever `tables` may have been written: by this process's connections (`sqlite` and
 * `others`; counted by triggers, at once) or by another process's commit to anything (seen from the next event-loop
 * turn: the stamp cannot tell which table another process wrote).
 */
export function tableChanges(sqlite: Database.Database, others: readonly Database.Database[], tables: readonly string[]): () => number {
  const stamp = changeStampOf(sqlite, others);
  const writes = [sqlite, ...others].map((connection) => watchTableWrites(connection, tables));
  return () => {
    // both only grow, so their sum changes whenever either does
    let count = stamp.foreignChanges();
    for (const w of writes) count += w.count;
    return count;
  };
}
