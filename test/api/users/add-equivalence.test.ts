// users/add writes a batch in bulk (one read of the batch's profiles, prepared statements). It must leave exactly
// what the per-user primitives leave when applied to the list in order: upsertUser, then the membership with the
// role `given ?? current ?? 'editor'` and no expiry. Random batches (duplicate ids, fields given or not, empty
// and non-ASCII names, stored rows changed behind the service's back) run both ways from the same state, the
// per-user way rolled back; answers and every stored row must be identical.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AppContext } from '../../../server/context.ts';
import { tenantScope, type TenantScope } from '../../../server/db/scope.ts';
import { keyed } from '../../../server/services/keyed.ts';
import { ensureOrganization, type Outcomes } from '../../../server/services/organizations.ts';
import type { ApiKeyRow } from '../../../server/services/types.ts';
import { addUsers, levelOf, upsertUser } from '../../../server/services/users.ts';
import type { UserInput } from '../../../shared/schemas/access.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sqliteEngineOf } from '../../../server/db/repos/index.ts';

let t: TestServer;
let app: AppContext;
let apiKey: ApiKeyRow;
let scope: TenantScope;
beforeAll(async () => {
  t = await startTestServer();
  app = t.server.app;
  apiKey = sqliteEngineOf(app.storage)
    .main.db.query.apiKeys.findFirst({ where: (k, { eq }) => eq(k.id, t.credentials.apiKey) })
    .sync()!;
  scope = tenantScope(apiKey.id, apiKey.workspaceId);
  await t.callK('/v2/organizations/documents/add', { organizationId: 'eq', createOrganization: true, documents: [{ documentId: 'd1' }, { documentId: 'd2' }] });
  await t.callK('/v2/organizations/folders/add', { organizationId: 'eq', folders: [{ folderId: 'f1' }] });
});
afterAll(() => t.close());

type Input = { organizationId: string; documentId?: string; folderId?: string; users: UserInput[] };

/**
 * The per-user path: each user's profile and membership written and read back one at a time, in a unit of work
 * that is rolled back; what it answered and the rows it left (read inside it, on the write connection).
 */
async function perUser(input: Input): Promise<{ answer: string; rows: ReturnType<typeof snapshot> }> {
  const { level, resourceId } = levelOf(input);
  const rollback = new Error('rolled back');
  let expected: { answer: string; rows: ReturnType<typeof snapshot> } | undefined;
  await app.storage
    .transaction(async () => {
      await ensureOrganization(app, scope, input.organizationId, true);
      // keyed like the service's (no prototype): a user named __proto__ has its outcome too
      const out: Outcomes = keyed();
      for (const user of input.users) {
        const row = await upsertUser(app, scope, user);
        const key = { organizationId: input.organizationId, level, resourceId, userId: user.userId };
        const current = await app.storage.memberships.find(scope, key);
        await app.storage.memberships.upsert(scope, { ...key, accessRole: user.accessRole ?? current?.accessRole ?? 'editor', expiresAt: null }, Date.now());
        out[user.userId] = { success: true, id: row.internalId, message: 'User added.' };
      }
      expected = { answer: JSON.stringify(out), rows: snapshot(sqliteEngineOf(app.storage).writer.sqlite) };
      throw rollback;
    })
    .catch((error: unknown) => {
      if (error !== rollback) throw error;
    });
  return expected!;
}

function snapshot(sqlite = sqliteEngineOf(app.storage).main.sqlite) {
  return {
    users: sqlite.prepare('SELECT * FROM users WHERE api_key_id = ? ORDER BY id').all(apiKey.id),
    memberships: sqlite.prepare('SELECT * FROM memberships WHERE api_key_id = ? ORDER BY organization_id, level, resource_id, user_id').all(apiKey.id),
  };
}

/** A small deterministic generator (mulberry32), so that a failure reproduces. */
function random(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  return { next, pick };
}

const NAMES = [undefined, undefined, 'Ann', 'bob builder', '  ', 'émile', '😀 Smile', 'Zoë'] as const;
const EMAILS = [undefined, undefined, 'a@example.com', 'zed@example.com', ' '] as const;
const INITIALS = [undefined, undefined, undefined, 'Q', 'xy'] as const;
const PHOTOS = [undefined, undefined, 'https://img.example/p.png'] as const;
const ROLES = [undefined, undefined, 'viewer', 'editor'] as const;
const LEVELS = [{}, {}, { documentId: 'd1' }, { documentId: 'd2' }, { folderId: 'f1' }] as const;

