// The seed's repository on PostgreSQL does what SQLite's does (test/helpers/pg-parity.ts): the seed's small set is
// bulk loaded into both keys through each engine's bulk load (the seed's own generator, in batches), a load that
// PostgreSQL refuses part of and one rolled back are undone alike, and a failed seed's writes are removed; every
// answer is compared, every table is read on both engines after each step and compared, and checked for what it
// must hold (what was written, what went, what the other key and the rest of the key kept).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BulkLoad, seedRepo } from '../../server/db/repos/seed.ts';
import type { TenantScope } from '../../server/db/scope.ts';
import { type GeneratedSet, generateSet, planOrganizations } from '../../server/tooling/seed-generate.ts';
import { SEED_SIZES } from '../../server/tooling/seed-options.ts';
import { dice, seededRandom } from '../../server/tooling/seed-text.ts';
import { AS_SQLITE_TYPES, type BothEngines, bothEngines, sortedRows } from '../helpers/pg-parity.ts';

type SeedRepo = ReturnType<typeof seedRepo>;
type Row = Record<string, unknown>;

let both: BothEngines;
const dirs: string[] = [];
const NOW = 1_700_000_000_000;

/** The tables a seed writes or removes. */
const TABLES = [
  'organizations',
  'users',
  'memberships',
  'user_groups',
  'user_group_members',
  'folders',
  'documents',
  'crdt_documents',
  'activities',
  'notifications',
  'notification_recipients',
  'recordings',
  'recording_attachments',
  'webhook_configs',
  'webhook_endpoints',
] as const;

async function dump(engine: 'sqlite' | 'pg') {
  const out: Record<string, Row[]> = {};
  for (const table of TABLES) {
    const text = `SELECT * FROM ${table}`;
    const rows =
      engine === 'sqlite'
        ? (both.sqlite.main.sqlite.prepare(text).all() as Row[])
        : await both.engine.read(async (db) => (await db.$client.query<Row>({ text, types: AS_SQLITE_TYPES })).rows);
    out[table] = sortedRows(rows);
  }
  return out;
}

const ofKey = (rows: Row[] | undefined, key: string) => (rows ?? []).filter((r) => r.api_key_id === key);

