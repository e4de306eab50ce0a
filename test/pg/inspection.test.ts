// The admin views' repository (one code) answers alike on PostgreSQL and SQLite (test/helpers/pg-parity.ts): both keys
// hold the seed's small set (written through key transfer's fill on each engine) and hand-made rows with the same ids
// in both keys, made for the edges: names equal but for case, names beyond ASCII, LIKE's wildcards, sort ties broken
// by id, rows of another tenant with the same ids, mail of a workspace and of its keys. Every view is called on both
// engines, every list is walked page by page in both directions, and every answer is compared (values, types, key
// order and Map order alike) and checked for what it must be.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyTransferRepo } from '../../server/db/repos/key-transfer.ts';
import { type Dir, type InspectionRepo, inspectionRepo, type PageArgs, type SortKey } from '../../server/db/repos/inspection.ts';
import { type TenantScope, tenantScope, workspaceScope } from '../../server/db/scope.ts';
import { type GeneratedSet, generateSet, planOrganizations } from '../../server/tooling/seed-generate.ts';
import { SEED_SIZES } from '../../server/tooling/seed-options.ts';
import { dice, seededRandom } from '../../server/tooling/seed-text.ts';
import { type BothEngines, bothEngines } from '../helpers/pg-parity.ts';

const DAY = 24 * 60 * 60 * 1000;
/** The seed's clock, the same on both engines (its rows' times are spread back from it: some within the sparklines' 30 days). */
const SEED_NOW = Date.now() - 3 * DAY;
let both: BothEngines;
const dirs: string[] = [];
const seeded: Record<string, string[]> = {};
const HAND_ORGS = ['acme', 'ACME-2', 'emile', 'under', 'pct', 'zz'];

/** Maps as their entries (in order), so that comparing answers compares the order of a Map's entries too. */
const plain = (value: unknown): unknown =>
  value instanceof Map
    ? { map: [...value.entries()].map(([k, v]) => [plain(k), plain(v)]) }
    : Array.isArray(value)
      ? value.map(plain)
      : value && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]))
        : value;

/** The seed's small set in a key, on one engine (through that engine's key transfer fill). */
async function fillKey(engine: 'sqlite' | 'pg', scope: TenantScope, seed: number) {
  const found = await both.storage.keys.find(scope);
  if (!found) throw new Error('no key');
  const apiKey = { id: found.id, settings: { ...found.settings, defaultDocumentAccessType: 'public' as const } };
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-insp-'));
  dirs.push(dataDir);
  const d = dice(seededRandom(seed));
  const counts = SEED_SIZES.small;
  const plan = planOrganizations(d, counts.organizations);
  const set: GeneratedSet = { organizations: [], userIds: [], attachments: [], rows: {} };
  const repo = engine === 'sqlite' ? both.storage.keyTransfer : keyTransferRepo(both.pg);
  await repo.fill(scope, (writer) => generateSet({ writer, apiKey, d, now: SEED_NOW, counts, plan, progress: () => undefined, out: set }));
  return set.organizations.map((o) => o.id);
}