/** One random batch over a pool of ids that recur (and a new one per entry); sometimes a list with repeats. */
function randomBatch(rng: ReturnType<typeof random>, round: number): Input {
  const size = 1 + Math.floor(rng.next() * 12);
  const users: UserInput[] = [];
  for (let i = 0; i < size; i++) {
    const user: UserInput = {
      userId: rng.pick(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9', `new-${round}-${i}`, 'ÿ-user', 'nul\u0000id', '007', '__proto__']),
    };
    const name = rng.pick(NAMES);
    const email = rng.pick(EMAILS);
    const initial = rng.pick(INITIALS);
    const photoUrl = rng.pick(PHOTOS);
    const accessRole = rng.pick(ROLES);
    if (name !== undefined) user.name = name;
    if (email !== undefined) user.email = email;
    if (initial !== undefined) user.initial = initial;
    if (photoUrl !== undefined) user.photoUrl = photoUrl;
    if (accessRole !== undefined) user.accessRole = accessRole;
    users.push(user);
  }
  return { organizationId: 'eq', ...rng.pick(LEVELS), users };
}

/** Rows other paths can leave: imported ids and metadata (JSON not as drizzle writes it), no initial, expiring roles. */
function alterBehindTheService() {
  const run = (sql: string) => sqliteEngineOf(app.storage).main.sqlite.prepare(sql).run(apiKey.id);
  run(`UPDATE users SET metadata = '{ "tier" : "gold", "n": 1.50 }' WHERE api_key_id = ? AND id = 'p3'`);
  run(`UPDATE users SET internal_id = 'imported-' || id WHERE api_key_id = ? AND id IN ('p4', 'p5')`);
  run(`UPDATE users SET initial = NULL WHERE api_key_id = ? AND id IN ('p6', 'p7')`);
  run(`UPDATE users SET initial = '' WHERE api_key_id = ? AND id = 'p8'`);
  run(`UPDATE memberships SET expires_at = 1000 WHERE api_key_id = ? AND user_id IN ('p1', 'p9')`);
}

describe('users/add in bulk', () => {
  it('answers and stores exactly what the per-user path does, batch after batch', async () => {
    const rng = random(20_261_124);
    const ROUNDS = 150;
    let compared = 0;
    let withKnownUsers = 0;
    let withRepeats = 0;
    let metadataRewritten = 0;
    // one clock for both ways, so that createdAt and updatedAt compare too
    const clock = vi.spyOn(Date, 'now').mockReturnValue(1_800_000_000_000);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        if (round % 10 === 5) alterBehindTheService();
        const input = randomBatch(rng, round);
        const before = snapshot();
        const stored = new Set(before.users.map((u: any) => u.id as string));
        if (input.users.some((u) => stored.has(u.userId))) withKnownUsers++;
        if (new Set(input.users.map((u) => u.userId)).size < input.users.length) withRepeats++;

        const expected = await perUser(input);
        expect(snapshot()).toEqual(before);
        const answer = JSON.stringify(await addUsers(app, scope, apiKey, input));
        const after = snapshot();
        expect({ round, input, answer, rows: after }).toEqual({ round, input, ...expected });
        const metadataOf = (rows: typeof after) => (rows.users.find((u: any) => u.id === 'p3') as { metadata?: string } | undefined)?.metadata;
        if (metadataOf(before) !== metadataOf(after)) metadataRewritten++;
        compared++;
      }
    } finally {
      clock.mockRestore();
    }
    expect(compared).toBe(ROUNDS);
    // the batches did reach the cases that matter
    expect(withKnownUsers).toBeGreaterThan(ROUNDS / 2);
    expect(withRepeats).toBeGreaterThan(ROUNDS / 5);
    const rows = snapshot();
    expect(new Set(rows.memberships.map((m: any) => m.level))).toEqual(new Set(['organization', 'document', 'folder']));
    expect(new Set(rows.memberships.map((m: any) => m.access_role))).toEqual(new Set(['viewer', 'editor']));
    expect(metadataRewritten).toBeGreaterThan(0);
    expect(rows.users.find((u: any) => u.id === 'p4')).toMatchObject({ internal_id: 'imported-p4' });
  });
});
