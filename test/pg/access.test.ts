// The access facts on PostgreSQL answer as on SQLite (see organizations.test.ts): an organization with a folder tree
// five levels deep, documents in folders and at the top, memberships at every level (some expired at `now`), for
// two keys; then the same questions on both engines (every fact directly, and the real resolver's decisions, one
// by one, in batches and inside a unit of work), every answer compared, the answers checked for what they should
// be, and the statements a question costs counted.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccessRepo, accessRepoPg } from '../../server/db/pg/repos/access.ts';
import type { AccessFacts } from '../../server/db/repos/access.ts';
import { type DocumentRow, documentsRepo } from '../../server/db/repos/documents.ts';
import { type FolderRow, foldersRepo } from '../../server/db/repos/folders.ts';
import { type MembershipLevel, type MembershipRow, membershipsRepo } from '../../server/db/repos/memberships.ts';
import type { TenantScope } from '../../server/db/scope.ts';
import { createAccessResolver } from '../../server/services/access.ts';
import { type BothEngines, bothEngines } from '../helpers/pg-parity.ts';

const NOW = 1_700_000_000_000;
const USERS = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'nobody'];
const FOLDERS = ['fa', 'fb', 'fc', 'fd', 'fe', 'fx', 'missing-folder'];
const DOCUMENTS = ['dr1', 'dr2', 'dr3', 'dfa', 'dfc', 'dfe', 'dfx', 'dangling', 'missing-doc'];

let both: BothEngines;
let pgRepo: AccessRepo;

/** A folder row below `parent` (null: the top), as services/folders.ts makes it. */
function folder(id: string, parent: Omit<FolderRow, 'apiKeyId'> | null, own: FolderRow['ownAccessType'] = null): Omit<FolderRow, 'apiKeyId'> {
  return {
    organizationId: 'o1',
    id,
    name: `Folder ${id}`,
    parentId: parent?.id ?? 'root',
    ancestors: parent ? [...parent.ancestors, parent.id] : ['root'],
    path: parent ? `${parent.path}${id}/` : `/${id}/`,
    ownAccessType: own,
    inheritAccess: own === null,
    accessType: own ?? parent?.accessType ?? 'public',
    createdAt: NOW,
    updatedAt: NOW,
  };
}

const doc = (id: string, folderId: string | null, accessType: DocumentRow['accessType'] = 'public', disabled = false): Omit<DocumentRow, 'apiKeyId'> => ({
  organizationId: 'o1',
  id,
  name: `Doc ${id}`,
  folderId,
  accessType,
  disabled,
  metadata: { id },
  createdAt: NOW,
  updatedAt: NOW,
});

beforeAll(async () => {
  both = await bothEngines();
  pgRepo = accessRepoPg(both.engine);
  await both.insertOrganizations([
    ['k1', 'o1'],
    ['k1', 'o2'],
    ['k2', 'o1'],
  ] as const);
  await both.insertBoth('UPDATE organizations SET disabled = ? WHERE api_key_id = ? AND id = ?', [true, 'k1', 'o2']);
  // fa (public) > fb (organizationPrivate) > fc > fd (restricted) > fe; fx beside
  const fa = folder('fa', null);
  const fb = folder('fb', fa, 'organizationPrivate');
  const fc = folder('fc', fb);
  const fd = folder('fd', fc, 'restricted');
  const fe = folder('fe', fd);
  const fx = folder('fx', null);
  const docs = [
    doc('dr1', null),
    doc('dr2', null, 'restricted'),
    doc('dr3', null, 'organizationPrivate', true),
    doc('dfa', 'fa'),
    doc('dfc', 'fc'),
    doc('dfe', 'fe'),
    doc('dfx', 'fx', 'organizationPrivate'),
    doc('dangling', 'gone'),
  ];
  const m = (userId: string, level: MembershipLevel, resourceId: string, accessRole: 'editor' | 'viewer', expiresAt: number | null = null) => ({
    organizationId: 'o1',
    level,
    resourceId,
    userId,
    accessRole,
    expiresAt,
  });
  const grants = [
    m('alice', 'organization', 'o1', 'editor'),
    m('bob', 'organization', 'o1', 'viewer', NOW - 1), // expired
    m('bob', 'folder', 'fb', 'editor', NOW + 1000),
    m('carol', 'folder', 'fa', 'viewer'),
    m('carol', 'document', 'dfe', 'editor'),
    m('dave', 'document', 'dr2', 'viewer'),
    m('dave', 'folder', 'fd', 'editor', NOW), // expired: expires_at must be after now
    m('erin', 'folder', 'fx', 'viewer'),
    m('erin', 'document', 'dfx', 'editor', NOW + 1),
    m('erin', 'document', 'dr3', 'editor'),
    m('frank', 'folder', 'fe', 'viewer'),
    { ...m('alice', 'organization', 'o2', 'editor'), organizationId: 'o2' },
  ];
  const pgFolders = foldersRepo(both.pg);
  const pgDocuments = documentsRepo(both.pg);
  const pgMemberships = membershipsRepo(both.pg);
  for (const [folders, documents, memberships] of [
    [both.storage.folders, both.storage.documents, both.storage.memberships],
    [pgFolders, pgDocuments, pgMemberships],
  ] as const) {
    for (const row of [fa, fb, fc, fd, fe, fx]) await folders.insert(both.k1, row);
    await documents.insert(both.k1, docs);
    for (const row of grants) await memberships.upsert(both.k1, row, NOW - 10);
    // k2 has an o1 of its own: the same ids, other rows
    await folders.insert(both.k2, { ...fe, ownAccessType: null, accessType: 'public' });
    await documents.insert(both.k2, [doc('dfe', 'fe', 'public', true)]);
    await memberships.upsert(both.k2, m('alice', 'document', 'dfe', 'viewer'), NOW - 10);
  }
});
afterAll(() => both?.close());