/** The edge rows, with the same ids in each key (names marked by key where a tenant's answer must show whose it is). */
async function handRows(key: string, mark: string) {
  const ins = both.insertBoth;
  const now = Date.now();
  for (const [id, name, updated] of [
    ['acme', `Acme${mark}`, 5],
    ['ACME-2', 'acme', 5],
    ['emile', 'Émile', 7],
    ['under', '_under', 5],
    ['pct', '100% real', 3],
    ['zz', 'Zz', 9],
  ] as const)
    await ins('INSERT INTO organizations (api_key_id, id, name, disabled, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      key,
      id,
      name,
      id === 'zz',
      '{}',
      1,
      updated,
    ]);
  for (const [id, parent, ancestors, path, name] of [
    ['f1', 'root', '["root"]', '/f1', 'Legal'],
    ['f2', 'f1', '["root", "f1"]', '/f1/f2', 'Contracts'],
    ['F0', 'root', '["root"]', '/F0', 'archive'],
  ] as const)
    await ins(
      'INSERT INTO folders (api_key_id, organization_id, id, name, parent_id, ancestors, path, inherit_access, access_type, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [key, 'acme', id, name, parent, ancestors, path, true, 'public', 1, 1],
    );
  for (const [id, name, folder, disabled, updated] of [
    ['d1', 'Design', 'f2', false, 4],
    ['d2', 'design', 'f2', false, 4],
    ['D3', `Budget${mark}`, null, true, 2],
    ['d4', 'Émile notes', 'f1', false, 4],
    ['d_5', '50% off', null, false, 1],
  ] as const)
    await ins(
      'INSERT INTO documents (api_key_id, organization_id, id, name, folder_id, access_type, disabled, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [key, 'acme', id, name, folder, 'public', disabled, '{}', 1, updated],
    );
  for (const [id, name, email] of [
    ['u-bob', 'Bob', 'bob@x.test'],
    ['u-bob2', 'bob', null],
    ['u-null', null, 'nobody@x.test'],
    ['u-empty', '', null],
    ['u-alice', `alice${mark}`, 'ALICE@x.test'],
    ['u-emile', 'Émile', null],
  ] as const)
    await ins('INSERT INTO users (api_key_id, id, internal_id, name, email, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
      key,
      id,
      `i-${id}`,
      name,
      email,
      '{}',
      1,
      1,
    ]);
  for (const [user, level, resource, role, expires] of [
    ['u-bob', 'organization', 'acme', 'viewer', null],
    ['u-bob', 'folder', 'f1', 'editor', null],
    ['u-bob', 'folder', 'f2', 'viewer', 99],
    ['u-alice', 'document', 'd1', 'editor', null],
    ['u-ghost', 'organization', 'acme', 'viewer', null],
    ['u-null', 'organization', 'acme', 'viewer', null],
  ] as const)
    await ins(
      'INSERT INTO memberships (api_key_id, organization_id, level, resource_id, user_id, access_role, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [key, 'acme', level, resource, user, role, expires, 1, 1],
    );
  await ins(
    'INSERT INTO memberships (api_key_id, organization_id, level, resource_id, user_id, access_role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    [key, 'zz', 'organization', 'zz', 'u-bob', 'viewer', 1, 1],
  );
  for (const [id, name] of [
    ['g2', 'Two'],
    ['g1', 'One'],
  ])
    await ins('INSERT INTO user_groups (api_key_id, organization_id, id, name, created_at) VALUES (?, ?, ?, ?, ?)', [key, 'acme', id, name, 1]);
  for (const user of ['u-bob', 'u-alice'])
    await ins('INSERT INTO user_group_members (api_key_id, organization_id, group_id, user_id, created_at) VALUES (?, ?, ?, ?, ?)', [
      key,
      'acme',
      'g1',
      user,
      1,
    ]);
  for (const [id, doc, at] of [
    ['n1', 'd1', 100],
    ['n2', 'd1', 100],
    ['n3', 'd2', 100],
    ['n4', 'd1', 200],
  ] as const) {
    await ins(
      'INSERT INTO notifications (api_key_id, organization_id, id, document_id, source, action_user, headline_template, headline_data, body, resolver, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [
        key,
        'acme',
        id,
        doc,
        'custom',
        '{"userId":"u-bob", "name":"Bob"}',
        '{actionUser.name} did {what}',
        `{"what": "${id}${mark}", "a": 1}`,
        `body ${id}`,
        false,
        at,
      ],
    );
    for (const user of id === 'n4' ? [] : id === 'n1' ? ['u-bob', 'u-alice'] : ['u-bob'])
      await ins(
        'INSERT INTO notification_recipients (api_key_id, organization_id, notification_id, user_id, document_id, timestamp, explicit) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [key, 'acme', id, user, doc, at, true],
      );
  }
  for (const [id, doc, user, feature, action, at] of [
    ['a1', 'd1', 'u-bob', 'comment', 'add', now - 2 * DAY],
    ['a2', 'd1', 'u-bob', 'comment', 'add', now - 2 * DAY],
    ['a3', 'd2', 'u-alice', 'reaction', 'add', now - 2 * DAY],
    ['a4', null, 'u-alice', 'custom', 'ping', now],
    ['a5', 'd1', 'u-bob', 'comment', 'delete', now - 40 * DAY],
  ] as const)
    await ins(
      'INSERT INTO activities (api_key_id, organization_id, id, document_id, feature_type, action_type, action_user, action_user_id, display_message_template, display_message_template_data, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [key, 'acme', id, doc, feature, action, `{"userId":"${user}"}`, user, '{who} did it', `{"who": "${user}", "z": [1, 2]}`, at],
    );
  for (const [doc, editor, snapshot] of [
    ['d1', 'e1', Buffer.from([1, 2, 3])],
    ['d1', 'e0', null],
    ['ghostdoc', 'e1', Buffer.alloc(10, 1)],
  ] as const)
    await ins(
      'INSERT INTO crdt_documents (api_key_id, organization_id, document_id, editor_id, type, content_key, snapshot, update_count, last_updated_by, compacted_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [key, 'acme', doc, editor, 'text', 'content', snapshot, 2, 'u-bob', snapshot ? 5 : null, 1, 1],
    );
  await ins(
    'INSERT INTO comment_annotations (api_key_id, organization_id, id, document_id, status_id, visibility, created_by_user_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [key, 'acme', 'thread-1', 'd1', 'open', 'public', 'u-bob', 1, 1],
  );
  await ins(
    'INSERT INTO recordings (api_key_id, organization_id, id, document_id, recording_type, mode, duration_ms, from_user, from_user_id, latest_version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [key, 'acme', 'rec-1', 'd1', 'audio', 'mic', 10, '{"userId":"u-bob"}', 'u-bob', 1, 1, 1],
  );
  for (const [id, at, filter, disabled] of [
    ['ep-b', 2, '["comment.add", 3, "comment.delete"]', false],
    ['ep-a', 2, null, true],
    ['ep-c', 1, '{"not": "a list"}', false],
  ] as const)
    await ins(
      'INSERT INTO webhook_endpoints (id, api_key_id, url, description, filter_types, disabled, metadata, secret_enc, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [`${key}-${id}`, key, `http://127.0.0.1:9/${id}${mark}`, `Endpoint ${id}`, filter, disabled, '{}', `secret-${key}-${id}`, at, at],
    );
  for (const [id, dispatched] of [
    ['e1', null],
    ['e2', 5],
  ] as const)
    await ins('INSERT INTO webhook_events (id, api_key_id, type, available_at, created_at, dispatched_at) VALUES (?, ?, ?, ?, ?, ?)', [
      `${key}-${id}`,
      key,
      'comment.add',
      1,
      1,
      dispatched,
    ]);
}

