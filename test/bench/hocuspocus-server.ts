// Hocuspocus (@hocuspocus/server 3) with SQLite persistence, as a second peer for Hearth's sync. Its own
// @hocuspocus/extension-sqlite needs the `sqlite3` native module, which does not build here; this is the same
// extension rebuilt on better-sqlite3: the Database extension with that extension's table and statements.
// Hocuspocus stores the whole document state, debounced (2 s, at most 10 s), not every update.
// Started as a child process by the crdt suite; prints its port.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database as HocuspocusDatabase } from '@hocuspocus/extension-database';
import { Server } from '@hocuspocus/server';
import Sqlite from 'better-sqlite3';

const dir = mkdtempSync(join(tmpdir(), 'hearth-bench-hocuspocus-'));
const db = new Sqlite(join(dir, 'hocuspocus.sqlite'));
db.pragma('journal_mode = WAL');
db.exec('CREATE TABLE IF NOT EXISTS "documents" ("name" varchar(255) NOT NULL, "data" blob NOT NULL, UNIQUE(name))');
const select = db.prepare<{ name: string }, { data: Buffer }>('SELECT data FROM "documents" WHERE name = $name ORDER BY rowid DESC');
const upsert = db.prepare('INSERT INTO "documents" ("name", "data") VALUES ($name, $data) ON CONFLICT(name) DO UPDATE SET data = $data');

const server = new Server({
  port: 0,
  address: '127.0.0.1',
  quiet: true,
  stopOnSignals: false,
  extensions: [
    new HocuspocusDatabase({
      fetch: async ({ documentName }) => select.get({ name: documentName })?.data ?? null,
      store: async ({ documentName, state }) => {
        upsert.run({ name: documentName, data: state });
      },
    }),
  ],
});

await server.listen();
process.stdout.write(`PORT ${server.address.port}\n`);
process.on('SIGTERM', async () => {
  await server.destroy();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
});
