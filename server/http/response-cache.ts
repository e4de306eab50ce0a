// Answers of read operations, kept as UTF-8 JSON while the database has not changed. A client polling the same
// page (a notification feed, a document list) gets the bytes computed for the first poll, without running the
// query and serializing the page again. The rule that makes this exact is the credentials cache's
// (server/db/change-stamp.ts): any write to the database drops every answer — this process's writes at once,
// other processes' (the CLI, an import) for every call that arrives after them. An answer is kept
// only if nothing was written while it was computed. Only operations marked `cache: 'read'` are kept: answers
// that depend on nothing but the stored data, the caller's API key and the request body (no clock, no side
// effects). Bounded by bytes; past the bound the oldest answers go first (a Map keeps insertion order).

export class ResponseCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;
  private generation = -1;

  /** `changes`: a number that changes whenever the database may have changed (storage's `engine.changes`). */
  constructor(
    private readonly changes: () => number,
    private readonly maxBytes: number,
  ) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  /** The database's state now, as a stamp; drops every answer when it changed since the last look. */
  stamp(): number {
    const generation = this.changes();
    if (generation !== this.generation) {
      this.entries.clear();
      this.bytes = 0;
      this.generation = generation;
    }
    return generation;
  }

  /** The answer kept for `key` (UTF-8 JSON), if the database is as it was when the answer was computed. */
  get(key: string): Buffer | undefined {
    this.stamp();
    return this.entries.get(key);
  }

  /** Keeps `json` for `key` if the database is still as `stamp` (read before computing it) says. */
  set(key: string, json: Buffer, stamp: number) {
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
