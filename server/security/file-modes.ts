// Files of the data dir, backups and exports are the owner's alone (0600; folders 0700), whatever the umask:
// the database holds every tenant's data, and only the folder's mode protected it before. SQLite gives a
// database's -wal and -shm files the database file's own mode, so making the database file owner-only first
// is enough for them; files an older Hearth left readable are narrowed when they are opened.
import { chmodSync, closeSync, existsSync, openSync, statSync } from 'node:fs';

export const OWNER_FILE_MODE = 0o600;
export const OWNER_DIR_MODE = 0o700;

/** Takes group and other permissions off `path` when it exists (a file an older Hearth, or a copy, left readable). */
export function narrowToOwner(path: string) {
  if (!existsSync(path)) return;
  const mode = statSync(path).mode & 0o777;
  if (mode & 0o077) chmodSync(path, mode & 0o700);
}

/** An empty owner-only file at `path` unless one is there (then narrowed): what SQLite then opens or VACUUMs INTO. */
export function ownerOnlyFile(path: string) {
  if (existsSync(path)) return narrowToOwner(path);
  closeSync(openSync(path, 'a', OWNER_FILE_MODE));
}

/** A SQLite database and its companions (-wal, -shm, -journal) owner-only, the database created empty if missing. */
export function ownerOnlyDatabase(path: string) {
  ownerOnlyFile(path);
  for (const suffix of ['-wal', '-shm', '-journal']) narrowToOwner(path + suffix);
}
