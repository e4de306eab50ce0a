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
