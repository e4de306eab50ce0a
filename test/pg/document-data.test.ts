// The document-data repository (written once) does to every table on PostgreSQL what it does on SQLite (test/helpers/pg-parity.ts): a
// migration moves a document's data to another id (the collaborative content's parent rows and update log
// included), a deletion clears the tables db/tenancy.ts's DOCUMENT_DATA marks deleted (and their cascades) and keeps
// the rest; other documents, other organizations and the other key are untouched. Every table is read on both
// engines after each step and compared, and checked for what it must hold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentDataRepo } from '../../server/db/repos/document-data.ts';
import { type BothEngines, bothEngines } from '../helpers/pg-parity.ts';

let both: BothEngines;

/** Each table's rows as text (no booleans, blobs by their length), sorted: the same SQL on both engines. */
const DUMPS: Record<string, string> = {
  memberships: "api_key_id || '|' || organization_id || '|' || level || '|' || resource_id || '|' || user_id",
  notifications: "api_key_id || '|' || organization_id || '|' || id || '|' || document_id",
  notification_recipients: "api_key_id || '|' || organization_id || '|' || notification_id || '|' || user_id || '|' || document_id",
  notification_configs: "api_key_id || '|' || organization_id || '|' || document_id || '|' || user_id",
  activities: "api_key_id || '|' || organization_id || '|' || id || '|' || coalesce(document_id, '-')",
  comment_annotations: "api_key_id || '|' || organization_id || '|' || id || '|' || document_id",
  recordings: "api_key_id || '|' || organization_id || '|' || id || '|' || document_id",
  recording_attachments: "api_key_id || '|' || organization_id || '|' || recording_id || '|' || CAST(attachment_id AS TEXT)",
  crdt_documents:
    "api_key_id || '|' || organization_id || '|' || document_id || '|' || editor_id || '|' || type || '|' || CAST(length(snapshot) AS TEXT) || '|' || CAST(update_count AS TEXT)",
  crdt_updates:
    "CAST(seq AS TEXT) || '|' || api_key_id || '|' || organization_id || '|' || document_id || '|' || editor_id || '|' || CAST(length(\"update\") AS TEXT)",
};

async function dump(engine: 'sqlite' | 'pg') {
  const out: Record<string, string[]> = {};
  for (const [table, row] of Object.entries(DUMPS)) {
    const text = `SELECT ${row} AS r FROM ${table} ORDER BY 1`;
    out[table] =
      engine === 'sqlite'
        ? (both.sqlite.main.sqlite.prepare(text).pluck().all() as string[])
        : await both.engine.read(async (db) => (await db.$client.query<{ r: string }>(text)).rows.map((x) => x.r));
  }
  return out;
}