/** Every fact, directly: each document, folder, user's memberships and resources' members the organization has (or not). */
const everyFact = (facts: AccessFacts) => ({
  organization: facts.organization() ?? null,
  documents: DOCUMENTS.map((id) => facts.document(id) ?? null),
  folders: FOLDERS.map((id) => facts.folder(id) ?? null),
  // SQLite answers a user's rows in insertion order, PostgreSQL by level and resource: compared as sets
  memberships: USERS.flatMap((userId) => [NOW - 1, NOW, NOW + 1, NOW + 5000].map((at) => sortRows(facts.membershipsOf(userId, at)))),
  usersAt: [
    facts.usersAt('organization', ['o1']),
    facts.usersAt('organization', ['o2', 'o1']),
    facts.usersAt('folder', ['fe', 'fd', 'fc', 'fb', 'fa']),
    facts.usersAt('folder', ['fx', 'fa', 'fx', 'nope']),
    facts.usersAt('folder', []),
    facts.usersAt('document', ['dfe', 'dr2', 'dfx', 'dr3']),
  ],
});
const sortRows = (rows: MembershipRow[]) => [...rows].sort((a, b) => `${a.level}:${a.resourceId}`.localeCompare(`${b.level}:${b.resourceId}`));

/** The real resolver's questions, on one repository: one by one (the cache across steps), and all in one batch. */
async function resolverAnswers(repo: AccessRepo, scope: TenantScope, organizationId: string) {
  const deps = { storage: { access: repo } };
  const one = createAccessResolver(deps, scope, organizationId, NOW);
  const answers: unknown[] = [];
  for (const userId of USERS) {
    answers.push(await one.organization(userId));
    for (const id of FOLDERS) answers.push(await one.folder(userId, id));
    for (const id of DOCUMENTS) answers.push(await one.document(userId, id));
  }
  for (const id of DOCUMENTS) answers.push([...(await one.documentUsers(id)).entries()]);
  const batch = await createAccessResolver(deps, scope, organizationId, NOW).batch((r) => [
    ...DOCUMENTS.map((id) => [...r.documentUsers(id).entries()]),
    ...USERS.flatMap((userId) => [r.organization(userId), ...FOLDERS.map((id) => r.folder(userId, id)), ...DOCUMENTS.map((id) => r.document(userId, id))]),
  ]);
  return { answers, batch };
}

/** Counts the statements sent to PostgreSQL (BEGIN and COMMIT included) while `work` runs. */
async function statements<T>(work: () => Promise<T>): Promise<{ value: T; count: number; texts: string[] }> {
  const texts: string[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text: string };
    texts.push(typeof first === 'string' ? first : first.text);
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    const value = await work();
    return { value, count: texts.length, texts };
  } finally {
    pg.Client.prototype.query = original;
  }
}

