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
//   tsx test/bench/raw-write-floor.ts comments <db> <apiKeyId> <seconds>
//       one transaction per new thread, the rows /v2/commentannotations/add with one comment writes (no webhook
//       receiver): the annotation, its comment, the author's read mark, the activity and the judgment; prints
//       threads/s
import Database from 'better-sqlite3';
import { scopeTerm } from '../../server/services/memory.ts';
import { deriveInitial, internalUserId } from '../../server/services/users.ts';

const [kind, file, apiKeyId, secondsText] = process.argv.slice(2);
const seconds = Number(secondsText);
if ((kind !== 'users' && kind !== 'notifications' && kind !== 'comments') || !file || !apiKeyId || !(seconds > 0)) {
  throw new Error('usage: raw-write-floor.ts users|notifications|comments <db> <apiKeyId> <seconds>');
}

const db = new Database(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
db.pragma('secure_delete = ON');
const organizationId = `raw-${kind}`;
const now = Date.now();
db.prepare("INSERT OR IGNORE INTO organizations (api_key_id, id, name, disabled, metadata, created_at, updated_at) VALUES (?, ?, '', 0, '{}', ?, ?)").run(
  apiKeyId,
  organizationId,
  now,
  now,
);
db.prepare(
  "INSERT OR IGNORE INTO documents (api_key_id, organization_id, id, name, folder_id, access_type, disabled, metadata, created_at, updated_at) VALUES (?, ?, 'doc', '', NULL, 'public', 0, '{}', ?, ?)",
).run(apiKeyId, organizationId, now, now);

const user = db.prepare(
  "INSERT INTO users (api_key_id, id, internal_id, name, email, initial, photo_url, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, NULL, '{}', ?, ?)",
);
const membership = db.prepare(
  "INSERT INTO memberships (api_key_id, organization_id, level, resource_id, user_id, access_role, expires_at, created_at, updated_at) VALUES (?, ?, 'organization', ?, ?, 'editor', NULL, ?, ?)",
);
const notification = db.prepare(
  `INSERT INTO notifications (api_key_id, organization_id, id, document_id, location_id, source, source_data, action_user, headline_template, headline_data, body, resolver, context_access, timestamp)
   VALUES (?, ?, ?, 'doc', NULL, 'custom', NULL, '{"userId":"actor"}', '{actionUser} pinged you', NULL, 'hello', 0, NULL, ?)`,
);
const recipient = db.prepare(
  "INSERT INTO notification_recipients (api_key_id, organization_id, notification_id, user_id, document_id, timestamp, explicit, read_at) VALUES (?, ?, ?, 'reader', 'doc', ?, 1, NULL)",
);

const annotation = db.prepare(
  `INSERT INTO comment_annotations (api_key_id, organization_id, id, document_id, location_id, location, target_element, status, status_id, priority, assigned_to, context, visibility, visible_to_user_ids, comment_type, created_by_user_id, resolved_by_user_id, created_at, updated_at)
   VALUES (?, ?, ?, 'doc', NULL, NULL, NULL, '{"id":"OPEN","name":"Open","type":"default"}', 'OPEN', NULL, NULL, NULL, 'public', NULL, NULL, 'ann', NULL, ?, ?)`,
);
const comment = db.prepare(
  `INSERT INTO comments (api_key_id, organization_id, annotation_id, id, from_user, from_user_id, text, html, tagged_user_contacts, mentioned_user_ids, context, created_at, updated_at)
   VALUES (?, ?, ?, 1, '{"userId":"ann","name":"Ann Archer"}', 'ann', 'hello there', NULL, NULL, '[]', NULL, ?, ?)`,
);
const read = db.prepare("INSERT INTO comment_reads (api_key_id, organization_id, annotation_id, user_id, read_at) VALUES (?, ?, ?, 'ann', ?)");
const activity = db.prepare(
  `INSERT INTO activities (api_key_id, organization_id, id, document_id, feature_type, action_type, action_user, action_user_id, target_entity_id, target_sub_entity_id, changes, entity_data, entity_target_data, display_message_template, display_message_template_data, action_icon, resolver, timestamp)
   VALUES (?, ?, ?, 'doc', 'comment', 'comment.add', '{"userId":"ann","name":"Ann Archer"}', 'ann', ?, '1', NULL, '{"commentText":"hello there"}', NULL, '{{actionUser}} added a comment', '{"actionUser":"Ann Archer"}', NULL, 0, ?)`,
);
const judgment = db.prepare(
  `INSERT INTO judgments (id, api_key_id, organization_id, document_id, decision, reviewer_id, reviewer_name, subject, reasoning, scope_terms, source, source_id, created_at)
   VALUES (?, ?, ?, 'doc', 'comment', 'ann', 'Ann Archer', 'hello there', 'hello there', ?, 'comment', ?, ?)`,
);

// the judgment's scope, as memory.ts writes it (the key's, the organization's and the document's terms)
const scopeTerms = [scopeTerm('k', apiKeyId), scopeTerm('o', apiKeyId, organizationId), scopeTerm('d', apiKeyId, organizationId, 'doc')].join(' ');

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
const oneThread = db.transaction(() => {
  const id = `raw-thread-${next++}`;
  const at = Date.now();
  annotation.run(apiKeyId, organizationId, id, at, at);
  comment.run(apiKeyId, organizationId, id, at, at);
  read.run(apiKeyId, organizationId, id, at);
  activity.run(apiKeyId, organizationId, `raw-activity-${next}`, id, at);
  judgment.run(`jdg_raw_${next}`, apiKeyId, organizationId, scopeTerms, `${id}/1`, at);
});
// Hearth's writes take the write lock up front (BEGIN IMMEDIATE): so does the floor
const write = kind === 'users' ? () => usersBatch.immediate() : kind === 'notifications' ? () => oneNotification.immediate() : () => oneThread.immediate();

const warmUpUntil = performance.now() + 500;
while (performance.now() < warmUpUntil) write();
const from = next;
const started = performance.now();
const until = started + seconds * 1000;
while (performance.now() < until) write();
const elapsed = (performance.now() - started) / 1000;
db.close();
console.log(JSON.stringify({ perSecond: (next - from) / elapsed, rows: next - from, seconds: elapsed }));