beforeAll(async () => {
  both = await bothEngines();
  const orgs: Array<[string, string]> = [
    ['k1', 'acme'],
    ['k1', 'beta'],
    ['k2', 'acme'],
  ];
  let seq = 0;
  for (const [key, org] of orgs) {
    await both.insertBoth('INSERT INTO organizations (api_key_id, id, name, disabled, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      key,
      org,
      org,
      false,
      '{}',
      1,
      1,
    ]);
    for (const doc of ['d1', 'd2', 'd3']) {
      await both.insertBoth(
        'INSERT INTO memberships (api_key_id, organization_id, level, resource_id, user_id, access_role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [key, org, 'document', doc, 'ann', 'editor', 1, 1],
      );
      // a folder that happens to share the document's id is not the document's
      await both.insertBoth(
        'INSERT INTO memberships (api_key_id, organization_id, level, resource_id, user_id, access_role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [key, org, 'folder', doc, 'bob', 'viewer', 1, 1],
      );
      await both.insertBoth(
        'INSERT INTO notifications (api_key_id, organization_id, id, document_id, location_id, source, source_data, action_user, headline_template, headline_data, body, resolver, context_access, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [key, org, `n-${doc}`, doc, null, 'custom', null, '{"userId":"x"}', 'h', null, 'b', false, null, 1],
      );
      await both.insertBoth(
        'INSERT INTO notification_recipients (api_key_id, organization_id, notification_id, user_id, document_id, timestamp, explicit, read_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [key, org, `n-${doc}`, 'ann', doc, 1, true, null],
      );
      await both.insertBoth(
        'INSERT INTO notification_configs (api_key_id, organization_id, document_id, user_id, inbox, email, slack, channels_set, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [key, org, doc, 'ann', 'ALL', 'MINE', 'NONE', 7, 1],
      );
      await both.insertBoth(
        'INSERT INTO activities (api_key_id, organization_id, id, document_id, feature_type, action_type, action_user, action_user_id, resolver, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [key, org, `a-${doc}`, doc, 'custom', 'x', '{"userId":"x"}', 'x', false, 1],
      );
      await both.insertBoth(
        'INSERT INTO comment_annotations (api_key_id, organization_id, id, document_id, status_id, visibility, created_by_user_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [key, org, `c-${doc}`, doc, 'open', 'public', 'ann', 1, 1],
      );
      await both.insertBoth(
        'INSERT INTO recordings (api_key_id, organization_id, id, document_id, recording_type, mode, display_name, duration_ms, from_user, from_user_id, latest_version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [key, org, `r-${doc}`, doc, 'audio', 'standard', '', 1, '{"userId":"x"}', 'x', 1, 1, 1],
      );
      await both.insertBoth(
        'INSERT INTO recording_attachments (api_key_id, organization_id, recording_id, attachment_id, version, name, type, mime_type, size, sha256, storage_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [key, org, `r-${doc}`, 1, 1, 'f', 'audio', 'audio/webm', 1, 's', `key-${key}-${org}-${doc}`, 1],
      );
      for (const editor of ['e1', 'e2']) {
        await both.insertBoth(
          'INSERT INTO crdt_documents (api_key_id, organization_id, document_id, editor_id, type, content_key, infer, snapshot, update_count, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          [key, org, doc, editor, 'text', 'content', 0, Buffer.from([1, 2, 3]), 2, 1, 1],
        );
        for (const size of [4, 5])
          await both.insertBoth(
            'INSERT INTO crdt_updates (seq, api_key_id, organization_id, document_id, editor_id, "update", created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
            [++seq, key, org, doc, editor, Buffer.alloc(size, 7), 1],
          );
      }
    }
  }
  // an activity without a document stays whatever is deleted
  await both.insertBoth(
    'INSERT INTO activities (api_key_id, organization_id, id, document_id, feature_type, action_type, action_user, action_user_id, resolver, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ['k1', 'acme', 'a-none', null, 'custom', 'x', '{"userId":"x"}', 'x', false, 1],
  );
});
afterAll(() => both?.close());

