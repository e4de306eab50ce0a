// The key-transfer repository on PostgreSQL does what SQLite's does (test/helpers/pg-parity.ts): both keys are filled
// with the seed's small set through `fill` and given rows in the other tables of a key's data, then the same
// exports, imports (a copy of k1's data into k2; a replace in k1 that cascades as SQLite's INSERT OR REPLACE does),
// endpoint lists and a wipe run on both engines. Every answer is compared, every table is read on both engines after
// each step and compared, and checked for what it must hold (what moved, what stayed, what the other key kept).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSERTION_ORDER_COLUMN, INSERTION_ORDER_TABLES } from '../../server/db/pg/schema.ts';
import { KEY_TABLES, type KeyRow, type KeyTable, keyTransferRepo } from '../../server/db/repos/key-transfer.ts';
import type { TenantScope } from '../../server/db/scope.ts';
import { generateSet, type GeneratedSet, planOrganizations } from '../../server/tooling/seed-generate.ts';
import { SEED_SIZES } from '../../server/tooling/seed-options.ts';
import { dice, seededRandom } from '../../server/tooling/seed-text.ts';
import { AS_SQLITE_TYPES, type BothEngines, bothEngines, keysSorted, sortedRows } from '../helpers/pg-parity.ts';

let both: BothEngines;
const dirs: string[] = [];

/** Every table a key transfer reads or writes (the export's, and those a wipe clears or keeps). */
const TABLES = [
  ...KEY_TABLES,
  'recordings',
  'recording_attachments',
  'agent_executions',
  'judgments',
  'webhook_endpoints',
  'webhook_events',
  'user_data_jobs',
] as const;

/**
 * Every row of the tables, sorted; but the tables kept in creation order (INSERTION_ORDER_TABLES) in their insertion
 * order, SQLite's rowid and PostgreSQL's `seq`, which must agree (the column itself is PostgreSQL's own: left out).
 */
async function dump(engine: 'sqlite' | 'pg') {
  const out: Record<string, KeyRow[]> = {};
  for (const table of TABLES) {
    const inOrder = INSERTION_ORDER_TABLES.has(table);
    const text = `SELECT * FROM ${table}${inOrder ? ` ORDER BY ${engine === 'sqlite' ? 'rowid' : INSERTION_ORDER_COLUMN}` : ''}`;
    const rows =
      engine === 'sqlite'
        ? (both.sqlite.main.sqlite.prepare(text).all() as KeyRow[])
        : await both.engine.read(async (db) => (await db.$client.query<KeyRow>({ text, types: AS_SQLITE_TYPES })).rows);
    if (engine === 'pg' && inOrder) {
      // numbered by the database, in the order the rows went in
      const numbers = rows.map((r) => r[INSERTION_ORDER_COLUMN] as number);
      expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
      for (const row of rows) delete row[INSERTION_ORDER_COLUMN];
    }
    out[table] = inOrder ? rows.map(keysSorted) : sortedRows(rows);
  }
  return out;
}

/** An export's answer with each table's rows sorted (SQLite answers them in its plan's index order, PostgreSQL by primary key). */
const normalized = (answer: unknown) => {
  const tables = answer as Partial<Record<KeyTable, KeyRow[]>> | undefined;
  return tables ? Object.fromEntries(Object.entries(tables).map(([t, rows]) => [t, sortedRows(rows ?? [])])) : undefined;
};

const ofKey = (rows: KeyRow[] | undefined, key: string) => (rows ?? []).filter((r) => r.api_key_id === key);

const noSeq = (table: KeyTable, column: string) => table === 'crdt_updates' && column === 'seq';

