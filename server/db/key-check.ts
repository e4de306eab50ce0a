// Whether the master key a process was given is the one this database's secrets are encrypted under. Checked
// where the database is opened, before anything reads a secret: a key that cannot read them (a data dir's
// master.key lost and made again, a cluster instance given another MASTER_KEY_FILE) stops the start with a clear
// message, rather than failing later on every token check and webhook signature.
import type Database from 'better-sqlite3';

/** What the opener knows of its key: its fingerprint (secrets.ts), and whether it can read a stored ciphertext. */
export interface MasterKeyCheck {
  fingerprint: string;
  decrypts(ciphertext: string): boolean;
  /** Where the key was read from, for the message. */
  path: string;
}

export class MasterKeyMismatchError extends Error {
  constructor(path: string, why: string) {
    super(
      `the master key ${path} is not the key this database's secrets are encrypted under (${why}): ` +
        'start with the key the data was made with (restore DATA_DIR/master.key from a backup, or give every instance ' +
        'the same MASTER_KEY_FILE). Nothing was changed.',
    );
    this.name = 'MasterKeyMismatchError';
  }
}

/**
 * Compares the key with the database's fingerprint. A database without one (made before the check existed, or
 * new) gets this key's, once a stored secret, if there is any, decrypts with it; two processes opening a new
 * database at once agree on the first fingerprint written.
 */
export function checkMasterKey(sqlite: Database.Database, key: MasterKeyCheck): void {
  const stored = () => sqlite.prepare<[], { fingerprint: string }>('SELECT fingerprint FROM master_key_check WHERE id = 1').get()?.fingerprint;
  let fingerprint = stored();
  if (fingerprint === undefined) {
    const secret = sqlite.prepare<[], { value: string }>('SELECT auth_token_enc AS value FROM workspaces LIMIT 1').get();
    if (secret !== undefined && !key.decrypts(secret.value)) throw new MasterKeyMismatchError(key.path, 'a workspace token does not decrypt with it');
    sqlite.prepare('INSERT OR IGNORE INTO master_key_check (id, fingerprint) VALUES (1, ?)').run(key.fingerprint);
    fingerprint = stored();
  }
  if (fingerprint !== key.fingerprint) throw new MasterKeyMismatchError(key.path, 'its fingerprint differs from the one the database keeps');
}