beforeAll(async () => {
  both = await bothEngines();
  // the keys' times, made by each engine's clock, the same on both
  await both.insertBoth('UPDATE api_keys SET created_at = ?, updated_at = ?', [1, 2]);
});
afterAll(async () => {
  await both?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('seed', () => {
  it('reads, bulk loads, undoes a refused and a rolled back load, and removes a seed as on SQLite, of one key only', async () => {
    const { k1, k2 } = both;
    const port = seedRepo(both.pg);
    const original = both.storage.seed;
    const answers: Record<string, unknown> = {};
    const states: Record<string, Record<string, Row[]>> = {};
    const step = async (name: string, call: (repo: SeedRepo) => Promise<unknown>) => {
      const sqlite = await call(original);
      const onPg = await call(port);
      expect(onPg, `${name}: answer`).toEqual(sqlite);
      expect(JSON.stringify(onPg), `${name}: answer`).toBe(JSON.stringify(sqlite));
      const tables = await dump('sqlite');
      const pgTables = await dump('pg');
      for (const table of TABLES) expect(pgTables[table], `${name}: ${table}`).toEqual(tables[table]);
      answers[name] = sqlite;
      states[name] = tables;
      return sqlite;
    };

    /** The seed's small set bulk loaded into the key, in batches of 50 rows, as `hearth seed` writes it. */
    const plans: Record<string, ReturnType<typeof planOrganizations>> = {};
    const sets: Record<string, GeneratedSet> = {};
    const load = (scope: TenantScope, seed: number) => async (repo: SeedRepo) => {
      const apiKey = await repo.apiKey(scope.apiKeyId);
      if (!apiKey) throw new Error('no key');
      const dataDir = mkdtempSync(join(tmpdir(), 'hearth-seed-'));
      dirs.push(dataDir);
      const d = dice(seededRandom(seed));
      const counts = SEED_SIZES.small;
      const plan = planOrganizations(d, counts.organizations);
      plans[scope.apiKeyId] = plan;
      const set: GeneratedSet = { organizations: [], userIds: [], attachments: [], rows: {} };
      sets[scope.apiKeyId] = set;
      const writer = repo.openBulkLoad({ batchRows: 50 });
      generateSet({
        writer,
        apiKey: { ...apiKey, settings: { ...apiKey.settings, defaultDocumentAccessType: 'public' } },
        d,
        now: NOW,
        counts,
        plan,
        progress: () => undefined,
        out: set,
      });
      await writer.commit();
      await writer.finish();
      return { rows: writer.rows(), byTable: set.rows, organizations: set.organizations.map((o) => o.id) };
    };

    await step('apiKey k1', (repo) => repo.apiKey('k1'));
    await step('apiKey none', (repo) => repo.apiKey('nope'));
    await step('webhookConfig none', (repo) => repo.webhookConfig(k1));
    await step('load k1', load(k1, 1));
    await step('load k2', load(k2, 2));
    const ids1 = (plans.k1 ?? []).map((o) => o.id);
    await step('present in k1', (repo) => repo.presentOrganization(k1, ids1));
    await step('present in k1, reversed and with one absent', (repo) => repo.presentOrganization(k1, ['zzz-absent', ...[...ids1].reverse()]));
    await step('present in k1, the last only', (repo) => repo.presentOrganization(k1, [ids1.at(-1) as string, 'aaa-absent']));
    await step('present in k2 (k1 ids)', (repo) => repo.presentOrganization(k2, ids1));
    await step('present none', (repo) => repo.presentOrganization(k1, ['nope']));

    // the key's row as the source's row type: JSON as values, booleans as booleans
    const key = answers['apiKey k1'] as Row;
    expect(key).toMatchObject({ id: 'k1', workspaceId: 'w1', type: 'testing', allowedDomains: [], settings: {}, disabled: false });
    expect(answers['apiKey none']).toBeUndefined();
    expect(answers['webhookConfig none']).toBeUndefined();
    const loaded = answers['load k1'] as { rows: number; byTable: Record<string, number>; organizations: string[] };
    const total = Object.values(loaded.byTable).reduce((n, v) => n + v, 0);
    expect(loaded.rows).toBe(total);
    expect(total).toBeGreaterThan(500);
    const afterLoad = states['load k2'] as Record<string, Row[]>;
    for (const table of ['organizations', 'documents', 'notifications', 'activities', 'memberships'])
      expect(ofKey(afterLoad[table], 'k1').length, table).toBe(loaded.byTable[table] ?? -1);
    expect(ofKey(afterLoad.organizations, 'k1').map((o) => o.id)).toEqual([...ids1].sort());
    expect(ofKey(afterLoad.organizations, 'k2')).toHaveLength(SEED_SIZES.small.organizations);
    const smallest = [...ids1].sort()[0];
    expect(answers['present in k1']).toBe(smallest);
    expect(answers['present in k1, reversed and with one absent']).toBe(smallest);
    expect(answers['present in k1, the last only']).toBe(ids1.at(-1));
    expect(answers['present in k2 (k1 ids)']).toBeUndefined();
    expect(answers['present none']).toBeUndefined();

    // a load the database refuses part of: what was committed before the refused batch stays, the rest goes (SQLite
    // throws at the row, PostgreSQL when the batch is written: both by the commit at the latest); after the
    // rollback the writer takes rows again
    const refused = async (repo: SeedRepo) => {
      const writer = repo.openBulkLoad({ batchRows: 2 });
      const org = writer.into('organizations');
      const row = (id: string) => ({ apiKeyId: 'k1', id, name: id, disabled: false, metadata: { by: 'refused' }, createdAt: 1, updatedAt: 1 });
      let error: unknown;
      try {
        org(row('r-a'));
        org(row('r-b'));
        org(row('r-c'));
        org(row('r-a'));
        org(row('r-d'));
        await writer.commit();
      } catch (e) {
        error = e;
        await writer.rollback();
      }
      org(row('r-e'));
      await writer.commit();
      return { refused: error !== undefined };
    };
    await step('a refused load', refused);
    expect(answers['a refused load']).toEqual({ refused: true });
    expect(
      ofKey(states['a refused load']?.organizations, 'k1')
        .map((o) => o.id)
        .filter((id) => String(id).startsWith('r-')),
    ).toEqual(['r-a', 'r-b', 'r-e']);

    // a load rolled back: the rows since the last batch go, the batches before stay
    const rolledBack = async (repo: SeedRepo) => {
      const writer: BulkLoad = repo.openBulkLoad({ batchRows: 2 });
      const user = writer.into('users');
      for (const id of ['rb-1', 'rb-2', 'rb-3']) user({ apiKeyId: 'k1', id, internalId: `i-${id}`, name: null, metadata: {}, createdAt: 1, updatedAt: 1 });
      await writer.rollback();
      return writer.rows();
    };
    await step('a rolled back load', rolledBack);
    expect(answers['a rolled back load']).toBe(3);
    expect(
      ofKey(states['a rolled back load']?.users, 'k1')
        .map((u) => u.id)
        .filter((id) => String(id).startsWith('rb-')),
    ).toEqual(['rb-1', 'rb-2']);

    // what a failed seed wrote besides the load: its endpoints and the configuration it made
    for (const [id, keyId] of [
      ['ep-1', 'k1'],
      ['ep-2', 'k1'],
      ['ep-3', 'k2'],
    ])
      await both.insertBoth(
        'INSERT INTO webhook_endpoints (id, api_key_id, url, description, disabled, metadata, secret_enc, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [id, keyId, 'http://127.0.0.1:9/x', '', true, '{}', 'enc', 1, 1],
      );
    for (const [keyId, enabled] of [
      ['k1', true],
      ['k2', false],
    ] as const)
      await both.insertBoth(
        'INSERT INTO webhook_configs (api_key_id, is_enabled, encrypt_data, encode_data, public_key, enable_data_protection, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [keyId, enabled, false, false, '', false, 1, 1],
      );
    await step('webhookConfig k1', (repo) => repo.webhookConfig(k1));
    await step('webhookConfig k2', (repo) => repo.webhookConfig(k2));
    expect(answers['webhookConfig k1']).toEqual({ isEnabled: true });
    expect(answers['webhookConfig k2']).toEqual({ isEnabled: false });

    // undone: k1's seeded organizations (and everything in them), its CRDT documents there, its users, the endpoint
    // and the configuration; k1's other rows (another organization, users not listed, ep-2) and k2 stay
    const set1 = sets.k1 as GeneratedSet;
    await step('remove k1', (repo) =>
      repo.remove(k1, { organizationIds: ids1, userIds: set1.userIds, webhookEndpointIds: ['ep-1', 'ep-3'], webhookConfigCreated: true }),
    );
    const gone = states['remove k1'] as Record<string, Row[]>;
    for (const table of TABLES.filter((t) => t !== 'webhook_endpoints' && t !== 'webhook_configs' && t !== 'organizations' && t !== 'users'))
      expect(ofKey(gone[table], 'k1'), table).toEqual([]);
    expect(ofKey(gone.organizations, 'k1').map((o) => o.id)).toEqual(['r-a', 'r-b', 'r-e']);
    expect(ofKey(gone.users, 'k1').map((u) => u.id)).toEqual(['rb-1', 'rb-2']);
    expect(gone.webhook_endpoints?.map((e) => e.id)).toEqual(['ep-2', 'ep-3']);
    expect(gone.webhook_configs?.map((c) => c.api_key_id)).toEqual(['k2']);
    for (const table of TABLES.filter((t) => t !== 'webhook_endpoints' && t !== 'webhook_configs'))
      expect(ofKey(gone[table], 'k2'), table).toEqual(ofKey(afterLoad[table], 'k2'));
    await step('present after remove', (repo) => repo.presentOrganization(k1, ids1));
    expect(answers['present after remove']).toBeUndefined();
  });
});