async function extraRows(key: string, org: string, doc: string, base: number) {
  const ins = both.insertBoth;
  await ins(
    'INSERT INTO comment_annotations (api_key_id, organization_id, id, document_id, status_id, visibility, created_by_user_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [key, org, 'thread-1', doc, 'open', 'public', 'ann', 1, 1],
  );
  await ins(
    'INSERT INTO comments (api_key_id, organization_id, annotation_id, id, from_user, from_user_id, mentioned_user_ids, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [key, org, 'thread-1', 1, '{"userId":"ann", "name":"Ann"}', 'ann', '[]', 1, 1],
  );
  await ins('INSERT INTO comment_reads (api_key_id, organization_id, annotation_id, user_id, read_at) VALUES (?, ?, ?, ?, ?)', [
    key,
    org,
    'thread-1',
    'ann',
    2,
  ]);
  await ins(
    'INSERT INTO reactions (api_key_id, organization_id, id, annotation_id, comment_id, icon, from_user, from_user_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [key, org, 'react-1', 'thread-1', 1, 'heart', '{"userId":"ann"}', 'ann', 1],
  );
  await ins(
    'INSERT INTO notification_configs (api_key_id, organization_id, document_id, user_id, inbox, email, slack, channels_set, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [key, org, doc, 'ann', 'ALL', 'MINE', 'NONE', 7, 1],
  );
  await ins(
    'INSERT INTO crdt_documents (api_key_id, organization_id, document_id, editor_id, type, content_key, infer, snapshot, update_count, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [key, org, doc, 'extra', 'text', 'content', 0, Buffer.from([1, 2, 3]), 2, 1, 1],
  );
  for (const i of [1, 2])
    await ins('INSERT INTO crdt_updates (seq, api_key_id, organization_id, document_id, editor_id, "update", created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      base + i,
      key,
      org,
      doc,
      'extra',
      Buffer.alloc(i + 3, 7),
      1,
    ]);
  await ins('INSERT INTO agents (api_key_id, id, name, version, model, instructions, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
    key,
    'agent-1',
    'Agent',
    1,
    'm',
    'do',
    1,
    1,
  ]);
  await ins(
    'INSERT INTO agent_executions (api_key_id, id, agent_id, agent_name, agent_version, status, message, "trigger", llm_model, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [key, `exec-${key}`, 'agent-1', 'Agent', 1, 'completed', 'done', 'manual', 'm', 1],
  );
  await ins(
    'INSERT INTO workflow_definitions (api_key_id, definition_id, name, version, scope_level, body, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [key, 'flow-1', 'Flow', 1, 'document', '{"steps": [], "b": 1, "a": 2}', 'active', 1, 1],
  );
  await ins(
    'INSERT INTO judgments (id, api_key_id, decision, reviewer_id, subject, scope_terms, source, source_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [`judgment-${key}`, key, 'approve', 'ann', 's', 't', 'manual', 'x', 1],
  );
  for (const [id, at] of [
    ['b', 2],
    ['a', 2],
    ['c', 1],
  ] as const)
    await ins(
      'INSERT INTO webhook_endpoints (id, api_key_id, url, description, disabled, metadata, secret_enc, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [`${key}-ep-${id}`, key, 'http://127.0.0.1:9/x', '', false, '{}', 'enc', at, at],
    );
  await ins('INSERT INTO webhook_events (id, api_key_id, type, available_at, created_at, dispatched_at) VALUES (?, ?, ?, ?, ?, ?)', [
    `${key}-pending`,
    key,
    'comment.add',
    1,
    1,
    null,
  ]);
  await ins('INSERT INTO webhook_events (id, api_key_id, type, available_at, created_at, dispatched_at) VALUES (?, ?, ?, ?, ?, ?)', [
    `${key}-dispatched`,
    key,
    'comment.add',
    1,
    1,
    2,
  ]);
  await ins('INSERT INTO user_data_jobs (id, api_key_id, user_id, status, created_at) VALUES (?, ?, ?, ?, ?)', [`job-${key}`, key, 'ann', 'pending', 1]);
}