beforeAll(async () => {
  both = await bothEngines();
  // a second key in w1, made after k1, holding one organization and mail
  await both.insertBoth(
    'INSERT INTO api_keys (id, workspace_id, name, type, owner_email, allowed_domains, settings, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ['k3', 'w1', 'Third', 'production', 'o@x.test', '[]', '{}', 9_000_000_000_000],
  );
  await both.insertOrganizations([['k3', 'acme-k3']]);
  for (const [engine, scope, seed] of [
    ['sqlite', both.k1, 1],
    ['pg', both.k1, 1],
    ['sqlite', both.k2, 2],
    ['pg', both.k2, 2],
  ] as const) {
    const ids = await fillKey(engine, scope, seed);
    if (engine === 'sqlite') seeded[scope.apiKeyId] = ids;
  }
  await handRows('k1', '');
  await handRows('k2', ' (k2)');
  for (const [id, workspace, key, at, status] of [
    ['m1', 'w1', null, 10, 'sent'],
    ['m2', null, 'k1', 10, 'queued'],
    ['m3', 'w1', 'k1', 20, 'failed'],
    ['m4', null, 'k3', 5, 'kept'],
    ['m0', null, 'k3', 10, 'kept'],
    ['m5', 'w2', null, 10, 'sent'],
    ['m6', null, 'k2', 10, 'sent'],
  ] as const)
    await both.insertBoth(
      'INSERT INTO mail_outbox (id, workspace_id, api_key_id, kind, to_address, subject, body_enc, status, last_error, created_at, sent_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [
        id,
        workspace,
        key,
        'login',
        `${id}@x.test`,
        `Subject ${id}`,
        `enc-${id}`,
        status,
        status === 'failed' ? 'refused' : null,
        at,
        status === 'sent' ? at + 1 : null,
      ],
    );
}, 120_000);
afterAll(async () => {
  await both?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Every page of a list from the start, following the cursor as the admin does (the last shown row's sort key). */
async function walk<R>(fetch: (page: PageArgs) => Promise<R[]>, keyOf: (row: R) => SortKey, dir: Dir, limit: number): Promise<R[][]> {
  const pages: R[][] = [];
  let after: SortKey | null = null;
  for (let i = 0; i < 200; i++) {
    const rows = await fetch({ after, dir, limit });
    pages.push(rows.slice(0, limit));
    if (rows.length <= limit) return pages;
    after = keyOf(rows[limit - 1] as R);
  }
  throw new Error('a walk that does not end');
}

describe('inspection', () => {
  it('answers every view as on SQLite, page by page, and nothing of another tenant', async () => {
    const { k1, k2 } = both;
    const w1 = workspaceScope('w1');
    const w2 = workspaceScope('w2');
    const original = both.storage.inspection;
    const port = inspectionRepo(both.pg);
    const answers: Record<string, unknown> = {};
    const step = async (name: string, call: (repo: InspectionRepo) => Promise<unknown>) => {
      const sqlite = await call(original);
      const onPg = await call(port);
      expect(plain(onPg), name).toEqual(plain(sqlite));
      // types, key order and Map order too (toEqual alone takes 1 and '1' apart, not the order of keys)
      expect(JSON.stringify(plain(onPg)), name).toBe(JSON.stringify(plain(sqlite)));
      answers[name] = sqlite;
      return sqlite;
    };
    const ids = (name: string) => (answers[name] as Array<Array<{ id: string }>>).flat().map((r) => r.id);

    // ----- workspace and keys
    await step('keyScope k1 in w1', (q) => q.keyScope(w1, 'k1'));
    await step('keyScope k2 in w1', (q) => q.keyScope(w1, 'k2'));
    await step('keyScope none', (q) => q.keyScope(w1, 'nope'));
    await step('keyScope k2 in w2', (q) => q.keyScope(w2, 'k2'));
    await step('keys w1', (q) => q.keys(w1));
    await step('keys w2', (q) => q.keys(w2));
    await step('key k1', (q) => q.key(k1));
    await step('key k2 as w1', (q) => q.key(tenantScope('k2', 'w1')));
    await step('workspaceCounts w1', (q) => q.workspaceCounts(w1));
    await step('workspaceCounts w2', (q) => q.workspaceCounts(w2));
    await step('keyCounts k1', (q) => q.keyCounts(k1));
    await step('keyCounts k2', (q) => q.keyCounts(k2));

    expect(answers['keyScope k1 in w1']).toEqual(tenantScope('k1', 'w1', { kind: 'admin' }));
    expect(answers['keyScope k2 in w1']).toBeUndefined();
    expect(answers['keyScope none']).toBeUndefined();
    expect((answers['keys w1'] as Array<{ id: string }>).map((k) => k.id)).toEqual(['k1', 'k3']);
    expect(answers['key k1']).toEqual({ id: 'k1', name: 'K', type: 'testing', disabled: 0, disabledAt: null });
    expect(answers['key k2 as w1']).toBeUndefined();
    const counts1 = answers['keyCounts k1'] as Record<string, number>;
    expect(counts1.organizations).toBe(SEED_SIZES.small.organizations + 6);
    expect(counts1.webhook_endpoints).toBe(3);
    expect((answers['workspaceCounts w1'] as Record<string, number>).organizations).toBe((counts1.organizations ?? 0) + 1);

    // ----- organizations: every sort, both ways, in pages of 2; and searches
    const entityKey = (sort: string) => (r: { id: string; name: string; updatedAt: number }) =>
      sort === 'name' ? [r.name, r.id] : sort === 'updated' ? [r.updatedAt, r.id] : [r.id];
    for (const sort of ['id', 'name', 'updated'] as const)
      for (const dir of ['asc', 'desc'] as const) {
        await step(`organizations by ${sort} ${dir}`, (q) => walk((page) => q.organizationsPage(k1, undefined, sort, page), entityKey(sort), dir, 2));
        const all = await original.organizationsPage(k1, undefined, sort, { after: null, dir, limit: 1000 });
        // the pages hold every organization once, in the order of one whole page
        expect(ids(`organizations by ${sort} ${dir}`)).toEqual(all.map((o) => o.id));
      }
    for (const [what, q] of [
      ['acme', 'acme'],
      ['percent', '%'],
      ['underscore', '_'],
      ['upper ascii', 'ACME'],
      ['beyond ascii', 'émile'],
      ['id prefix', 'ACME-'],
    ] as const)
      await step(`organizations search ${what}`, (repo) => walk((page) => repo.organizationsPage(k1, q, 'name', page), entityKey('name'), 'asc', 2));
    await step('organizations of k2', (q) => q.organizationsPage(k2, undefined, 'id', { after: null, dir: 'asc', limit: 100 }));

    const seededOrgs = seeded.k1 as string[];
    // code point order by id; case-insensitive order by name, ties by id; by update, ties by id
    const hand = (name: string) => ids(name).filter((id) => HAND_ORGS.includes(id));
    expect(hand('organizations by id asc')).toEqual(['ACME-2', 'acme', 'emile', 'pct', 'under', 'zz']);
    expect(hand('organizations by name asc')).toEqual(['pct', 'under', 'ACME-2', 'acme', 'zz', 'emile']);
    expect(ids('organizations by name asc').at(-1)).toBe('emile');
    expect(hand('organizations by updated desc')).toEqual(['zz', 'emile', 'under', 'acme', 'ACME-2', 'pct']);
    expect(ids('organizations by id desc')).toEqual([...ids('organizations by id asc')].reverse());
    expect(ids('organizations by id asc')).toHaveLength(SEED_SIZES.small.organizations + 6);
    expect(ids('organizations search percent')).toEqual(['pct']);
    expect(ids('organizations search underscore')).toEqual(['under']);
    expect(ids('organizations search upper ascii')).toEqual(['ACME-2', 'acme']);
    // LIKE folds ASCII only: "émile" does not find "Émile" (on SQLite, and so on PostgreSQL)
    expect(ids('organizations search beyond ascii')).toEqual([]);
    expect(ids('organizations search id prefix')).toEqual(['ACME-2']);
    const k2orgs = answers['organizations of k2'] as Array<{ id: string; name: string; disabled: number }>;
    expect(k2orgs.find((o) => o.id === 'acme')?.name).toBe('Acme (k2)');
    expect(k2orgs.find((o) => o.id === 'zz')?.disabled).toBe(1);
    expect(k2orgs.some((o) => seededOrgs.includes(o.id))).toBe(false);

    await step('organizationView acme', (q) => q.organizationView(k1, 'acme', 2001));
    await step('organizationView acme, one folder', (q) => q.organizationView(k1, 'acme', 1));
    await step('organizationView missing', (q) => q.organizationView(k1, 'missing', 10));
    await step('organizationView k2 acme', (q) => q.organizationView(k2, 'acme', 10));
    await step('organizationView seeded', (q) => q.organizationView(k1, seededOrgs[0] as string, 2001));
    await step('organizationTree acme', (q) => q.organizationTree(k1, 'acme'));
    await step('organizationTree seeded', (q) => q.organizationTree(k1, seededOrgs[1] as string));
    await step('organizationTree k3', (q) => q.organizationTree(tenantScope('k3', 'w1'), 'acme'));

    const view = answers['organizationView acme'] as {
      organization: { name: string };
      folders: Array<{ id: string }>;
      groups: Array<{ id: string; members: number }>;
      counts: Record<string, number>;
      activity: Array<{ day: string; count: number }>;
    };
    expect(view.organization.name).toBe('Acme');
    expect(view.folders.map((f) => f.id)).toEqual(['F0', 'f1', 'f2']);
    expect(view.groups).toEqual([
      { id: 'g1', name: 'One', members: 2 },
      { id: 'g2', name: 'Two', members: 0 },
    ]);
    expect(view.counts).toEqual({ documents: 5, members: 4, notifications: 4, activities: 5 });
    expect(view.activity).toHaveLength(30);
    expect(view.activity.reduce((n, d) => n + d.count, 0)).toBe(4);
    expect(view.activity.at(-3)?.count).toBe(3);
    expect((answers['organizationView acme, one folder'] as typeof view).folders).toHaveLength(1);
    expect(answers['organizationView missing']).toBeUndefined();
    expect((answers['organizationView k2 acme'] as typeof view).organization.name).toBe('Acme (k2)');
    const tree = answers['organizationTree acme'] as {
      documents: Array<{ id: string; disabled: boolean }>;
      groups: Array<{ id: string; userIds: string[] }>;
      members: Array<{ userId: string; level: string; resourceId: string }>;
    };
    expect(tree.documents.map((d) => [d.id, d.disabled])).toEqual([
      ['D3', true],
      ['d1', false],
      ['d2', false],
      ['d4', false],
      ['d_5', false],
    ]);
    expect(tree.groups).toEqual([
      { id: 'g1', name: 'One', userIds: ['u-alice', 'u-bob'] },
      { id: 'g2', name: 'Two', userIds: [] },
    ]);
    // ties on (user, level) by resource
    expect(tree.members.map((m) => `${m.userId}/${m.level}/${m.resourceId}`)).toEqual([
      'u-alice/document/d1',
      'u-bob/folder/f1',
      'u-bob/folder/f2',
      'u-bob/organization/acme',
      'u-ghost/organization/acme',
      'u-null/organization/acme',
    ]);
    expect(answers['organizationTree k3']).toEqual({ folders: [], documents: [], groups: [], members: [] });

    // ----- documents
    for (const sort of ['id', 'name', 'updated'] as const)
      for (const dir of ['asc', 'desc'] as const) {
        await step(`documents by ${sort} ${dir}`, (q) =>
          walk((page) => q.documentsPage(k1, 'acme', undefined, undefined, sort, page), entityKey(sort), dir, 2),
        );
        await step(`folder documents by ${sort} ${dir}`, (q) =>
          walk((page) => q.documentsPage(k1, 'acme', 'f2', undefined, sort, page), entityKey(sort), dir, 1),
        );
      }
    await step('documents search', (q) => walk((page) => q.documentsPage(k1, 'acme', undefined, 'DESIGN', 'name', page), entityKey('name'), 'asc', 1));
    await step('documents search percent', (q) => q.documentsPage(k1, 'acme', undefined, '%', 'id', { after: null, dir: 'asc', limit: 10 }));
    await step('documents seeded', (q) =>
      walk((page) => q.documentsPage(k1, seededOrgs[0] as string, undefined, undefined, 'name', page), entityKey('name'), 'desc', 5),
    );
    expect(ids('documents by name asc')).toEqual(['d_5', 'D3', 'd1', 'd2', 'd4']);
    expect(ids('documents by updated desc')).toEqual(['d4', 'd2', 'd1', 'D3', 'd_5']);
    expect(ids('folder documents by id desc')).toEqual(['d2', 'd1']);
    expect(ids('documents search')).toEqual(['d1', 'd2']);
    expect((answers['documents search percent'] as Array<{ id: string }>).map((d) => d.id)).toEqual(['d_5']);

    await step('documentView d1', (q) => q.documentView(k1, 'acme', 'd1'));
    await step('documentView d4', (q) => q.documentView(k1, 'acme', 'd4'));
    await step('documentView D3', (q) => q.documentView(k1, 'acme', 'D3'));
    await step('documentView room only', (q) => q.documentView(k1, 'acme', 'ghostdoc'));
    await step('documentView none', (q) => q.documentView(k1, 'acme', 'none'));
    await step('documentView k2 d1', (q) => q.documentView(k2, 'acme', 'D3'));
    const d1 = answers['documentView d1'] as {
      document: { disabled: number };
      editors: Array<{ editorId: string; snapshotBytes: number }>;
      path: unknown;
      counts: unknown;
      activity: Array<{ count: number }>;
    };
    expect(d1.editors.map((e) => [e.editorId, e.snapshotBytes])).toEqual([
      ['e0', 0],
      ['e1', 3],
    ]);
    expect(d1.path).toEqual([
      { id: 'f1', name: 'Legal' },
      { id: 'f2', name: 'Contracts' },
    ]);
    expect(d1.counts).toEqual({ notifications: 3, activities: 3, comments: 1, recordings: 1 });
    expect(d1.activity.reduce((n, d) => n + d.count, 0)).toBe(2);
    expect((answers['documentView D3'] as { document: { disabled: number }; path: unknown }).document.disabled).toBe(1);
    expect((answers['documentView D3'] as { path: unknown }).path).toEqual([]);
    expect((answers['documentView room only'] as { document: unknown; editors: unknown[] }).document).toBeUndefined();
    expect((answers['documentView room only'] as { editors: unknown[] }).editors).toHaveLength(1);
    expect(answers['documentView none']).toBeUndefined();
    expect((answers['documentView k2 d1'] as { document: { name: string } }).document.name).toBe('Budget (k2)');

    // ----- collaborative documents
    const crdtKey = (r: { organizationId: string; documentId: string; editorId: string }) => [r.organizationId, r.documentId, r.editorId];
    for (const dir of ['asc', 'desc'] as const) await step(`crdt ${dir}`, (q) => walk((page) => q.crdtPage(k1, undefined, undefined, page), crdtKey, dir, 7));
    await step('crdt of acme', (q) => walk((page) => q.crdtPage(k1, 'acme', undefined, page), crdtKey, 'asc', 1));
    await step('crdt search', (q) => q.crdtPage(k1, undefined, 'ghost', { after: null, dir: 'asc', limit: 10 }));
    await step('workspaceCrdt 2', (q) => q.workspaceCrdt(w1, 2));
    await step('workspaceCrdt all', (q) => q.workspaceCrdt(w1, 1000));
    await step('workspaceCrdt w2', (q) => q.workspaceCrdt(w2, 3));
    await step('crdt one', (q) => q.crdt(k1, 'acme', 'd1', 'e1'));
    await step('crdt none', (q) => q.crdt(k1, 'acme', 'd1', 'e9'));
    const crdtAll = (answers['crdt asc'] as Array<Array<{ apiKey: string }>>).flat();
    expect(crdtAll.length).toBe(Math.min(SEED_SIZES.small.crdtDocuments, SEED_SIZES.small.documents) + 3);
    expect(crdtAll.every((r) => r.apiKey === 'k1')).toBe(true);
    expect((answers['crdt search'] as Array<{ documentId: string }>).map((r) => r.documentId)).toEqual(['ghostdoc']);
    expect(answers['workspaceCrdt 2']).toHaveLength(2);
    expect((answers['workspaceCrdt w2'] as Array<{ apiKey: string }>).map((r) => r.apiKey)).toEqual(['k2', 'k2', 'k2']);
    expect(answers['crdt one']).toMatchObject({ apiKey: 'k1', updateCount: 2, snapshotBytes: 3, lastUpdatedBy: 'u-bob', compactedAt: 5 });

    // ----- users and memberships
    const userKey = (sort: string) => (r: { id: string; name: string | null }) => (sort === 'name' ? [r.name ?? '', r.id] : [r.id]);
    for (const sort of ['id', 'name'] as const)
      for (const dir of ['asc', 'desc'] as const) {
        await step(`users by ${sort} ${dir}`, (q) => walk((page) => q.usersPage(k1, undefined, sort, page), userKey(sort), dir, 3));
        const all = await original.usersPage(k1, undefined, sort, { after: null, dir, limit: 1000 });
        expect(ids(`users by ${sort} ${dir}`)).toEqual(all.map((u) => u.id));
      }
    await step('users search bob', (q) => walk((page) => q.usersPage(k1, 'BOB', 'name', page), userKey('name'), 'asc', 1));
    await step('users search ALICE', (q) => q.usersPage(k1, 'ALICE', 'id', { after: null, dir: 'asc', limit: 10 }));
    await step('users search email', (q) => q.usersPage(k1, 'nobody@', 'id', { after: null, dir: 'asc', limit: 10 }));
    expect(ids('users by name asc').slice(0, 2)).toEqual(['u-empty', 'u-null']);
    expect(ids('users search bob').filter((id) => id.startsWith('u-'))).toEqual(['u-bob', 'u-bob2']);
    expect((answers['users search ALICE'] as Array<{ id: string }>).map((u) => u.id)).toEqual(['u-alice']);
    // the users list searches e-mail addresses too (issue 44, point 7), alike on both engines (step compares them)
    expect((answers['users search email'] as Array<{ id: string }>).map((u) => u.id)).toEqual(['u-null']);

    await step('userView bob', (q) => q.userView(k1, 'u-bob'));
    await step('userView ghost', (q) => q.userView(k1, 'u-ghost'));
    await step('userView unknown', (q) => q.userView(k1, 'u-nobody'));
    await step('userView stored, no membership', (q) => q.userView(k1, 'u-emile'));
    expect(answers['userView bob']).toEqual({ user: { id: 'u-bob', name: 'Bob', email: 'bob@x.test' }, organizations: ['acme', 'zz'], notifications: 3 });
    expect(answers['userView ghost']).toEqual({ user: undefined, organizations: ['acme'], notifications: 0 });
    expect(answers['userView unknown']).toBeUndefined();
    expect(answers['userView stored, no membership']).toEqual({ user: { id: 'u-emile', name: 'Émile', email: null }, organizations: [], notifications: 0 });

    const memberKey = (cols: string[]) => (r: { userId: string; organizationId: string; level: string; resourceId: string }) =>
      cols[0] === 'user_id' ? [r.userId, r.level, r.resourceId] : [r.organizationId, r.level, r.resourceId];
    for (const dir of ['asc', 'desc'] as const) {
      await step(`memberships of acme ${dir}`, (q) =>
        walk(async (page) => (await q.membershipsPage(k1, { organizationId: 'acme' }, page)).rows, memberKey(['user_id']), dir, 2),
      );
      await step(`memberships of bob ${dir}`, (q) =>
        walk(async (page) => (await q.membershipsPage(k1, { userId: 'u-bob' }, page)).rows, memberKey(['organization_id']), dir, 1),
      );
    }
    await step('memberships of bob in acme', (q) => q.membershipsPage(k1, { organizationId: 'acme', userId: 'u-bob' }, { after: null, dir: 'asc', limit: 10 }));
    // neither filter (the admin refuses it; the repository answers it): ties on (organization, level, resource) by user
    await step('memberships of the key', (q) => q.membershipsPage(k1, {}, { after: null, dir: 'asc', limit: 1000 }));
    expect(
      (answers['memberships of the key'] as { rows: Array<{ organizationId: string; userId: string; level: string }> }).rows
        .filter((m) => m.organizationId === 'acme' && m.level === 'organization')
        .map((m) => m.userId),
    ).toEqual(['u-bob', 'u-ghost', 'u-null']);
    const memberIds = (name: string) =>
      (answers[name] as Array<Array<{ userId: string; organizationId: string; level: string; resourceId: string }>>)
        .flat()
        .map((m) => `${m.organizationId}/${m.userId}/${m.level}/${m.resourceId}`);
    expect(memberIds('memberships of acme asc')).toEqual([
      'acme/u-alice/document/d1',
      'acme/u-bob/folder/f1',
      'acme/u-bob/folder/f2',
      'acme/u-bob/organization/acme',
      'acme/u-ghost/organization/acme',
      'acme/u-null/organization/acme',
    ]);
    expect(memberIds('memberships of bob desc')).toEqual([
      'zz/u-bob/organization/zz',
      'acme/u-bob/organization/acme',
      'acme/u-bob/folder/f2',
      'acme/u-bob/folder/f1',
    ]);

    await step('membersWithNames', (q) => q.membersWithNames(k1, 'acme', 100, null));
    await step('membersWithNames limited, also alice', (q) => q.membersWithNames(k1, 'acme', 2, 'u-emile'));
    await step('membersWithNames also unknown', (q) => q.membersWithNames(k1, 'acme', 1, 'u-zed'));
    await step('membersWithNames k2', (q) => q.membersWithNames(k2, 'acme', 100, 'u-alice'));
    const members = answers.membersWithNames as { ids: string[]; names: Map<string, string | null> };
    expect(members.ids).toEqual(['u-alice', 'u-bob', 'u-ghost', 'u-null']);
    expect([...members.names]).toEqual([
      ['u-alice', 'alice'],
      ['u-bob', 'Bob'],
      ['u-null', null],
    ]);
    expect((answers['membersWithNames limited, also alice'] as typeof members).ids).toEqual(['u-alice', 'u-bob', 'u-emile']);
    expect([...(answers['membersWithNames also unknown'] as typeof members).names]).toEqual([['u-alice', 'alice']]);
    expect((answers['membersWithNames k2'] as typeof members).names.get('u-alice')).toBe('alice (k2)');

    // ----- feed
    const timeKey = (r: { timestamp: number; id: string }) => [r.timestamp, r.id];
    for (const dir of ['asc', 'desc'] as const)
      for (const [what, filter] of [
        ['organization', {}],
        ['document', { documentId: 'd1' }],
        ['user', { userId: 'u-bob' }],
        ['user and document', { userId: 'u-bob', documentId: 'd1' }],
      ] as const)
        await step(`notifications of ${what} ${dir}`, (q) => walk(async (page) => (await q.notificationsPage(k1, 'acme', filter, page)).rows, timeKey, dir, 1));
    await step('notifications cols', (q) => q.notificationsPage(k1, 'acme', { userId: 'u-bob' }, { after: null, dir: 'asc', limit: 1 }));
    await step('notifications seeded', (q) =>
      walk(async (page) => (await q.notificationsPage(k1, seededOrgs[0] as string, {}, page)).rows, timeKey, 'desc', 20),
    );
    expect(ids('notifications of organization asc')).toEqual(['n1', 'n2', 'n3', 'n4']);
    expect(ids('notifications of organization desc')).toEqual(['n4', 'n3', 'n2', 'n1']);
    expect(ids('notifications of document asc')).toEqual(['n1', 'n2', 'n4']);
    expect(ids('notifications of user desc')).toEqual(['n3', 'n2', 'n1']);
    expect(ids('notifications of user and document asc')).toEqual(['n1', 'n2']);
    const n1 = (answers['notifications of organization asc'] as Array<Array<Record<string, unknown>>>)[0]?.[0];
    expect(n1).toEqual({
      id: 'n1',
      organizationId: 'acme',
      documentId: 'd1',
      timestamp: 100,
      headlineTemplate: '{actionUser.name} did {what}',
      headlineData: '{"what": "n1", "a": 1}',
      body: 'body n1',
      actionUser: '{"userId":"u-bob", "name":"Bob"}',
      recipients: 2,
    });

    for (const dir of ['asc', 'desc'] as const)
      for (const [what, filter] of [
        ['all', {}],
        ['document', { documentId: 'd1' }],
        ['user', { userId: 'u-alice' }],
        ['feature and action', { featureType: 'comment', actionType: 'add' }],
      ] as const)
        await step(`activity ${what} ${dir}`, (q) => walk((page) => q.activityPage(k1, 'acme', filter, page), timeKey, dir, 2));
    expect(ids('activity all asc')).toEqual(['a5', 'a1', 'a2', 'a3', 'a4']);
    expect(ids('activity feature and action desc')).toEqual(['a2', 'a1']);
    expect(ids('activity user asc')).toEqual(['a3', 'a4']);
    expect((answers['activity all asc'] as Array<Array<{ templateData: string }>>)[0]?.[0]?.templateData).toBe('{"who": "u-bob", "z": [1, 2]}');

    // ----- search
    for (const [what, q, each] of [
      ['acme', 'acme', 3],
      ['b', 'b', 5],
      ['percent', '%', 5],
      ['email', 'ALICE@', 3],
      ['endpoint', 'k1-ep', 2],
      ['nothing', 'qqqq', 3],
    ] as const)
      await step(`search ${what}`, (repo) => repo.search(w1, q, each));
    await step('search w2', (repo) => repo.search(w2, 'acme', 10));
    type Search = {
      keys: Array<{ id: string }>;
      hits: Array<{ kind: string; apiKey: string; id: string; organizationId: string | null; name: string | null }>;
    };
    const hits = (name: string) => (answers[name] as Search).hits.map((h) => `${h.kind}:${h.apiKey}:${h.organizationId ?? ''}:${h.id}`);
    expect((answers['search acme'] as Search).keys.map((k) => k.id)).toEqual(['k1', 'k3']);
    expect(hits('search acme')).toEqual(['organization:k1::ACME-2', 'organization:k1::acme', 'organization:k3::acme-k3']);
    expect(hits('search percent')).toEqual(['organization:k1::pct', 'document:k1:acme:d_5']);
    expect(hits('search email')).toEqual(['user:k1::u-alice']);
    // endpoints by creation, ties by id
    expect(hits('search endpoint')).toEqual(['webhook:k1::k1-ep-c', 'webhook:k1::k1-ep-a']);
    expect(hits('search nothing')).toEqual([]);
    expect((answers['search w2'] as Search).hits.every((h) => h.apiKey === 'k2')).toBe(true);

    // ----- mail
    const mailKey = (r: { createdAt: number; id: string }) => [r.createdAt, r.id];
    for (const dir of ['asc', 'desc'] as const) {
      await step(`mail w1 ${dir}`, (q) => walk((page) => q.mailPage(w1, page), mailKey, dir, 2));
      await step(`mail w2 ${dir}`, (q) => walk((page) => q.mailPage(w2, page), mailKey, dir, 1));
    }
    await step('mailOne of a key', (q) => q.mailOne(w1, 'm2'));
    await step('mailOne of another workspace', (q) => q.mailOne(w1, 'm6'));
    await step('mailOne own', (q) => q.mailOne(w2, 'm5'));
    expect(ids('mail w1 asc')).toEqual(['m4', 'm0', 'm1', 'm2', 'm3']);
    expect(ids('mail w1 desc')).toEqual(['m3', 'm2', 'm1', 'm0', 'm4']);
    expect(ids('mail w2 asc')).toEqual(['m5', 'm6']);
    expect(answers['mailOne of a key']).toEqual({
      id: 'm2',
      kind: 'login',
      to: 'm2@x.test',
      subject: 'Subject m2',
      status: 'queued',
      createdAt: 10,
      bodyEnc: 'enc-m2',
    });
    expect(answers['mailOne of another workspace']).toBeUndefined();
    expect((answers['mail w1 asc'] as Array<Array<{ id: string; lastError: string | null; sentAt: number | null }>>).flat().find((m) => m.id === 'm3')).toEqual(
      expect.objectContaining({ lastError: 'refused', sentAt: null }),
    );

    // ----- webhooks
    await step('outboxDepth', (q) => q.outboxDepth());
    await step('endpoint b', (q) => q.endpoint(k1, 'k1-ep-b'));
    await step('endpoint a', (q) => q.endpoint(k1, 'k1-ep-a'));
    await step('endpoint c', (q) => q.endpoint(k1, 'k1-ep-c'));
    await step('endpoint of another key', (q) => q.endpoint(k1, 'k2-ep-a'));
    await step('endpointSecret', (q) => q.endpointSecret(k1, 'k1-ep-b'));
    await step('endpointSecret of another key', (q) => q.endpointSecret(k2, 'k1-ep-b'));
    expect(answers.outboxDepth).toBe(2);
    expect(answers['endpoint b']).toEqual({ id: 'k1-ep-b', url: 'http://127.0.0.1:9/ep-b', disabled: 0, filterTypes: ['comment.add', 'comment.delete'] });
    expect(answers['endpoint a']).toEqual({ id: 'k1-ep-a', url: 'http://127.0.0.1:9/ep-a', disabled: 1, filterTypes: [] });
    expect((answers['endpoint c'] as { filterTypes: string[] }).filterTypes).toEqual([]);
    expect(answers['endpoint of another key']).toBeUndefined();
    expect(answers.endpointSecret).toBe('secret-k1-ep-b');
    expect(answers['endpointSecret of another key']).toBeNull();
  });

  it('reads a view in the caller unit of work when there is one', async () => {
    const port = inspectionRepo(both.pg);
    const view = await both.engine
      .transaction(async () => {
        await both.engine.write((db) => db.$client.query("UPDATE organizations SET name = 'Renamed' WHERE api_key_id = 'k1' AND id = 'pct'"));
        const inside = await port.organizationView(both.k1, 'pct', 10);
        throw Object.assign(new Error('roll back'), { inside });
      })
      .catch((error: { inside?: unknown }) => error.inside);
    expect((view as { organization: { name: string } }).organization.name).toBe('Renamed');
    expect((await port.organizationView(both.k1, 'pct', 10))?.organization.name).toBe('100% real');
  });
});
