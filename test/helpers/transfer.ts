/** Temp dirs, file scans and database snapshots for the export/import tests. */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll } from 'vitest';
import { startTestServer, type TestServer } from './server.ts';

/** Temp dirs removed after the file's tests. */
export function tempDirs() {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
}

/** A server on an existing data dir's SQLite that is kept after close (the test removes it). */
export const serverOn = (dataDir: string, overrides: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> =>
  startTestServer({ ...overrides, dataDir }, { engine: 'sqlite' });

/** Every file under a directory, with its bytes. */
export function filesUnder(dir: string): Array<{ path: string; bytes: Buffer }> {
  const out: Array<{ path: string; bytes: Buffer }> = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push({ path, bytes: readFileSync(path) });
  }
  return out;
}

/** The files of an archive that contain `needle` (as UTF-8 or as base64 of it). */
export function filesContaining(dir: string, needle: string): string[] {
  const forms = [Buffer.from(needle), Buffer.from(Buffer.from(needle).toString('base64').replace(/=+$/, '').slice(0, -2))];
  return filesUnder(dir)
    .filter((f) => forms.some((form) => form.length > 0 && f.bytes.includes(form)))
    .map((f) => f.path);
}

/** Every row of every table of a data dir's database, plus the attachment files: equal snapshots mean nothing changed. */
export function snapshotDataDir(dataDir: string): string {
  const file = join(dataDir, 'hearth.db');
  if (!existsSync(file)) return `no database; files: ${existsSync(dataDir) ? readdirSync(dataDir).join(',') : 'no dir'}`;
  const db = new Database(file, { readonly: true });
  try {
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>
    ).map((t) => t.name);
    const hash = createHash('sha256');
    for (const table of tables) {
      hash.update(table);
      const rows = db
        .prepare(`SELECT * FROM "${table}"`)
        .raw()
        .all()
        .map((row) => JSON.stringify(row, (_, v) => (typeof v === 'bigint' ? String(v) : v)));
      for (const row of rows.sort()) hash.update(row);
    }
    const attachments = join(dataDir, 'attachments');
    const files = existsSync(attachments) ? readdirSync(attachments).sort().join(',') : '';
    return `${hash.digest('hex')} files:${files}`;
  } finally {
    db.close();
  }
}

/** Rewrites a file of an archive and its checksum in the manifest (so that only the content check can catch it). */
export function rewriteArchiveFile(archive: string, relative: string, content: string | Buffer) {
  writeFileSync(join(archive, relative), content);
  const manifestFile = join(archive, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  const bytes = readFileSync(join(archive, relative));
  manifest.files[relative] = { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length };
  const table = manifest.tables.find((t: { file: string }) => t.file === relative);
  if (table)
    table.rows = bytes
      .toString('utf8')
      .split('\n')
      .filter((l) => l !== '').length;
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
}

/** What editManifest hands its callback: the manifest's fields the tests change. */
export interface EditableManifest {
  formatVersion: number;
  schemaLevel: number;
  tables: { name: string; file: string; rows: number }[];
  [field: string]: unknown;
}

export function editManifest(archive: string, edit: (manifest: EditableManifest) => void) {
  const manifestFile = join(archive, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as EditableManifest;
  edit(manifest);
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
}
