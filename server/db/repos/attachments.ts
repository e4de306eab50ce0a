// Recordings' attachment bytes, beside the rows that describe them (recordings.ts). On SQLite they are files in
// DATA_DIR/attachments, one per storage key: the one process that serves them has them on its disk. On PostgreSQL
// (pg/repos/attachments.ts) they are rows of attachment_blobs, so that every instance of a cluster serves every
// attachment. Either way the bytes are stored before the unit of work that records their row (no file I/O or large
// write inside it) and removed when it fails; what a crash leaves between the two, or a delete that only dropped
// rows (a document's, an organization's), has no row pointing at it and is swept.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { attachmentsDir } from '../../data-files.ts';

export interface AttachmentStore {
  /** Where the bytes are: files of the data dir, or the database. */
  readonly kind: 'files' | 'database';
  /** Stores each file's bytes under its storage key. */
  put(files: ReadonlyArray<{ key: string; bytes: Buffer }>): Promise<void>;
  /** The bytes stored under `key`, or undefined. */
  get(key: string): Promise<Buffer | undefined>;
  /** Removes the bytes of these keys (those that exist). */
  remove(keys: readonly string[]): Promise<void>;
  /**
   * Removes the bytes no attachment row points at, among those stored before `storedBefore` (ms since the epoch):
   * bytes stored later may belong to a unit of work that has not committed yet. Answers how many it removed.
   */
  sweep(storedBefore: number): Promise<number>;
}

/** The attachment files of a data dir (DATA_DIR/attachments), and `storedKeys`: which of some keys have a row. */
export function fileAttachmentStore(dataDir: string, storedKeys: (names: readonly string[]) => Promise<Set<string>>): AttachmentStore {
  const dir = attachmentsDir(dataDir);
  return {
    kind: 'files',
    async put(files) {
      if (files.length === 0) return;
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const written: string[] = [];
      try {
        for (const f of files) {
          // counted first: a write that fails half-way (disk full) leaves a file to remove too
          written.push(f.key);
          writeFileSync(join(dir, f.key), f.bytes, { mode: 0o600 });
        }
      } catch (error) {
        for (const key of written) rmSync(join(dir, key), { force: true });
        throw error;
      }
    },
    async get(key) {
      try {
        return readFileSync(join(dir, key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    async remove(keys) {
      for (const key of keys) rmSync(join(dir, key), { force: true });
    },
    async sweep(storedBefore) {
      if (!existsSync(dir)) return 0;
      const names = readdirSync(dir);
      const stored = await storedKeys(names);
      let removed = 0;
      for (const name of names) {
        if (stored.has(name)) continue;
        const path = join(dir, name);
        const written = statSync(path, { throwIfNoEntry: false });
        if (!written || written.mtimeMs >= storedBefore) continue;
        rmSync(path, { force: true });
        removed++;
      }
      return removed;
    },
  };
}
