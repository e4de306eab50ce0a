// The feed at scale: notifications, activities and comment annotations (each with one comment) must stay O(page)
// at 10k and at 1M records in one API key. The rows are bulk-inserted with better-sqlite3 into the server's own
// database before it starts (an HTTP seed of a million records would take most of an hour here); reads then go
// through HTTP, to a server with its response cache off: every answer is computed by its query, which is what
// this suite is about (a repeated page answered from the cache is measured by the http-floor suite).

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { load, ratio, startChild, type Row } from '../harness.ts';

export const title = 'Feed: notifications, activities and comment annotations computed (response cache off), 10k vs 1M records per organization';

const SIZES = [10_000, 1_000_000];
// Documents, users and targets grow with the size, so that every filtered page is full at both sizes and only
// the total number of rows differs: 1,000 notifications per document, 2,000 per user, 500 per target.
const perSize = (size: number) => ({ docs: size / 1000, users: size / 2000, targets: size / 500 });

function seed(file: string, apiKeyId: string) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // a fill, not a measurement: no fsync, and a cache large enough for the indexes (with the default 2 MB the
  // seed of 3M rows took 500 s on a busy machine)
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  const org = db.prepare('INSERT INTO organizations (api_key_id, id, name, disabled, metadata, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?, ?)');
  const notification = db.prepare(
    `INSERT INTO notifications (api_key_id, organization_id, id, document_id, location_id, source, source_data, action_user, headline_template, headline_data, body, resolver, context_access, timestamp)
     VALUES (?, ?, ?, ?, ?, 'custom', NULL, ?, '{actionUser} did something', '{}', 'body text', 0, NULL, ?)`,
  );
  const recipient = db.prepare(
    'INSERT INTO notification_recipients (api_key_id, organization_id, notification_id, user_id, document_id, timestamp, explicit, read_at) VALUES (?, ?, ?, ?, ?, ?, 1, NULL)',
  );
  const activity = db.prepare(
    `INSERT INTO activities (api_key_id, organization_id, id, document_id, feature_type, action_type, action_user, action_user_id, target_entity_id, display_message_template, display_message_template_data, resolver, timestamp)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '{{user}} did it', '{}', 0, ?)`,
  );
  const annotation = db.prepare(
    `INSERT INTO comment_annotations (api_key_id, organization_id, id, document_id, location_id, location, status, status_id, visibility, created_by_user_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, '{"id":"OPEN","name":"Open","type":"default"}', 'OPEN', 'public', ?, ?, ?)`,
  );
  const comment = db.prepare(
    `INSERT INTO comments (api_key_id, organization_id, annotation_id, id, from_user, from_user_id, text, html, mentioned_user_ids, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, 'a comment of a few words', '<p>a comment of a few words</p>', '[]', ?, ?)`,
  );
  const features = ['comment', 'reaction', 'recorder', 'crdt', 'custom'];
  const start = Date.now() - 10 * 24 * 3600 * 1000;
  for (const size of SIZES) {
    const organizationId = `org${size}`;
    const { docs, users, targets } = perSize(size);
    db.transaction(() => {
      org.run(apiKeyId, organizationId, organizationId, '{}', start, start);
      for (let i = 0; i < size; i++) {
        const id = String(1_000_000_000_000_000 + i);
        const documentId = `doc-${i % docs}`;
        const userId = `user-${i % users}`;
        const timestamp = start + i * 10;
        notification.run(apiKeyId, organizationId, id, documentId, `loc-${i % 7}`, `{"userId":"actor-${i % 13}"}`, timestamp);
        recipient.run(apiKeyId, organizationId, id, userId, documentId, timestamp);
        const feature = features[i % 5] as string;
        activity.run(
          apiKeyId,
          organizationId,
          `act${id}`,
          documentId,
          feature,
          `${feature}.add`,
          `{"userId":"${userId}"}`,
          userId,
          `target-${i % targets}`,
          timestamp,
        );
        annotation.run(apiKeyId, organizationId, `ann${id}`, documentId, `loc-${i % 7}`, `{"id":"loc-${i % 7}"}`, userId, timestamp, timestamp);
        comment.run(apiKeyId, organizationId, `ann${id}`, 1, `{"userId":"${userId}"}`, userId, timestamp, timestamp);
      }
    })();
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

export async function run(): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-feed-'));
  const rows: Row[] = [];
  try {
    // first start: creates the database and the credentials; then stop, seed, and start again
    const first = await startChild(['server/cli.ts', '--port', '0', '--data-dir', dataDir]);
    const stopped = new Promise((resolve) => first.child.on('exit', resolve));
    first.child.kill('SIGTERM');
    await stopped;
    const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    const seeded = Date.now();
    seed(join(dataDir, 'hearth.db'), creds.apiKey);
    const seedSeconds = (Date.now() - seeded) / 1000;
    const server = await startChild(['server/cli.ts', '--port', '0', '--data-dir', dataDir], { RESPONSE_CACHE_MB: '0' });
    const headers = { 'x-svc-api-key': creds.apiKey, 'x-svc-auth-token': creds.authToken };
    try {
      const scenarios: Array<[string, string, (organizationId: string) => unknown]> = [
        ['notifications/get by document, page of 50', '/v2/notifications/get', (o) => ({ organizationId: o, documentId: 'doc-7', pageSize: 50 })],
        [
          'notifications/get by document + location, page of 50',
          '/v2/notifications/get',
          (o) => ({ organizationId: o, documentId: 'doc-7', locationId: 'loc-0', pageSize: 50 }),
        ],
        ['notifications/get by recipient, page of 50', '/v2/notifications/get', (o) => ({ organizationId: o, userId: 'user-3', pageSize: 50 })],
        [
          'notifications/get by recipient + document, asc, page of 50',
          '/v2/notifications/get',
          (o) => ({ organizationId: o, userId: 'user-3', documentId: 'doc-3', order: 'asc', pageSize: 50 }),
        ],
        ['activities/get whole organization, page of 50', '/v2/activities/get', (o) => ({ organizationId: o, pageSize: 50 })],
        ['activities/get by document, page of 50', '/v2/activities/get', (o) => ({ organizationId: o, documentId: 'doc-7', pageSize: 50 })],
        ['activities/get by user, page of 50', '/v2/activities/get', (o) => ({ organizationId: o, userId: 'user-4', pageSize: 50 })],
        ['activities/get by target entity, page of 50', '/v2/activities/get', (o) => ({ organizationId: o, targetEntityId: 'target-5', pageSize: 50 })],
        ['activities/get one feature type, page of 50', '/v2/activities/get', (o) => ({ organizationId: o, featureTypes: ['crdt'], pageSize: 50 })],
        [
          'commentannotations/get whole organization, page of 50 with their comments',
          '/v2/commentannotations/get',
          (o) => ({ organizationId: o, pageSize: 50 }),
        ],
        [
          'commentannotations/get by document, page of 50 with their comments',
          '/v2/commentannotations/get',
          (o) => ({ organizationId: o, documentId: 'doc-7', pageSize: 50 }),
        ],
      ];
      for (const [label, path, data] of scenarios) {
        const small = await load(server.url, path, JSON.stringify({ data: data(`org${SIZES[0]}`) }), headers);
        const large = await load(server.url, path, JSON.stringify({ data: data(`org${SIZES[1]}`) }), headers);
        rows.push({ scenario: `${label} @10k`, ...small });
        rows.push({
          scenario: `${label} @1M`,
          ...large,
          vs: `p50 ${ratio(large.p50 || 0.5, small.p50 || 0.5)} of @10k`,
          baseline: { scenario: 'the same @10k', figure: small.rps },
        });
      }
      rows.push({
        scenario: `seed: ${(SIZES.reduce((a, b) => a + b, 0) * 5).toLocaleString('en-US')} rows written into the stopped server's database`,
        rps: 0,
        p50: 0,
        p99: 0,
        figure: Math.round(seedSeconds),
        unit: 's',
      });
    } finally {
      server.child.kill('SIGTERM');
    }
  } finally {
    await new Promise((r) => setTimeout(r, 200));
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}