beforeAll(async () => {
  both = await bothEngines();
});
afterAll(async () => {
  await both?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('key transfer', () => {
  it('fills, exports, imports, lists endpoints and wipes table by table as on SQLite, and nothing of the other key', async () => {
    const { k1, k2 } = both;
    const port = keyTransferRepo(both.pg);
    const original = both.storage.keyTransfer;
    type Repo = typeof port;
    /** The unit of work of the engine a repository runs on. */
    const unitOf =
      (repo: Repo) =>
      <T>(work: () => Promise<T>) =>
        repo === port ? both.engine.transaction(work) : both.storage.transaction(work);

    const fillKey = (scope: TenantScope, seed: number) => async (repo: Repo) => {
      const found = await both.storage.keys.find(scope);
      if (!found) throw new Error('no key');
      // the parity helper's keys have empty settings: the seed needs a default access type
      const apiKey = { id: found.id, settings: { ...found.settings, defaultDocumentAccessType: 'public' as const } };
      const dataDir = mkdtempSync(join(tmpdir(), 'hearth-kt-'));
      dirs.push(dataDir);
      const d = dice(seededRandom(seed));
      const counts = SEED_SIZES.small;
      const plan = planOrganizations(d, counts.organizations);
      const set: GeneratedSet = { organizations: [], userIds: [], attachments: [], rows: {} };
      const written = await repo.fill(scope, (writer) => {
        generateSet({ writer, apiKey, d, now: 1_700_000_000_000, counts, plan, progress: () => undefined, out: set });
        return writer.rows();
      });
      return { written, rows: set.rows, organizations: set.organizations, attachments: set.attachments.length };
    };

    const answers: Record<string, unknown> = {};
    const states: Record<string, Record<string, KeyRow[]>> = {};
    const step = async (name: string, call: (repo: Repo) => Promise<unknown>, compare: (answer: unknown) => unknown = (a) => a) => {
      const sqlite = await call(original);
      const onPg = await call(port);
      expect(compare(onPg), `${name}: answer`).toEqual(compare(sqlite));
      const tables = await dump('sqlite');
      const pgTables = await dump('pg');
      for (const table of TABLES) expect(pgTables[table], `${name}: ${table}`).toEqual(tables[table]);
      answers[name] = sqlite;
      states[name] = tables;
      return sqlite;
    };

    await step('fill k1', fillKey(k1, 1));
    await step('fill k2', fillKey(k2, 2));
    const firstDoc = (key: string) => {
      const doc = ofKey(states['fill k2']?.documents, key)[0];
      return [String(doc?.organization_id), String(doc?.id)] as const;
    };
    const [org1, doc1] = firstDoc('k1');
    const [org2, doc2] = firstDoc('k2');
    await extraRows('k1', org1, doc1, 1000);
    await extraRows('k2', org2, doc2, 2000);

    const exported = (await step('export k1', (repo) => repo.exportRows(k1, 1_000_000), normalized)) as Partial<Record<KeyTable, KeyRow[]>>;
    await step('export k1 over its limit', (repo) => repo.exportRows(k1, 100));
    await step('export k2', (repo) => repo.exportRows(k2, 1_000_000), normalized);
    await step('endpoints of k1', (repo) => repo.endpointIds(k1));
    // SQLite's importRows cannot write crdt_updates (its column "update" is a keyword it does not quote: checked at
    // the end), so the parity steps write none; PostgreSQL's writes them, checked at the end too
    const { crdt_updates: _log, ...copiedRows } = exported;
    // endpoint ids are unique across keys: the one caller of importRows, the admin import, gives another key's
    // endpoints new ids first (admin/import-stream.ts), so the copy does too
    const withoutLog = { ...copiedRows, webhook_endpoints: (copiedRows.webhook_endpoints ?? []).map((e) => ({ ...e, id: `copy-${String(e.id)}` })) };
    await step('copy of k1 into k2', (repo) => unitOf(repo)(() => repo.importRows(k2, withoutLog, noSeq)));
    // k1's own rows written back, keeping their sequence numbers: replaced by primary key, and an organization's
    // row alone replaces the organization (its contents go with it by cascade, as SQLite's REPLACE deletes)
    const replaced = exported.organizations?.find((o) => o.id !== org1);
    const orgB = String(replaced?.id);
    const again: Partial<Record<KeyTable, KeyRow[]>> = {
      organizations: [{ ...replaced, name: 'Renamed' }],
      crdt_documents: (exported.crdt_documents ?? []).filter((r) => r.editor_id === 'extra'),
      // the same reaction under another id replaces the first by its unique index (reactions_once)
      reactions: (exported.reactions ?? []).filter((r) => r.id === 'react-1').map((r) => ({ ...r, id: 'react-2', unknown_column: 1 })),
    };
    await step('replace in k1', (repo) => repo.importRows(k1, again, () => false));
    await step('export k1 after the replace', (repo) => repo.exportRows(k1, 1_000_000), normalized);
    await step('wipe k1', (repo) => unitOf(repo)(() => repo.wipe(k1)));
    await step('endpoints of k1 after the wipe', (repo) => repo.endpointIds(k1));
    await step('endpoints of k2', (repo) => repo.endpointIds(k2));
    await step('export k1 after the wipe', (repo) => repo.exportRows(k1, 0));

    // what the answers and tables must hold, beyond being the same on both engines
    const filled = answers['fill k1'] as { written: number; rows: Record<string, number> };
    expect(filled.written).toBe(Object.values(filled.rows).reduce((a, b) => a + b, 0));
    expect(filled.written).toBeGreaterThan(100);
    const afterFill = states['fill k2']!;
    for (const table of ['organizations', 'users', 'memberships', 'folders', 'documents', 'notifications', 'recordings', 'crdt_documents'])
      for (const key of ['k1', 'k2']) expect(ofKey(afterFill[table], key).length, `${table} of ${key}`).toBeGreaterThan(0);

    for (const table of KEY_TABLES) {
      expect(exported[table]?.length, table).toBe(ofKey(states['export k1']?.[table], 'k1').length);
      expect(exported[table]?.length, table).toBeGreaterThan(0);
      for (const row of exported[table] ?? []) expect(row).not.toHaveProperty('api_key_id');
    }
    expect(answers['export k1 over its limit']).toBeUndefined();
    expect(answers['endpoints of k1']).toEqual(['k1-ep-c', 'k1-ep-a', 'k1-ep-b']);

    // the copy: k2 holds k1's rows under its own key, k1's are untouched, and k2's own stay
    const copied = states['copy of k1 into k2']!;
    const copy = answers['copy of k1 into k2'] as { imported: Record<string, number>; rooms: unknown[] };
    for (const table of KEY_TABLES) {
      expect(copy.imported[table], table).toBe(table === 'crdt_updates' ? undefined : exported[table]?.length);
      expect(ofKey(copied[table], 'k1'), table).toEqual(ofKey(states['export k2']?.[table], 'k1'));
      if (table !== 'crdt_updates') expect(ofKey(copied[table], 'k2').length, table).toBeGreaterThanOrEqual(exported[table]?.length ?? 0);
    }
    // the rooms written were emptied of their logs: the copied room's log is gone, k1's is kept
    expect(ofKey(copied.crdt_updates, 'k2').filter((r) => r.organization_id === org1)).toEqual([]);
    expect(ofKey(copied.crdt_updates, 'k1')).toHaveLength(2);
    expect(copy.rooms).toHaveLength(exported.crdt_documents?.length ?? 0);
    expect(ofKey(copied.organizations, 'k2').map((o) => o.id)).toEqual(
      expect.arrayContaining([...(exported.organizations ?? []).map((o) => o.id), ...ofKey(afterFill.organizations, 'k2').map((o) => o.id)]),
    );
    expect(ofKey(copied.webhook_endpoints, 'k2')).toHaveLength(6); // its own 3 and k1's 3 under new ids

    // the replace: the organization renamed and emptied (cascade), the others kept, the reaction replaced
    const afterReplace = states['replace in k1']!;
    const inOrg = (rows: KeyRow[] | undefined, key: string, org: string) => ofKey(rows, key).filter((r) => r.organization_id === org);
    expect(
      ofKey(afterReplace.organizations, 'k1')
        .filter((o) => o.id === orgB)
        .map((o) => o.name),
    ).toEqual(['Renamed']);
    for (const table of ['documents', 'folders', 'memberships', 'notifications', 'recordings', 'activities']) {
      expect(inOrg(states['export k1']?.[table], 'k1', orgB).length, table).toBeGreaterThan(0);
      expect(inOrg(afterReplace[table], 'k1', orgB), table).toEqual([]);
    }
    expect(inOrg(afterReplace.documents, 'k1', org1).length).toBeGreaterThan(0);
    expect(inOrg(afterReplace.comments, 'k1', org1)).toEqual(inOrg(states['export k1']?.comments, 'k1', org1));
    expect(inOrg(copied.documents, 'k2', orgB).length).toBeGreaterThan(0);
    expect(inOrg(afterReplace.documents, 'k2', orgB)).toEqual(inOrg(copied.documents, 'k2', orgB));
    expect(
      inOrg(afterReplace.reactions, 'k1', org1)
        .filter((r) => r.id === 'react-1' || r.id === 'react-2')
        .map((r) => r.id),
    ).toEqual(['react-2']);
    expect(ofKey(afterReplace.crdt_documents, 'k1').filter((r) => r.editor_id === 'extra')).toHaveLength(1);
    expect(ofKey(afterReplace.crdt_updates, 'k1')).toEqual([]);

    // the wipe: k1's data gone, what it answered, and k2's data, k1's dispatched events and the workspace kept
    const wiped = answers['wipe k1'] as { removed: Record<string, number>; rooms: unknown[]; storageKeys: string[] };
    const beforeWipe = states['export k1 after the replace']!;
    expect(Object.keys(wiped.removed)).toEqual([
      'crdt_documents',
      'organizations',
      'documents',
      'users',
      'notifications',
      'activities',
      'comment_annotations',
      'recordings',
      'webhook_endpoints',
    ]);
    for (const table of Object.keys(wiped.removed)) expect(wiped.removed[table], table).toBe(ofKey(beforeWipe[table], 'k1').length);
    expect(wiped.rooms).toHaveLength(ofKey(beforeWipe.crdt_documents, 'k1').length);
    expect(wiped.storageKeys).toHaveLength(ofKey(beforeWipe.recording_attachments, 'k1').length);
    const afterWipe = states['wipe k1']!;
    for (const table of TABLES) {
      if (table === 'webhook_events') continue;
      expect(ofKey(afterWipe[table], 'k1'), table).toEqual([]);
      expect(ofKey(afterWipe[table], 'k2'), table).toEqual(ofKey(beforeWipe[table], 'k2'));
    }
    expect(ofKey(afterWipe.webhook_events, 'k1').map((e) => e.id)).toEqual(['k1-dispatched']);
    expect(answers['endpoints of k1 after the wipe']).toEqual([]);
    // oldest first, then by id: k2's own and the copies of k1's (made at the same times)
    expect(answers['endpoints of k2']).toEqual(['copy-k1-ep-c', 'k2-ep-c', 'copy-k1-ep-a', 'copy-k1-ep-b', 'k2-ep-a', 'k2-ep-b']);
    expect(answers['export k1 after the wipe']).toEqual(Object.fromEntries(KEY_TABLES.map((t) => [t, []])));

    // an update log written with its sequence numbers (an `update` column: SQLite's import once failed on it,
    // unquoted): both engines write it and replace by sequence number, and PostgreSQL moves its identity past them
    const room = ofKey(states['wipe k1']?.crdt_documents, 'k2')[0]!;
    const log: Partial<Record<KeyTable, KeyRow[]>> = {
      crdt_updates: [5000, 2001].map((seq) => ({
        seq,
        organization_id: room.organization_id,
        document_id: room.document_id,
        editor_id: room.editor_id,
        update: Buffer.from([seq % 256]),
        created_at: 3,
      })),
    };
    const onSqlite = await original.importRows(k2, log, () => false);
    expect(onSqlite).toEqual({ imported: { crdt_updates: 2 }, rooms: [] });
    expect(await port.importRows(k2, log, () => false)).toEqual(onSqlite);
    const seqs = async () =>
      both.engine.read(async (db) => (await db.$client.query<{ seq: number }>('SELECT seq FROM crdt_updates ORDER BY seq')).rows.map((r) => Number(r.seq)));
    const sqliteSeqs = both.sqlite.main.sqlite
      .prepare('SELECT seq FROM crdt_updates ORDER BY seq')
      .all()
      .map((r) => (r as { seq: number }).seq);
    expect(await seqs()).toEqual(sqliteSeqs);
    expect(await seqs()).toEqual([2001, 2002, 5000]);
    await both.engine.read((db) =>
      db.$client.query('INSERT INTO crdt_updates (api_key_id, organization_id, document_id, editor_id, "update", created_at) VALUES ($1, $2, $3, $4, $5, 1)', [
        'k2',
        room.organization_id,
        room.document_id,
        room.editor_id,
        Buffer.alloc(1),
      ]),
    );
    expect(await seqs()).toEqual([2001, 2002, 5000, 5001]);
  });
});
