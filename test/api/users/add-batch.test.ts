// users/add with many users at once: the stored rows and the answers of a batch that mixes new users, existing
// users with changed and unchanged fields, existing memberships with and without accessRole, and duplicate ids.
// The rules are upsertUser's (name, email, photoUrl kept unless given; initial follows the name unless given;
// metadata, internal id and createdAt kept) and upsertMembership's (role kept unless given, default editor,
// expiry cleared), applied in the order of the list.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';
import type { Outcomes } from '../../../server/services/organizations.ts';
import { sqliteEngineOf } from '../../../server/db/repos/index.ts';

let t: TestServer;
let apiKeyId: string;
beforeAll(async () => {
  t = await startTestServer();
  apiKeyId = t.credentials.apiKey;
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'plan' }] });
});
afterAll(() => t.close());

const add = (data: unknown) => t.callK('/v2/users/add', data);
/** The id the hosted service reports for a user: the first 32 hex digits of sha256(apiKeyId NUL userId), stable forever. */
const internalUserId = (key: string, userId: string) => createHash('sha256').update(`${key}\0${userId}`).digest('hex').slice(0, 32);

interface StoredUser {
  id: string;
  internalId: string;
  name: string | null;
  email: string | null;
  initial: string | null;
  photoUrl: string | null;
  metadata: string;
  createdAt: number;
  updatedAt: number;
}
interface StoredMembership {
  level: string;
  resourceId: string;
  userId: string;
  accessRole: string;
  expiresAt: number | null;
  createdAt: number;
  updatedAt: number;
}

const sql = () => sqliteEngineOf(t.server.app.storage).main.sqlite;
function storedUser(userId: string): StoredUser | undefined {
  return sql()
    .prepare(
      'SELECT id, internal_id AS internalId, name, email, initial, photo_url AS photoUrl, metadata, created_at AS createdAt, updated_at AS updatedAt FROM users WHERE api_key_id = ? AND id = ?',
    )
    .get(apiKeyId, userId) as StoredUser | undefined;
}
function storedMemberships(organizationId: string, userId: string): StoredMembership[] {
  return sql()
    .prepare(
      'SELECT level, resource_id AS resourceId, user_id AS userId, access_role AS accessRole, expires_at AS expiresAt, created_at AS createdAt, updated_at AS updatedAt FROM memberships WHERE api_key_id = ? AND organization_id = ? AND user_id = ? ORDER BY level, resource_id',
    )
    .all(apiKeyId, organizationId, userId) as StoredMembership[];
}
const profile = (u: StoredUser | undefined) =>
  u && { name: u.name, email: u.email, initial: u.initial, photoUrl: u.photoUrl, metadata: JSON.parse(u.metadata) };

