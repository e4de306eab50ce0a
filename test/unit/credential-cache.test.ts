// The cache of verified credentials (server/http/credentials.ts) must never answer from what was true before a
// write: a reset, deleted or changed credential, or a changed key, counts on the very next call, whether this
// server changed it or another process (the CLI) did. Writes of this server elsewhere (a notification, a
// comment) keep the verified pairs.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../server/config.ts';
import { tableChanges } from '../../server/db/change-stamp.ts';
import { VerifiedCredentials } from '../../server/http/credentials.ts';
import { DATABASE_FILE, openApp } from '../../server/index.ts';
import { ensureDefaultCredentials } from '../../server/services/bootstrap.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { apiKeyHeaders, call, dataOf, errorOf, startTestServer, type TestServer } from '../helpers/server.ts';
import { sqliteEngineOf } from '../../server/db/repos/index.ts';

/** The tables a verified API key or workspace is read from (storage's keys.credentialChanges watches these). */
/** workspace/authtoken/reset's data: the key's new auth token. */
interface AuthTokenAnswer {
  authToken: { token: string };
}
/** workspace/apikeyconfig/get's data, as far as the tests read it. */
interface ApiKeyConfig {
  enablePrivateComments: boolean;
}

const CREDENTIAL_TABLES = ['workspaces', 'api_keys', 'auth_tokens'];

/**
 * A cache over `tables` whose verification counts its calls: `ask` asks for the pair and returns how many times it
 * was verified so far; `after` runs a write first.
 */
function counted(sqlite: Database.Database, tables: readonly string[]) {
  const cache = new VerifiedCredentials<number>(tableChanges(sqlite, [], tables));
  let verified = 0;
  const verify = async () => ++verified;
  const ask = async () => (await cache.get('key', 'token', verify), verified);
  return {
    ask,
    after(write: string, ...params: unknown[]) {
      sqlite.prepare(write).run(...params);
      return ask();
    },
  };
}

describe('VerifiedCredentials', () => {
  const open = () => {
    const sqlite = new Database(':memory:');
    sqlite.exec('CREATE TABLE t (v INTEGER); CREATE TABLE elsewhere (v INTEGER)');
    return sqlite;
  };

  it('verifies a pair once while nothing is written (answering it synchronously then), and again after a write to its tables', async () => {
    const sqlite = open();
    const cache = new VerifiedCredentials<{ id: string }>(tableChanges(sqlite, [], ['t']));
    let verified = 0;
    const verify = async () => {
      verified++;
      return { id: 'key' };
    };
    const first = cache.get('key', 'token', verify);
    expect(first).toBeInstanceOf(Promise);
    const value = await first;
    // known now: the very object, without a promise
    expect(cache.get('key', 'token', verify)).toBe(value);
    expect(verified).toBe(1);
    expect(await cache.get('key', 'other-token', verify)).toEqual({ id: 'key' });
    expect(verified).toBe(2);
    sqlite.prepare('INSERT INTO t VALUES (1)').run();
    await cache.get('key', 'token', verify);
    expect(verified).toBe(3);
  });

  it('drops the pairs on an insert, update or delete of its tables, and keeps them on a write elsewhere', async () => {
    const sqlite = open();
    const pairs = counted(sqlite, ['t']);
    await pairs.ask();
    expect(await pairs.after('INSERT INTO t VALUES (1)')).toBe(2);
    expect(await pairs.after('UPDATE t SET v = 2')).toBe(3);
    expect(await pairs.after('DELETE FROM t')).toBe(4);
    expect(await pairs.after('INSERT INTO elsewhere VALUES (1)')).toBe(4);
  });

  it('keeps nothing verified while a write to its tables landed (the value may be from before it)', async () => {
    const sqlite = open();
    const cache = new VerifiedCredentials<number>(tableChanges(sqlite, [], ['t']));
    let verified = 0;
    await cache.get('key', 'token', async () => {
      verified++;
      sqlite.prepare('INSERT INTO t VALUES (1)').run();
      return verified;
    });
    expect(cache.size).toBe(0);
    await cache.get('key', 'token', async () => ++verified);
    expect(verified).toBe(2);
    expect(cache.size).toBe(1);
  });

  it('counts a write that was rolled back (it only drops the pairs once more than needed)', async () => {
    const sqlite = open();
    const pairs = counted(sqlite, ['t']);
    await pairs.ask();
    expect(() =>
      sqlite.transaction(() => {
        sqlite.prepare('INSERT INTO t VALUES (1)').run();
        throw new Error('rolled back');
      })(),
    ).toThrow('rolled back');
    expect(await pairs.ask()).toBe(2);
  });

  it("watches the real credential tables, and their rows deleted by a workspace's cascade", async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'hearth-credential-tables-'));
    const app = await openApp(resolveConfig({ dataDir: dir, logLevel: 'silent' }));
    try {
      await ensureDefaultCredentials(app);
      const sqlite = sqliteEngineOf(app.storage).main.sqlite;
      const pairs = counted(sqlite, CREDENTIAL_TABLES);
      const workspace = (sqlite.prepare('SELECT id FROM workspaces LIMIT 1').get() as { id: string }).id;
      const tokens = sqlite.prepare('SELECT count(*) AS n FROM auth_tokens').get() as { n: number };
      expect(tokens.n).toBeGreaterThan(0);
      await pairs.ask();
      // a user: a write elsewhere keeps the pair
      expect(
        await pairs.after(
          "INSERT INTO users (api_key_id, id, internal_id, metadata, created_at, updated_at) SELECT id, 'u', 'u-internal', '{}', 0, 0 FROM api_keys LIMIT 1",
        ),
      ).toBe(1);
      expect(await pairs.after("UPDATE api_keys SET name = name || '!'")).toBe(2);
      expect(await pairs.after('UPDATE auth_tokens SET created_at = created_at')).toBe(3);
      // the workspace deleted, its keys and tokens with it (cascade)
      expect(await pairs.after('DELETE FROM workspaces WHERE id = ?', workspace)).toBe(4);
      expect((sqlite.prepare('SELECT count(*) AS n FROM auth_tokens').get() as { n: number }).n).toBe(0);
    } finally {
      await app.storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps no refusal: bad credentials are checked on every call', async () => {
    const cache = new VerifiedCredentials<string>(tableChanges(open(), [], ['t']));
    let attempts = 0;
    const refuse = async (): Promise<string> => {
      attempts++;
      throw new Error('Invalid auth token');
    };
    await expect(cache.get('key', 'wrong', refuse)).rejects.toThrow('Invalid auth token');
    await expect(cache.get('key', 'wrong', refuse)).rejects.toThrow('Invalid auth token');
    expect(attempts).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('sees a commit of another connection to the same file', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'hearth-credential-cache-'));
    const file = join(dir, 'db.sqlite');
    const server = new Database(file);
    server.pragma('journal_mode = WAL');
    server.exec('CREATE TABLE t (v INTEGER)');
    const cli = new Database(file);
    try {
      const cache = new VerifiedCredentials<number>(tableChanges(server, [], ['t']));
      let verified = 0;
      const verify = async () => ++verified;
      await cache.get('key', 'token', verify);
      await cache.get('key', 'token', verify);
      expect(verified).toBe(1);
      cli.prepare('INSERT INTO t VALUES (1)').run();
      // another process's commit counts from the next event-loop turn: every call arriving after it sees it
      await new Promise((resolve) => setImmediate(resolve));
      await cache.get('key', 'token', verify);
      expect(verified).toBe(2);
    } finally {
      cli.close();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('hands out frozen values, so that no call can change what the next one gets', async () => {
    const cache = new VerifiedCredentials<{ settings: { flag: boolean } }>(tableChanges(open(), [], ['t']));
    const row = await cache.get('key', 'token', async () => ({ settings: { flag: false } }));
    expect(Object.isFrozen(row)).toBe(true);
    expect(Object.isFrozen(row.settings)).toBe(true);
  });
});

