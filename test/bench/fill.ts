// Fills a stopped server's database fast, in its own process: notifications with exactly the rows and columns
// /v2/notifications/add writes (server/services/notifications.ts: the organization, the document, the users
// upserted for actionUser and notifyUsers, the notification, one recipient row per notified user), inserted with
// prepared statements in large transactions. An HTTP fill of a million notifications would take most of an hour.
//
//   tsx test/bench/fill.ts notifications <db> <apiKeyId> <organizationId> <count>
//   tsx test/bench/fill.ts to-size <db> <apiKeyId> <bytes>      (notifications with a longer body until the
//                                                                  file holds that many bytes: the cold-start set)
// Prints one JSON line: { rows, seconds, bytes }.
import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { deriveInitial, internalUserId } from '../../server/services/users.ts';

const BATCH = 50_000;
/** 1,000 notifications per document, every one to one of 500 recipients, from one of 13 actors. */
const PER_DOCUMENT = 1_000;
const RECIPIENTS = 500;
const ACTORS = 13;

function open(file: string) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // a fill, not a measurement: nothing here has to survive a crash
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  return db;
}

function filler(db: Database.Database, apiKeyId: string, organizationId: string, body: string) {
  const now = Date.now();
  const organization = db.prepare(
    "INSERT OR IGNORE INTO organizations (api_key_id, id, name, disabled, metadata, created_at, updated_at) VALUES (?, ?, '', 0, '{}', ?, ?)",
  );
  const document = db.prepare(
    "INSERT OR IGNORE INTO documents (api_key_id, organization_id, id, name, folder_id, access_type, disabled, metadata, created_at, updated_at) VALUES (?, ?, ?, '', NULL, 'public', 0, '{}', ?, ?)",
  );
  const user = db.prepare(
    "INSERT OR IGNORE INTO users (api_key_id, id, internal_id, name, email, initial, photo_url, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, NULL, ?, NULL, '{}', ?, ?)",
  );
  const notification = db.prepare(
    `INSERT INTO notifications (api_key_id, organization_id, id, document_id, location_id, source, source_data, action_user, headline_template, headline_data, body, resolver, context_access, timestamp)
     VALUES (?, ?, ?, ?, ?, 'custom', NULL, ?, '{actionUser} mentioned you', NULL, ?, 0, NULL, ?)`,
  );
  const recipient = db.prepare(
    'INSERT INTO notification_recipients (api_key_id, organization_id, notification_id, user_id, document_id, timestamp, explicit, read_at) VALUES (?, ?, ?, ?, ?, ?, 1, NULL)',
  );
  db.transaction(() => {
    organization.run(apiKeyId, organizationId, now, now);
    const people = [
      ...Array.from({ length: ACTORS }, (_, i) => [`actor-${i}`, `Actor ${i}`]),
      ...Array.from({ length: RECIPIENTS }, (_, i) => [`user-${i}`, `User ${i}`]),
    ] as Array<[string, string]>;
    for (const [id, name] of people) user.run(apiKeyId, id, internalUserId(apiKeyId, id), name, deriveInitial({ name, userId: id }), now, now);
  })();
  // notifications go back in time from now, 10 ms apart, so that the newest page is the same at any size
  return (from: number, count: number) => {
    db.transaction(() => {
      for (let i = from; i < from + count; i++) {
        const id = String(1_000_000_000_000_000 + i);
        const documentId = `doc-${Math.floor(i / PER_DOCUMENT)}`;
        if (i % PER_DOCUMENT === 0) document.run(apiKeyId, organizationId, documentId, now, now);
        const actor = i % ACTORS;
        const timestamp = now - i * 10;
        notification.run(apiKeyId, organizationId, id, documentId, `loc-${i % 7}`, `{"userId":"actor-${actor}","name":"Actor ${actor}"}`, body, timestamp);
        recipient.run(apiKeyId, organizationId, id, `user-${i % RECIPIENTS}`, documentId, timestamp);
      }
    })();
  };
}

function finish(db: Database.Database, file: string, rows: number, started: number) {
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  console.log(JSON.stringify({ rows, seconds: (performance.now() - started) / 1000, bytes: statSync(file).size }));
}

const [command, file, apiKeyId, ...rest] = process.argv.slice(2);
if (!file || !apiKeyId) throw new Error('usage: fill.ts notifications <db> <apiKeyId> <organizationId> <count> | to-size <db> <apiKeyId> <bytes>');
const started = performance.now();
if (command === 'notifications') {
  const [organizationId, countText] = rest;
  const count = Number(countText);
  if (!organizationId || !Number.isInteger(count) || count <= 0) throw new Error(`bad organization or count: ${rest.join(' ')}`);
  const db = open(file);
  const fill = filler(db, apiKeyId, organizationId, 'Have a look at the second paragraph.');
  for (let from = 0; from < count; from += BATCH) fill(from, Math.min(BATCH, count - from));
  finish(db, file, count, started);
} else if (command === 'to-size') {
  const bytes = Number(rest[0]);
  if (!Number.isFinite(bytes) || bytes <= 0) throw new Error(`bad size: ${rest[0]}`);
  const db = open(file);
  // a realistic body (a quoted comment of ~400 characters) so that the rows, not only the indexes, make the size
  const body =
    'Could you check the figures in the third table before Thursday? The totals do not match the summary above, and the legend still names last quarter. '.repeat(
      3,
    );
  const fill = filler(db, apiKeyId, 'bulk', body);
  let rows = 0;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  // the WAL holds what the last transactions wrote: count the pages SQLite reports, not the main file alone
  while ((db.pragma('page_count', { simple: true }) as number) * pageSize < bytes) {
    fill(rows, BATCH);
    rows += BATCH;
  }
  finish(db, file, rows, started);
} else {
  throw new Error(`unknown command ${command}`);
}
