// The keys repository answers alike on PostgreSQL and on SQLite: the same calls on both engines, every answer
// compared (test/helpers/pg-parity.ts sets both engines up). `credentialChanges` is each engine's own count (the
// engine's tableChanges), not compared here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiKeyRow, type KeysRepo, keysRepo } from '../../server/db/repos/keys.ts';
import { workspaceScope } from '../../server/db/scope.ts';
import { type BothEngines, bothEngines, onBoth } from '../helpers/pg-parity.ts';

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
  // the shared setup's keys take their times from each engine's clock: the same ones on both
  await both.insertBoth('UPDATE api_keys SET created_at = ?, updated_at = ? WHERE id IN (?, ?)', [10, 10, 'k1', 'k2']);
});
afterAll(() => both?.close());

const key = (id: string, createdAt: number, type: 'testing' | 'production' = 'testing') => ({
  id,
  name: `Key ${id}`,
  type,
  ownerEmail: 'o@x.test',
  persistenceRegion: null,
  realtimeRegion: null,
  allowedDomains: ['b.test', 'a.test'],
  // stored as given (the service validates settings): key order must survive
  settings: { z: { b: 1, a: [2, null] }, a: true } as unknown as ApiKeyRow['settings'],
  disabled: false,
  disabledAt: null,
  createdAt,
  updatedAt: createdAt,
});
const token = (id: string, digest: string, createdAt: number) => ({
  id,
  name: `Token ${id}`,
  domains: ['x.test'],
  tokenEnc: `enc-${id}`,
  tokenDigest: digest,
  createdAt,
});

describe('keys', () => {
  it('answers every call as on SQLite: scopes, credentials, lists and pages, counts, updates', async () => {
    const { k1, k2 } = both;
    const w1 = workspaceScope('w1');
    const w2 = workspaceScope('w2');
    const answers = await onBoth<KeysRepo>(both.storage.keys, keysRepo(both.pg, both.engine), async (repo) => [
      await repo.scopeFor('k1'),
      await repo.scopeFor('k2', { kind: 'user', userId: 'u1' }),
      await repo.scopeFor('missing'),
      await repo.withScope('k1', { kind: 'admin' }),
      await repo.withScope('missing', { kind: 'admin' }),
      repo.scopeOf({ id: 'k9', workspaceId: 'w9' }),
      await repo.insert(w1, key('kb', 100)),
      await repo.insert(w1, key('KA', 100, 'production')),
      await repo.insert(w1, key('kc', 50, 'production')),
      await repo.insert(w2, key('kd', 100, 'production')),
      await repo.find(k1),
      await repo.findInWorkspace(w1, 'kb'),
      await repo.findInWorkspace(w2, 'kb'),
      await repo.findInWorkspace(w1, 'missing'),
      // (createdAt, id), ids in code point order: k1 (10), kc (50), KA, kb (100)
      await repo.listInWorkspace(w1),
      await repo.listInWorkspace(w2),
      await repo.page(w1, { after: null, limit: 2 }),
      await repo.page(w1, { after: [50, 'kc'], limit: 10 }),
      await repo.page(w1, { after: [100, 'KA'], limit: 10 }),
      await repo.page(w1, { ids: ['kb', 'kd', 'k1', 'nope'], after: null, limit: 10 }),
      await repo.page(w2, { after: null, limit: 10 }),
      await repo.productionCount(w1),
      await repo.productionCount(w2),
      await repo.productionCount(workspaceScope('missing')),
      await repo.update(k1, {
        name: 'Renamed',
        settings: { b: 1, a: 2 } as never,
        allowedDomains: ['z.test', 'a.test'],
        disabled: true,
        disabledAt: 5,
        updatedAt: 6,
      }),
      await repo.update(repo.scopeOf({ id: 'missing', workspaceId: 'w1' }), { name: 'x' }),
      await repo.find(k1),
      await repo.find(k2),
      // auth tokens
      await repo.tokens(k1),
      await repo.forCredentials('k1', 'digest-t1'),
      await repo.insertToken(k1, token('tb', 'digest-t1', 5)),
      await repo.insertToken(k1, token('TA', 'digest-t2', 5)),
      await repo.insertToken(k2, token('tc', 'digest-t3', 1)),
      await repo.forCredentials('k1', 'digest-t1'),
      await repo.forCredentials('k1', 'digest-t3'),
      await repo.forCredentials('k1', 'digest-none'),
      await repo.forCredentials('missing', 'digest-t1'),
      await repo.tokens(k1),
      await repo.deleteToken(k2, 'tb'),
      await repo.tokens(k1),
      await repo.deleteToken(k1, 'tb'),
      await repo.tokens(k1),
      await repo.tokens(k2),
      // secrets
      await repo.secret(k1, 'openai'),
      await repo.secretNames(k1),
      await repo.setSecret(k1, 'openai', 'enc-1', 1),
      await repo.setSecret(k1, 'smtp', 'enc-s', 1),
      await repo.setSecret(k2, 'openai', 'enc-other', 1),
      await repo.secret(k1, 'openai'),
      await repo.setSecret(k1, 'openai', 'enc-2', 2),
      await repo.secret(k1, 'openai'),
      await repo.secretNames(k1),
      await repo.deleteSecret(k2, 'smtp'),
      await repo.deleteSecret(k1, 'openai'),
      await repo.secret(k1, 'openai'),
      await repo.secret(k2, 'openai'),
      await repo.secretNames(k1),
      await repo.secretNames(k2),
    ]);
    expect(answers.pg).toEqual(answers.sqlite);
    const s = answers.sqlite;
    const ids = (rows: unknown) => (rows as Array<{ id: string }>).map((r) => r.id);
    expect(s[0]).toEqual({ apiKeyId: 'k1', workspaceId: 'w1', grant: { kind: 'key' } });
    expect(s[2]).toBeUndefined();
    expect(s[12]).toBeUndefined();
    expect(ids(s[14])).toEqual(['k1', 'kc', 'KA', 'kb']);
    expect(ids(s[16])).toEqual(['k1', 'kc']);
    expect(ids(s[17])).toEqual(['KA', 'kb']);
    expect(ids(s[18])).toEqual(['kb']);
    expect(ids(s[19])).toEqual(['k1', 'kb']);
    expect(s.slice(21, 24)).toEqual([2, 1, 0]);
    expect(s.slice(24, 26)).toEqual([true, false]);
    expect(s[27]).toMatchObject({ name: 'K', disabled: false });
    expect((s[29] as { storedDigest?: string }).storedDigest).toBeUndefined();
    expect((s[33] as { storedDigest?: string }).storedDigest).toBe('digest-t1');
    expect((s[34] as { storedDigest?: string }).storedDigest).toBeUndefined();
    expect(s[36]).toBeUndefined();
    expect(ids(s[37])).toEqual(['TA', 'tb']);
    expect(ids(s[39])).toEqual(['TA', 'tb']);
    expect(ids(s[41])).toEqual(['TA']);
    expect(s[48]).toBe('enc-1');
    expect(s[50]).toBe('enc-2');
    expect([...(s[51] as Set<string>)].sort()).toEqual(['openai', 'smtp']);
    expect(s.slice(54, 58)).toEqual([undefined, 'enc-other', new Set(['smtp']), new Set(['openai'])]);
    // JSON comes back as written on PostgreSQL too, key and element order included
    const renamed = answers.pg[26] as { settings: unknown; allowedDomains: unknown };
    expect(JSON.stringify(renamed.settings)).toBe('{"b":1,"a":2}');
    expect(renamed.allowedDomains).toEqual(['z.test', 'a.test']);
  });
});