describe('/v2/users/add with a batch', () => {
  it('mixes new and existing users: each profile follows the upsert rules, each membership keeps or sets its role', async () => {
    const org = 'batch-org';
    const setup = await add({
      organizationId: org,
      users: [
        { userId: 'ann', name: 'Ann Archer', email: 'ann@example.com', photoUrl: 'https://img.example/ann.png' },
        { userId: 'bea', name: 'Bea', initial: 'Z' },
        { userId: 'cid', name: 'Cid', initial: 'Q', accessRole: 'viewer' },
        { userId: 'dan', email: 'dan@example.com', accessRole: 'viewer' },
        { userId: 'eve', name: 'Eve' },
        { userId: 'fay', name: 'Fay', accessRole: 'viewer' },
        { userId: 'gus', name: 'Gus' },
      ],
    });
    expect(setup.status).toBe(200);
    // what other paths (imports, permissions with an expiry) can leave behind
    sql().prepare('UPDATE users SET metadata = \'{"plan":"pro"}\' WHERE api_key_id = ? AND id = \'ann\'').run(apiKeyId);
    sql().prepare("UPDATE users SET internal_id = 'imported-id-of-eve', initial = NULL WHERE api_key_id = ? AND id = 'eve'").run(apiKeyId);
    sql().prepare("UPDATE memberships SET expires_at = 4102444800000 WHERE api_key_id = ? AND organization_id = ? AND user_id = 'fay'").run(apiKeyId, org);
    sql().prepare("UPDATE memberships SET expires_at = 1000 WHERE api_key_id = ? AND organization_id = ? AND user_id = 'gus'").run(apiKeyId, org);
    // an old time, so that a rewritten profile shows
    sql().prepare('UPDATE users SET updated_at = 1 WHERE api_key_id = ?').run(apiKeyId);
    const before = Object.fromEntries(
      ['ann', 'bea', 'cid', 'dan', 'eve', 'fay', 'gus'].map((id) => [id, { user: storedUser(id)!, memberships: storedMemberships(org, id) }]),
    );

    const res = await add({
      organizationId: org,
      users: [
        { userId: 'new-1', name: 'émile zola' },
        { userId: 'ann', email: 'ann@new.example' }, // name kept, initial kept
        { userId: 'bea', name: 'Beatrix' }, // a new name re-derives an initial that was given before
        { userId: 'cid', email: 'cid@example.com' }, // a given initial stays while the name is not sent
        { userId: 'dan' }, // nothing changes (the profile is not written); the viewer role stays
        { userId: 'eve' }, // no stored initial: derived; the stored internal id is the answer
        { userId: 'fay', accessRole: 'editor' }, // role changed, expiry cleared
        { userId: 'gus' }, // expired membership: role kept, expiry cleared
        { userId: 'new-2', email: 'new2@example.com', initial: 'x', photoUrl: 'https://img.example/2.png', accessRole: 'viewer' },
        { userId: 'new-3' },
      ],
    });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'User(s) processed successfully.',
      data: {
        'new-1': { success: true, id: internalUserId(apiKeyId, 'new-1'), message: 'User added.' },
        ann: { success: true, id: internalUserId(apiKeyId, 'ann'), message: 'User added.' },
        bea: { success: true, id: internalUserId(apiKeyId, 'bea'), message: 'User added.' },
        cid: { success: true, id: internalUserId(apiKeyId, 'cid'), message: 'User added.' },
        dan: { success: true, id: internalUserId(apiKeyId, 'dan'), message: 'User added.' },
        eve: { success: true, id: 'imported-id-of-eve', message: 'User added.' },
        fay: { success: true, id: internalUserId(apiKeyId, 'fay'), message: 'User added.' },
        gus: { success: true, id: internalUserId(apiKeyId, 'gus'), message: 'User added.' },
        'new-2': { success: true, id: internalUserId(apiKeyId, 'new-2'), message: 'User added.' },
        'new-3': { success: true, id: internalUserId(apiKeyId, 'new-3'), message: 'User added.' },
      },
    });
    expect(Object.keys(dataOf<Outcomes>(res))).toEqual(['new-1', 'ann', 'bea', 'cid', 'dan', 'eve', 'fay', 'gus', 'new-2', 'new-3']);

    expect(profile(storedUser('new-1'))).toEqual({ name: 'émile zola', email: null, initial: 'É', photoUrl: null, metadata: {} });
    expect(profile(storedUser('ann'))).toEqual({
      name: 'Ann Archer',
      email: 'ann@new.example',
      initial: 'A',
      photoUrl: 'https://img.example/ann.png',
      metadata: { plan: 'pro' },
    });
    expect(profile(storedUser('bea'))).toEqual({ name: 'Beatrix', email: null, initial: 'B', photoUrl: null, metadata: {} });
    expect(profile(storedUser('cid'))).toEqual({ name: 'Cid', email: 'cid@example.com', initial: 'Q', photoUrl: null, metadata: {} });
    expect(profile(storedUser('dan'))).toEqual({ name: null, email: 'dan@example.com', initial: 'D', photoUrl: null, metadata: {} });
    expect(profile(storedUser('eve'))).toEqual({ name: 'Eve', email: null, initial: 'E', photoUrl: null, metadata: {} });
    expect(profile(storedUser('new-2'))).toEqual({ name: null, email: 'new2@example.com', initial: 'x', photoUrl: 'https://img.example/2.png', metadata: {} });
    expect(profile(storedUser('new-3'))).toEqual({ name: null, email: null, initial: 'N', photoUrl: null, metadata: {} });
    for (const id of ['new-1', 'new-2', 'new-3']) {
      const u = storedUser(id)!;
      expect(u.internalId).toBe(internalUserId(apiKeyId, id));
      expect(u.createdAt).toBe(u.updatedAt);
    }
    // a profile the call changed has the call's time; one it left as it was keeps its time
    const unchanged = ['dan', 'fay', 'gus'];
    for (const [id, { user }] of Object.entries(before)) {
      const now = storedUser(id)!;
      expect({ id, internalId: now.internalId, createdAt: now.createdAt }).toEqual({ id, internalId: user.internalId, createdAt: user.createdAt });
      expect({ id, rewritten: now.updatedAt > 1 }).toEqual({ id, rewritten: !unchanged.includes(id) });
    }

    const role = (id: string) =>
      storedMemberships(org, id).map((m) => ({ level: m.level, resourceId: m.resourceId, accessRole: m.accessRole, expiresAt: m.expiresAt }));
    const orgLevel = (accessRole: string) => [{ level: 'organization', resourceId: org, accessRole, expiresAt: null }];
    expect(role('new-1')).toEqual(orgLevel('editor'));
    expect(role('ann')).toEqual(orgLevel('editor'));
    expect(role('cid')).toEqual(orgLevel('viewer'));
    expect(role('dan')).toEqual(orgLevel('viewer'));
    expect(role('fay')).toEqual(orgLevel('editor'));
    expect(role('gus')).toEqual(orgLevel('editor'));
    expect(role('new-2')).toEqual(orgLevel('viewer'));
    expect(role('new-3')).toEqual(orgLevel('editor'));
    for (const [id, { memberships }] of Object.entries(before)) {
      const [now] = storedMemberships(org, id);
      expect(now!.createdAt).toBe(memberships[0]!.createdAt);
      expect(now!.updatedAt).toBeGreaterThanOrEqual(memberships[0]!.updatedAt);
    }
  });

  it('applies duplicate user ids in list order: a later entry sees what the earlier one wrote', async () => {
    const org = 'dup-org';
    const res = await add({
      organizationId: org,
      users: [
        { userId: 'dup', name: 'First', accessRole: 'viewer' },
        { userId: 'other' },
        { userId: 'dup', email: 'dup@example.com' },
        { userId: 'given', initial: 'X' },
        { userId: 'given', name: 'Yan' },
        { userId: 'role', accessRole: 'viewer' },
        { userId: 'role', accessRole: 'editor' },
        { userId: 'role' },
      ],
    });
    expect(res.status).toBe(200);
    expect(Object.keys(dataOf<Outcomes>(res))).toEqual(['dup', 'other', 'given', 'role']);
    for (const id of ['dup', 'other', 'given', 'role'])
      expect(dataOf<Outcomes>(res)[id]).toEqual({ success: true, id: internalUserId(apiKeyId, id), message: 'User added.' });
    expect(profile(storedUser('dup'))).toEqual({ name: 'First', email: 'dup@example.com', initial: 'F', photoUrl: null, metadata: {} });
    expect(profile(storedUser('given'))).toEqual({ name: 'Yan', email: null, initial: 'Y', photoUrl: null, metadata: {} });
    expect(storedMemberships(org, 'dup').map((m) => m.accessRole)).toEqual(['viewer']);
    expect(storedMemberships(org, 'role').map((m) => m.accessRole)).toEqual(['editor']);
    // ids are trimmed by validation: these two are the same user
    const trimmed = await add({
      organizationId: org,
      users: [
        { userId: ' pad ', name: 'Pad', accessRole: 'viewer' },
        { userId: 'pad', email: 'pad@example.com' },
      ],
    });
    expect(Object.keys(dataOf<Outcomes>(trimmed))).toEqual(['pad']);
    expect(profile(storedUser('pad'))).toEqual({ name: 'Pad', email: 'pad@example.com', initial: 'P', photoUrl: null, metadata: {} });
    expect(storedMemberships(org, 'pad').map((m) => m.accessRole)).toEqual(['viewer']);
  });

  it('writes memberships at the level of the call only, leaving the user’s other memberships as they were', async () => {
    const org = 'level-org';
    await add({ organizationId: org, users: [{ userId: 'lee', accessRole: 'viewer' }, { userId: 'max' }] });
    await add({ organizationId: org, documentId: 'spec', createDocument: true, users: [{ userId: 'lee', accessRole: 'editor' }] });
    const orgMembership = storedMemberships(org, 'lee').find((m) => m.level === 'organization')!;
    const res = await add({ organizationId: org, documentId: 'spec', users: [{ userId: 'lee' }, { userId: 'max', accessRole: 'viewer' }, { userId: 'nia' }] });
    expect(res.status).toBe(200);
    const levels = (id: string) => storedMemberships(org, id).map((m) => `${m.level}:${m.resourceId}:${m.accessRole}`);
    expect(levels('lee')).toEqual(['document:spec:editor', 'organization:level-org:viewer']);
    expect(levels('max')).toEqual(['document:spec:viewer', 'organization:level-org:editor']);
    expect(levels('nia')).toEqual(['document:spec:editor']);
    expect(storedMemberships(org, 'lee').find((m) => m.level === 'organization')).toEqual(orgMembership);
    await add({ organizationId: org, folderId: 'dir', createFolder: true, users: [{ userId: 'nia', accessRole: 'viewer' }, { userId: 'nia' }] });
    expect(levels('nia')).toEqual(['document:spec:editor', 'folder:dir:viewer']);
  });

  it('takes 1,000 users, half of them known, in one call; 1,001 are refused', async () => {
    const org = 'thousand';
    const first = Array.from({ length: 500 }, (_, i) => ({ userId: `u${i}`, name: `User ${i}`, accessRole: i % 2 ? 'viewer' : 'editor' }));
    expect((await add({ organizationId: org, users: first })).status).toBe(200);
    const batch = Array.from({ length: 1000 }, (_, i) => ({ userId: `u${i}`, email: `u${i}@example.com` }));
    const res = await add({ organizationId: org, users: batch });
    expect(res.status).toBe(200);
    expect(Object.keys(dataOf<Outcomes>(res))).toHaveLength(1000);
    expect(dataOf<Outcomes>(res).u999).toEqual({ success: true, id: internalUserId(apiKeyId, 'u999'), message: 'User added.' });
    const counts = sql()
      .prepare(
        'SELECT access_role AS role, count(*) AS n FROM memberships WHERE api_key_id = ? AND organization_id = ? GROUP BY access_role ORDER BY access_role',
      )
      .all(apiKeyId, org);
    expect(counts).toEqual([
      { role: 'editor', n: 750 },
      { role: 'viewer', n: 250 },
    ]);
    expect(profile(storedUser('u1'))).toEqual({ name: 'User 1', email: 'u1@example.com', initial: 'U', photoUrl: null, metadata: {} });
    expect(profile(storedUser('u700'))).toEqual({ name: null, email: 'u700@example.com', initial: 'U', photoUrl: null, metadata: {} });
    const tooMany = await add({ organizationId: org, users: [...batch, { userId: 'one-more' }] });
    expect(tooMany.status).toBe(400);
    expect(errorOf(tooMany)).toEqual({ status: 'INVALID_ARGUMENT', message: 'users must have at most 1000 item(s).' });
  });

  it('writes nothing when the call fails: no organization, no users, no memberships', async () => {
    const res = await add({
      organizationId: 'never-made',
      documentId: 'missing',
      users: [
        { userId: 'ghost', name: 'Ghost' },
        { userId: 'ann', name: 'Not Ann' },
      ],
    });
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'Document does not exist: missing. Pass createDocument: true to create it.' });
    expect(storedUser('ghost')).toBeUndefined();
    expect(storedUser('ann')!.name).toBe('Ann Archer');
    expect(sql().prepare("SELECT count(*) AS n FROM organizations WHERE api_key_id = ? AND id = 'never-made'").get(apiKeyId)).toEqual({ n: 0 });
    const invalidLater = await add({ organizationId: 'acme', users: [{ userId: 'fine' }, { userId: 'bad', accessRole: 'owner' }] });
    expect(errorOf(invalidLater)).toEqual({ status: 'INVALID_ARGUMENT', message: 'users[1].accessRole must be one of: viewer, editor.' });
    expect(storedUser('fine')).toBeUndefined();
  });
});
