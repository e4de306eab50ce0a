/**
 * Export and import of a data dir's state as a portable, versioned directory (see export.ts and import.ts):
 *
 *   manifest.json               format name and version, Hearth version, schema level, creation time, scope,
 *                               how secrets are carried, per table its columns and row count, sha256 of every file
 *   tables/<table>.jsonl        one row per line, keyed by the schema's property names (JSON columns as JSON);
 *                               crdt_documents.snapshot is the document as one merged Yjs update (base64)
 *   files/attachments/<key>     the recordings' attachment files, as they are
 *
 * This module holds the options, manifest and summaries both directions share; exportArchive is export.ts's,
 * importArchive import.ts's.
 */
import type { Scope } from './archive-schema.ts';
import type { ArchiveSecrets, SecretsMode } from './archive-secrets.ts';

export type ProgressCallback = (done: number, total: number, label: string) => void;

/**
 * Where a data dir's rows are: its own SQLite files (hearth.db and webhooks.db, the default), or a PostgreSQL
 * database (issue 31), which keeps the attachments' bytes too; the server's data dir keeps the master key.
 */
export type ArchiveDatabase = { engine: 'sqlite' } | { engine: 'postgres'; url: string };

export interface ExportOptions {
  /** The data dir; with PostgreSQL, the one whose master key opens the database's secrets and whose attachments the rows name. */
  dataDir: string;
  /** Where the rows are read from (default: the data dir's SQLite files). */
  database?: ArchiveDatabase;
  /** A directory that does not exist yet, or is empty. */
  out: string;
  workspaceId?: string;
  apiKeyId?: string;
  secrets: SecretsMode;
  /** Required with `secrets: 'include'`. */
  passphrase?: string;
  onProgress?: ProgressCallback;
}

export interface ImportOptions {
  /** The data dir; with PostgreSQL, the one whose master key seals the imported secrets (the attachments go into the database). */
  dataDir: string;
  /** Where the rows are written (default: the data dir's SQLite files, created when missing). */
  database?: ArchiveDatabase;
  from: string;
  /** `fail` (default): refuse if any row exists already; `skip`: keep existing rows; `replace`: overwrite them. */
  conflict: 'fail' | 'skip' | 'replace';
  passphrase?: string;
  onProgress?: ProgressCallback;
}

export interface Manifest {
  format: string;
  formatVersion: number;
  hearthVersion: string;
  schemaLevel: number;
  createdAt: string;
  scope: Scope;
  secrets: ArchiveSecrets;
  /** Tables in the order they are imported (parents first). */
  tables: Array<{ name: string; file: string; rows: number; columns: string[]; identity: string[]; parentOnly?: boolean }>;
  /** Every file of the archive but manifest.json, with its sha256 (hex) and size. */
  files: Record<string, { sha256: string; bytes: number }>;
  /** Tables deliberately not in the archive, and why. */
  notExported: Record<string, string>;
  /** Secrets left out (omit), per table and column: how many values. */
  omittedSecrets: Array<{ table: string; column: string; label: string; rows: number }>;
}

export interface ExportSummary {
  out: string;
  scope: Scope;
  secrets: SecretsMode;
  tables: Record<string, number>;
  rows: number;
  files: number;
  bytes: number;
  durationMs: number;
  omittedSecrets: Manifest['omittedSecrets'];
}

export interface ImportSummary {
  dataDir: string;
  from: string;
  scope: Scope;
  conflict: ImportOptions['conflict'];
  tables: Record<string, { inserted: number; replaced: number; skipped: number }>;
  rows: { inserted: number; replaced: number; skipped: number };
  files: number;
  durationMs: number;
  /** Secrets the archive did not carry, generated fresh on the target (which ones, how many). */
  generatedSecrets: Array<{ table: string; column: string; label: string; rows: number }>;
  /** Rows not imported because they are nothing but a secret that was left out (e.g. AI provider keys). */
  droppedSecretRows: Array<{ table: string; label: string; rows: number }>;
}
