// The write floor: raw better-sqlite3 inserts with prepared statements into a Hearth database (same schema, same
// pragmas as server/db/client.ts), no HTTP, no validation, no reads. Run in its own process by the write-floor
// suite, against the data dir of a stopped server.
//
//   tsx test/bench/raw-write-floor.ts users <db> <apiKeyId> <seconds>
//       transactions of 1,000 users, each a users row and an organization membership: what /v2/users/add with
//       1,000 users writes; prints users/s
//   tsx test/bench/raw-write-floor.ts notifications <db> <apiKeyId> <seconds>
//       one transaction per notification, its row and one recipient row: what one /v2/notifications/add writes;
//       prints notifications/s
import Database from 'better-sqlite3';
import { deriveInitial, internalUserId } from '../../server/services/users.ts';

const [kind, file, apiKeyId, secondsText] = process.argv.slice(2);
const seconds = Number(secondsText);
if ((kind !== 'users' && kind !== 'notifications') || !file || !apiKeyId || !(seconds > 0)) {
  throw new Error('usage: raw-write-floor.ts users|notifications <db> <apiKeyId> <seconds>');
}

const db = new Database(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
db.pragma('secure_delete = ON');
const organizationId = `raw-${kind}`;
const now = Date.now();
db.prepare("INSERT OR IGNORE INTO organizations (api_key_id, id, name, disabled, metadata, created_at, updated_at) VALUES (?, ?, '', 0, '{}', ?, ?)").run(apiKeyId, organizationId, now, now);
db.prepare("INSERT OR IGNORE INTO documents (api_key_id, organization_id, id, name, folder_id, access_type, disabled, metadata, created_at, updated_at) VALUES (?, ?, 'doc', '', NULL, 'public', 0, '{}', ?, ?)").run(apiKeyId, organizationId, now, now);

const user = db.prepare("INSERT INTO users (api_key_id, id, internal_id, name, email, initial, photo_url, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, NULL, '{}', ?, ?)");
const membership = db.prepare("INSERT INTO memberships (api_key_id, organization_id, level, resource_id, user_id, access_role, expires_at, created_at, updated_at) VALUES (?, ?, 'organization', ?, ?, 'editor', NULL, ?, ?)");
const notification = db.prepare(
  `INSERT INTO notifications (api_key_id, organization_id, id, document_id, location_id, source, source_data, action_user, headline_template, headline_data, body, resolver, context_access, timestamp)
   VALUES (?, ?, ?, 'doc', NULL, 'custom', NULL, '{"userId":"actor"}', '{actionUser} pinged you', NULL, 'hello', 0, NULL, ?)`,
);
const recipient = db.prepare("INSERT INTO notification_recipients (api_key_id, organization_id, notification_id, user_id, document_id, timestamp, explicit, read_at) VALUES (?, ?, ?, 'reader', 'doc', ?, 1, NULL)");

let next = 0;
const usersBatch = db.transaction(() => {
  const at = Date.now();
  for (let i = 0; i < 1000; i++) {
    const userId = `raw-user-${next++}`;
    const name = `User ${next}`;
    user.run(apiKeyId, userId, internalUserId(apiKeyId, userId), name, `${userId}@example.com`, deriveInitial({ name, userId }), at, at);
    membership.run(apiKeyId, organizationId, organizationId, userId, at, at);
  }
});
const oneNotification = db.transaction(() => {
  const id = String(2_000_000_000_000_000 + next++);
  const at = Date.now();
  notification.run(apiKeyId, organizationId, id, at);
  recipient.run(apiKeyId, organizationId, id, at);
});
// Hearth's writes take the write lock up front (BEGIN IMMEDIATE): so does the floor
const write = kind === 'users' ? () => usersBatch.immediate() : () => oneNotification.immediate();

const warmUpUntil = performance.now() + 500;
while (performance.now() < warmUpUntil) write();
const from = next;
const started = performance.now();
const until = started + seconds * 1000;
while (performance.now() < until) write();
const elapsed = (performance.now() - started) / 1000;
db.close();
console.log(JSON.stringify({ perSecond: (next - from) / elapsed, rows: next - from, seconds: elapsed }));
