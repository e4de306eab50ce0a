// The y-websocket reference server (@y/websocket-server's utilities, in memory, no persistence) as the peer
// Hearth's sync is measured against. Started as a child process by the crdt suite; prints its port.
//
// With a mode and a data directory as arguments, it is a floor of a server that stores each update before anyone
// is sent it, as Hearth's contract asks (a kill -9 loses nothing a client saw): the same server, but each update a
// client sends is first written to SQLite (better-sqlite3, WAL, synchronous = NORMAL, as Hearth's), by a 'message'
// listener that runs before y-websocket's, which applies and broadcasts it.
// - `stored`: the update appended by one INSERT of its own into a table with no index but the rowid: the least any
//   stored-first server does on this machine.
// - `stored-statements`: Hearth's own statements for it (server/db/repos/crdt.ts, SQLite): in one transaction
//   (BEGIN IMMEDIATE … COMMIT), the document's row bumped (its count, time and author, RETURNING the count), then
//   the update appended to a log keyed by AUTOINCREMENT with an index by document, under the same pragmas (foreign
//   keys, secure_delete). What storing first costs with Hearth's schema, without the rest of Hearth.
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setupWSConnection } from '@y/websocket-server/utils';
import Database from 'better-sqlite3';
import * as decoding from 'lib0/decoding';
import { WebSocketServer } from 'ws';

type Append = (room: string, update: Uint8Array) => void;

const [mode, dataDir] = process.argv.slice(2);
const store = mode ? openStore(mode, dataDir) : undefined;

function openStore(kind: string, dir: string | undefined): { open(room: string): void; append: Append } {
  if (!dir || (kind !== 'stored' && kind !== 'stored-statements')) throw new Error('usage: yws-reference-server.ts [stored|stored-statements <data dir>]');
  mkdirSync(dir, { recursive: true });
  const db = new Database(join(dir, 'floor.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  if (kind === 'stored') {
    db.exec('CREATE TABLE IF NOT EXISTS updates (seq INTEGER PRIMARY KEY, room TEXT NOT NULL, "update" BLOB NOT NULL, created_at INTEGER NOT NULL)');
    const insert = db.prepare('INSERT INTO updates (room, "update", created_at) VALUES (?, ?, ?)');
    return { open: () => undefined, append: (room, update) => void insert.run(room, update, Date.now()) };
  }
  db.pragma('foreign_keys = ON');
  db.pragma('secure_delete = ON');
  db.exec(
    'CREATE TABLE IF NOT EXISTS docs (api_key_id TEXT NOT NULL, organization_id TEXT NOT NULL, document_id TEXT NOT NULL, editor_id TEXT NOT NULL,' +
      ' snapshot BLOB, update_count INTEGER NOT NULL DEFAULT 0, last_updated_by TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,' +
      ' PRIMARY KEY (api_key_id, organization_id, document_id, editor_id));' +
      'CREATE TABLE IF NOT EXISTS updates (seq INTEGER PRIMARY KEY AUTOINCREMENT, api_key_id TEXT NOT NULL, organization_id TEXT NOT NULL,' +
      ' document_id TEXT NOT NULL, editor_id TEXT NOT NULL, "update" BLOB NOT NULL, created_at INTEGER NOT NULL,' +
      ' FOREIGN KEY (api_key_id, organization_id, document_id, editor_id) REFERENCES docs (api_key_id, organization_id, document_id, editor_id) ON DELETE CASCADE);' +
      'CREATE INDEX IF NOT EXISTS updates_doc ON updates (api_key_id, organization_id, document_id, editor_id, seq);',
  );
  const key = ['ak_floor', 'org'] as const;
  const create = db.prepare(
    'INSERT OR IGNORE INTO docs (api_key_id, organization_id, document_id, editor_id, created_at, updated_at) VALUES (?, ?, ?, ?, 1, 1)',
  );
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const bump = db.prepare(
    'UPDATE docs SET update_count = update_count + 1, updated_at = ?, last_updated_by = ?' +
      ' WHERE api_key_id = ? AND organization_id = ? AND document_id = ? AND editor_id = ? AND created_at = 1 RETURNING update_count',
  );
  const insert = db.prepare('INSERT INTO updates (api_key_id, organization_id, document_id, editor_id, "update", created_at) VALUES (?, ?, ?, ?, ?, ?)');
  return {
    open: (room) => void create.run(...key, room, 'editor'),
    append(room, update) {
      const now = Date.now();
      begin.run();
      try {
        bump.get(now, 'writer', ...key, room, 'editor');
        insert.run(...key, room, 'editor', update, now);
        commit.run();
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw error;
      }
    },
  };
}

/** A sync message's update (sync step 2, or an update) appended; anything else passes as it is. */
function appendFirst(append: Append, room: string, data: Uint8Array) {
  const decoder = decoding.createDecoder(data);
  if (decoding.readVarUint(decoder) !== 0) return;
  const step = decoding.readVarUint(decoder);
  if (step === 1 || step === 2) append(room, decoding.readVarUint8Array(decoder));
}

const server = createServer((_req, res) => res.writeHead(200).end('ok'));
const wss = new WebSocketServer({ noServer: true });
wss.on('connection', (conn, req) => {
  if (store) {
    const room = (req.url ?? '/').slice(1).split('?')[0] ?? '';
    store.open(room);
    conn.on('message', (data: ArrayBuffer | Buffer) => appendFirst(store.append, room, new Uint8Array(data as ArrayBuffer)));
  }
  setupWSConnection(conn, req);
});
server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req)));
server.listen(0, '127.0.0.1', () => process.stdout.write(`PORT ${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