describe('credentials over HTTP, with the cache in front', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  const configGet = (headers: Record<string, string>) => call(t.url, '/v2/workspace/apikeyconfig/get', {}, headers);

  it('refuses a reset auth token on the very next call and accepts the new one', async () => {
    const w = await createWorkspace(t);
    expect((await configGet(w.headersK)).status).toBe(200);
    expect((await configGet(w.headersK)).status).toBe(200);
    const reset = await call(t.url, '/v2/workspace/authtoken/reset', { apiKey: w.apiKey }, w.headersW);
    expect(reset.status).toBe(200);
    const refused = await configGet(w.headersK);
    expect([refused.status, errorOf(refused).status]).toEqual([403, 'PERMISSION_DENIED']);
    const renewed = await configGet(apiKeyHeaders({ apiKey: w.apiKey, authToken: dataOf<AuthTokenAnswer>(reset).authToken.token }));
    expect(renewed.status).toBe(200);
  });

  it('answers with the key as it is now after its settings change', async () => {
    const w = await createWorkspace(t);
    expect(dataOf<ApiKeyConfig>(await configGet(w.headersK)).enablePrivateComments).toBe(false);
    const updated = await call(t.url, '/v2/workspace/apikeyconfig/update', { enablePrivateComments: true }, w.headersK);
    expect(updated.status).toBe(200);
    expect(dataOf<ApiKeyConfig>(await configGet(w.headersK)).enablePrivateComments).toBe(true);
  });

  it('refuses credentials another process deleted or changed, on the very next call', async () => {
    const w = await createWorkspace(t);
    expect((await configGet(w.headersK)).status).toBe(200);
    expect((await call(t.url, '/v2/workspace/apikeys/get', {}, w.headersW)).status).toBe(200);
    // another connection to the server's database file, as the CLI opens it
    const cli = new Database(join(t.dataDir, DATABASE_FILE));
    try {
      cli.prepare('DELETE FROM auth_tokens WHERE api_key_id = ?').run(w.apiKey);
      const refused = await configGet(w.headersK);
      expect([refused.status, errorOf(refused).status]).toEqual([403, 'PERMISSION_DENIED']);
      cli.prepare("UPDATE workspaces SET auth_token_digest = 'replaced' WHERE id = ?").run(w.workspaceId);
      const refusedW = await call(t.url, '/v2/workspace/apikeys/get', {}, w.headersW);
      expect([refusedW.status, errorOf(refusedW).status]).toEqual([403, 'PERMISSION_DENIED']);
    } finally {
      cli.close();
    }
  });
});