describe('access', () => {
  it('answers every fact as on SQLite: rows, missing rows, memberships unexpired at now, members of resources, tenant isolation', async () => {
    for (const [scope, organizationId] of [
      [both.k1, 'o1'],
      [both.k1, 'o2'],
      [both.k1, 'nope'],
      [both.k2, 'o1'],
    ] as const) {
      const sqlite = await both.storage.access.read(scope, organizationId, everyFact);
      const pgAnswer = await pgRepo.read(scope, organizationId, everyFact);
      expect(pgAnswer).toEqual(sqlite);
    }
    const facts = await pgRepo.read(both.k1, 'o1', everyFact);
    expect(facts.organization?.id).toBe('o1');
    expect(facts.documents.map((row) => row?.id ?? null)).toEqual([...DOCUMENTS.slice(0, -1), null]);
    expect(facts.folders.map((row) => row?.ancestors ?? null)).toEqual([
      ['root'],
      ['root', 'fa'],
      ['root', 'fa', 'fb'],
      ['root', 'fa', 'fb', 'fc'],
      ['root', 'fa', 'fb', 'fc', 'fd'],
      ['root'],
      null,
    ]);
    // bob's organization membership expired at NOW - 1: seen at NOW - 2 only (index 0 is NOW - 1: not after it)
    const bob = USERS.indexOf('bob') * 4;
    expect(facts.memberships[bob]?.map((r) => r.resourceId)).toEqual(['fb']);
    expect(facts.memberships[bob + 3]).toEqual([]); // NOW + 5000: fb's has expired too
    const dave = USERS.indexOf('dave') * 4;
    expect(facts.memberships[dave]?.map((r) => r.resourceId)).toEqual(['dr2', 'fd']); // at NOW - 1
    expect(facts.memberships[dave + 1]?.map((r) => r.resourceId)).toEqual(['dr2']); // at NOW: expired
    // members by resource id, then user id, repeated when on several; expiry does not count here
    expect(facts.usersAt).toEqual([
      ['alice', 'bob'],
      ['alice', 'bob'],
      ['carol', 'bob', 'dave', 'frank'],
      ['carol', 'erin'],
      [],
      ['carol', 'erin', 'dave', 'erin'], // dfe, dfx, dr2, dr3
    ]);
    const k2 = await pgRepo.read(both.k2, 'o1', everyFact);
    expect(k2.documents.map((row) => row?.disabled ?? null)).toEqual([null, null, null, null, null, true, null, null, null]);
    expect(k2.usersAt[5]).toEqual(['alice']);
  });

  it("answers the resolver's questions as on SQLite, one by one and in batches", async () => {
    for (const [scope, organizationId] of [
      [both.k1, 'o1'],
      [both.k1, 'o2'],
      [both.k2, 'o1'],
    ] as const) {
      const sqlite = await resolverAnswers(both.storage.access, scope, organizationId);
      const pgAnswers = await resolverAnswers(pgRepo, scope, organizationId);
      expect(pgAnswers).toEqual(sqlite);
      expect(pgAnswers.batch).toEqual(
        sqlite.batch, // and the batch answers as the questions one by one
      );
    }
    const r = createAccessResolver({ storage: { access: pgRepo } }, both.k1, 'o1', NOW);
    // the deep document: restricted by fd; carol by the document and fa, bob by fb, frank by fe; not alice (organization)
    // nor dave (fd's membership expired at now)
    expect(await r.documentUsers('dfe')).toEqual(
      new Map([
        ['carol', 'editor'],
        ['bob', 'editor'],
        ['frank', 'viewer'],
      ]),
    );
    const dfe = await r.document('alice', 'dfe');
    expect(dfe).toMatchObject({ exists: true, access: false, accessType: 'restricted' });
    expect(dfe.reasons).toContain('organization membership does not apply: the document is restricted');
    expect(await r.document('dave', 'dfe')).toMatchObject({ access: false, accessRole: null });
    expect(await r.document('frank', 'dr1')).toMatchObject({ access: true, accessRole: 'editor', accessType: 'public' });
    expect(await r.document('erin', 'dr3')).toMatchObject({ access: true, accessRole: 'viewer' }); // disabled: read-only
    expect(await r.document('alice', 'dfc')).toMatchObject({ accessRole: 'editor', accessType: 'organizationPrivate' });
    expect(await r.document('alice', 'dangling')).toMatchObject({ exists: true, accessType: 'public' });
    expect(await r.folder('bob', 'fe')).toMatchObject({ accessRole: 'editor', accessType: 'restricted' });
    expect(await r.document('alice', 'missing-doc')).toMatchObject({ exists: false });
    const o2 = createAccessResolver({ storage: { access: pgRepo } }, both.k1, 'o2', NOW);
    expect(await o2.organization('alice')).toMatchObject({
      accessRole: 'viewer',
      reasons: ['editor through organization membership', 'read-only: the organization is disabled'],
    });
  });

  it("runs within the caller's unit of work, and sees its writes", async () => {
    const k1 = both.k1;
    const pgMemberships = membershipsRepo(both.pg);
    const inside = await both.engine
      .transaction(async () => {
        await pgMemberships.upsert(
          k1,
          { organizationId: 'o1', level: 'document', resourceId: 'dfe', userId: 'nobody', accessRole: 'viewer', expiresAt: null },
          NOW,
        );
        const decision = await createAccessResolver({ storage: { access: pgRepo } }, k1, 'o1', NOW).document('nobody', 'dfe');
        throw Object.assign(new Error('roll back'), { decision });
      })
      .catch((error: { decision: unknown }) => error.decision);
    expect(inside).toMatchObject({ access: true, accessRole: 'viewer' });
    expect(await createAccessResolver({ storage: { access: pgRepo } }, k1, 'o1', NOW).document('nobody', 'dfe')).toMatchObject({ access: false });
  });

  it('costs a few statements per question, however deep the folder and however many users a batch asks about', async () => {
    const resolver = () => createAccessResolver({ storage: { access: pgRepo } }, both.k1, 'o1', NOW);
    // BEGIN, the organization, the document, its folder with every ancestor, the user's memberships, COMMIT
    const shallow = await statements(() => resolver().document('carol', 'dfa'));
    const deep = await statements(() => resolver().document('carol', 'dfe'));
    expect(shallow.value.accessRole).toBe('viewer');
    expect(deep.value.accessRole).toBe('editor');
    expect(shallow.count).toBe(6);
    expect(deep.count).toBe(6);
    expect(deep.texts[0]).toMatch(/^BEGIN ISOLATION LEVEL REPEATABLE READ/);
    // documentUsers: with the members of the document, its chain and the organization, every member's memberships
    const members = await statements(() => resolver().documentUsers('dfe'));
    expect(members.value.size).toBe(3);
    expect(members.count).toBe(7);
    // every user about every folder and document, in one batch: each kind loaded at most twice
    const batch = await statements(() =>
      resolver().batch((r) => USERS.flatMap((userId) => [...FOLDERS.map((id) => r.folder(userId, id)), ...DOCUMENTS.map((id) => r.document(userId, id))])),
    );
    expect(batch.value).toHaveLength(USERS.length * (FOLDERS.length + DOCUMENTS.length));
    expect(batch.count).toBeLessThanOrEqual(10);
    // an ask that walks the folder chain itself: the ancestors came with the document's folder
    const walk = (facts: AccessFacts) => {
      const folderId = facts.document('dfe')?.folderId;
      const own = folderId ? facts.folder(folderId) : undefined;
      return [own, ...(own?.ancestors ?? []).filter((id) => id !== 'root').map((id) => facts.folder(id))].map((row) => row?.accessType);
    };
    const chain = await statements(() => pgRepo.read(both.k1, 'o1', walk));
    expect(chain.value).toEqual(await both.storage.access.read(both.k1, 'o1', walk));
    expect(chain.value).toEqual(['restricted', 'public', 'organizationPrivate', 'organizationPrivate', 'restricted']);
    expect(chain.count).toBe(4); // BEGIN, the document, the folders, COMMIT
    // a question whose facts the resolver has cached: no statement at all
    const cached = resolver();
    await cached.document('carol', 'dfe');
    expect((await statements(() => cached.document('carol', 'dfe'))).count).toBe(0);
    console.log(`statements: shallow ${shallow.count}, deep ${deep.count}, documentUsers ${members.count}, batch ${batch.count}, chain ${chain.count}`);
  });
});