describe('document data', () => {
  it('moves and deletes a document’s data table by table as on SQLite, and nothing of other documents, organizations or keys', async () => {
    const { k1, k2 } = both;
    const port = documentDataRepo(both.pg);
    const steps: Array<[string, (repo: typeof port) => Promise<void>]> = [
      ['move d2 → d9 in k1/acme', (repo) => repo.move(k1, 'acme', 'd2', 'd9')],
      ['move of a document without data', (repo) => repo.move(k1, 'acme', 'missing', 'd8')],
      ['delete d1, d9 and a missing one in k1/acme', (repo) => repo.delete(k1, 'acme', ['d1', 'missing', 'd9'])],
      ['delete of nothing', (repo) => repo.delete(k2, 'acme', [])],
      ['delete in k2 of an organization only k1 has', (repo) => repo.delete(k2, 'beta', ['d3'])],
    ];
    const states: Record<string, Record<string, string[]>> = {};
    for (const [name, step] of steps) {
      await step(both.storage.documentData);
      await step(port);
      const sqlite = await dump('sqlite');
      expect(await dump('pg'), name).toEqual(sqlite);
      states[name] = sqlite;
    }
    // what the tables must hold, beyond being the same
    const moved = states['move d2 → d9 in k1/acme']!;
    const of = (rows: string[] | undefined, prefix: string) => (rows ?? []).filter((r) => r.startsWith(prefix));
    expect(of(moved.memberships, 'k1|acme|')).toEqual([
      'k1|acme|document|d1|ann',
      'k1|acme|document|d3|ann',
      'k1|acme|document|d9|ann',
      'k1|acme|folder|d1|bob',
      'k1|acme|folder|d2|bob',
      'k1|acme|folder|d3|bob',
    ]);
    expect(of(moved.notifications, 'k1|acme|')).toContain('k1|acme|n-d2|d9');
    expect(of(moved.notification_recipients, 'k1|acme|')).toContain('k1|acme|n-d2|ann|d9');
    expect(of(moved.notification_configs, 'k1|acme|')).toEqual(['k1|acme|d1|ann', 'k1|acme|d3|ann', 'k1|acme|d9|ann']);
    expect(of(moved.activities, 'k1|acme|a-d2')).toEqual(['k1|acme|a-d2|d9']);
    expect(of(moved.comment_annotations, 'k1|acme|c-d2')).toEqual(['k1|acme|c-d2|d9']);
    expect(of(moved.recordings, 'k1|acme|r-d2')).toEqual(['k1|acme|r-d2|d9']);
    expect(of(moved.crdt_documents, 'k1|acme|')).toEqual([
      'k1|acme|d1|e1|text|3|2',
      'k1|acme|d1|e2|text|3|2',
      'k1|acme|d3|e1|text|3|2',
      'k1|acme|d3|e2|text|3|2',
      'k1|acme|d9|e1|text|3|2',
      'k1|acme|d9|e2|text|3|2',
    ]);
    // the update log keeps its sequence numbers under the new id; k2's d2 is still d2
    expect(moved.crdt_updates!.filter((r) => r.includes('|k1|acme|d9|'))).toHaveLength(4);
    expect(moved.crdt_updates!.filter((r) => r.includes('|k1|acme|d2|'))).toEqual([]);
    expect(moved.crdt_updates!.filter((r) => r.includes('|k2|acme|d2|'))).toHaveLength(4);
    expect(states['move of a document without data']).toEqual(moved);

    const deleted = states['delete d1, d9 and a missing one in k1/acme']!;
    expect(of(deleted.memberships, 'k1|acme|')).toEqual(['k1|acme|document|d3|ann', 'k1|acme|folder|d1|bob', 'k1|acme|folder|d2|bob', 'k1|acme|folder|d3|bob']);
    for (const table of ['notifications', 'comment_annotations', 'recordings'])
      expect(of(deleted[table], 'k1|acme|').map((r) => r.split('|').at(-1))).toEqual(['d3']);
    expect(of(deleted.notification_recipients, 'k1|acme|')).toEqual(['k1|acme|n-d3|ann|d3']);
    expect(of(deleted.notification_configs, 'k1|acme|')).toEqual(['k1|acme|d3|ann']);
    expect(of(deleted.activities, 'k1|acme|')).toEqual(['k1|acme|a-d3|d3', 'k1|acme|a-none|-']);
    expect(of(deleted.recording_attachments, 'k1|acme|')).toEqual(['k1|acme|r-d3|1']);
    expect(of(deleted.crdt_documents, 'k1|acme|').map((r) => r.split('|')[2])).toEqual(['d3', 'd3']);
    expect(deleted.crdt_updates!.filter((r) => r.includes('|k1|acme|'))).toHaveLength(4);
    // the same documents of k1's other organization and of k2 are all there
    for (const prefix of ['k1|beta|', 'k2|acme|']) {
      expect(of(deleted.recordings, prefix)).toHaveLength(3);
      expect(of(deleted.crdt_documents, prefix)).toHaveLength(6);
    }
    expect(states['delete of nothing']).toEqual(deleted);
    const last = states['delete in k2 of an organization only k1 has']!;
    expect(of(last.recordings, 'k2|beta|')).toEqual([]);
    expect(of(last.recordings, 'k2|acme|')).toHaveLength(3);
    expect(of(last.recordings, 'k1|')).toEqual(of(deleted.recordings, 'k1|'));
  });
});
