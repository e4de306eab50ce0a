// Answers of read operations, kept as JSON text while the database has not changed. A client polling the same
// page (a notification feed, a document list) gets the bytes computed for the first poll (kept as UTF-8), without running the
// query and serializing the page again. The rule that makes this exact is the credentials cache's: any write to
// the database drops every answer — this connection's own writes show in `total_changes()`, other connections'
// and processes' (the CLI, an import) in `PRAGMA data_version`. An answer is kept only if nothing was written
// while it was computed. Only operations marked `cache: 'read'` are kept: answers that depend on nothing but the
// stored data, the caller's API key and the request body (no clock, no side effects). Bounded by bytes; past the
// bound the oldest answers go first (a Map keeps insertion order).
import type Database from 'better-sqlite3';

export class ResponseCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;
  private changes = -1;
  private version = -1;
  private readonly totalChanges: Database.Statement<[], number>;
  private readonly dataVersion: Database.Statement<[], number>;

  constructor(
    sqlite: Database.Database,
    private readonly maxBytes: number,
  ) {
    this.totalChanges = sqlite.prepare<[], number>('SELECT total_changes()').pluck();
    this.dataVersion = sqlite.prepare<[], number>('PRAGMA data_version').pluck();
  }

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  /** The database's state now, as a stamp; drops every answer when it changed since the last look. */
  stamp(): string {
    const changes = this.totalChanges.get() as number;
    const version = this.dataVersion.get() as number;
    if (changes !== this.changes || version !== this.version) {
      this.entries.clear();
      this.bytes = 0;
      this.changes = changes;
      this.version = version;
    }
    return `${changes}:${version}`;
  }

  /** The answer kept for `key` (UTF-8 JSON), if the database is as it was when the answer was computed. */
  get(key: string): Buffer | undefined {
    this.stamp();
    return this.entries.get(key);
  }

  /** Keeps `json` for `key` if the database is still as `stamp` (read before computing it) says. */
  set(key: string, json: Buffer, stamp: string) {
    // the key is UTF-16 in memory (two bytes a character), the answer UTF-8 bytes
    const size = key.length * 2 + json.length;
    if (size > this.maxBytes / 8 || this.stamp() !== stamp) return;
    const previous = this.entries.get(key);
    if (previous !== undefined) {
      this.entries.delete(key);
      this.bytes -= key.length * 2 + previous.length;
    }
    while (this.bytes + size > this.maxBytes) {
      const oldest = this.entries.entries().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest[0]);
      this.bytes -= oldest[0].length * 2 + oldest[1].length;
    }
    this.entries.set(key, json);
    this.bytes += size;
  }

  /** How many answers are kept (for tests). */
  get size(): number {
    return this.entries.size;
  }
}
