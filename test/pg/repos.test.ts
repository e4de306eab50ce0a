// A repository ported to PostgreSQL answers as its SQLite original does: the same calls, in the same order, on
// both engines, and every answer compared (the port's contract is the SQLite repository's type; this proves its
// behaviour). Each ported repository adds its script here.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgEngine, type PgEngine } from '../../server/db/pg/engine.ts';
import { organizationsRepoPg } from '../../server/db/pg/repos/organizations.ts';
import { openStorage, type Storage } from '../../server/db/repos/index.ts';
import type { OrganizationsRepo } from '../../server/db/repos/organizations.ts';
import { tenantScope } from '../../server/db/scope.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/external-servers.ts';

let server: ThrowawayPostgres;
let engine: PgEngine;
let storage: Storage;
const dir = mkdtempSync(join(tmpdir(), 'hearth-repos-'));

/** Two workspaces with one API key each, the same rows on both engines (the repositories' scopes point at them). */
const WORKSPACE_ROWS = [
  ['w1', 'k1'],
  ['w2', 'k2'],
];

beforeAll(async () => {
  server = await startPostgres();
  engine = createPgEngine({ url: server.url });
  await engine.migrate();
  storage = openStorage(dir);
  storage.close();
  const sqlite = new Database(join(dir, 'hearth.db'));
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    for (const [workspace, key] of WORKSPACE_ROWS) {
      const w = [workspace, 'W', 'owner', 'o@x.test', 'enc', `digest-${workspace}`];
      const k = [key, workspace, 'K', 'testing', 'o@x.test', '[]', '{}'];
      sqlite.prepare('INSERT INTO workspaces (id, name, owner_id, owner_email, auth_token_enc, auth_token_digest) VALUES (?, ?, ?, ?, ?, ?)').run(...w);
      sqlite.prepare('INSERT INTO api_keys (id, workspace_id, name, type, owner_email, allowed_domains, settings) VALUES (?, ?, ?, ?, ?, ?, ?)').run(...k);
      await client.query('INSERT INTO workspaces (id, name, owner_id, owner_email, auth_token_enc, auth_token_digest) VALUES ($1, $2, $3, $4, $5, $6)', w);
      await client.query('INSERT INTO api_keys (id, workspace_id, name, type, owner_email, allowed_domains, settings) VALUES ($1, $2, $3, $4, $5, $6, $7)', k);
    }
  } finally {
    sqlite.close();
    await client.end();
  }
  storage = openStorage(dir);
});

afterAll(async () => {
  storage?.close();
  await engine?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `script` on both engines' repositories and returns what each step answered, per engine. */
async function onBoth<R>(repos: (engines: { sqlite: Storage; pg: PgEngine }) => [R, R], script: (repo: R) => Promise<unknown[]>) {
  const [onSqlite, onPg] = repos({ sqlite: storage, pg: engine });
  return { sqlite: await script(onSqlite), pg: await script(onPg) };
}

describe('organizations', () => {
  it('answers every call as on SQLite: find, insert, update, pages, tenant isolation, delete', async () => {
    const k1 = tenantScope('k1', 'w1');
    const k2 = tenantScope('k2', 'w2');
    const row = (id: string, name: string) => ({
      id,
      name,
      disabled: false,
      metadata: { team: name, nested: { z: 1, a: [true, null] } },
      createdAt: 1_700_000_000_000,
      updatedAt: 1_700_000_000_000,
    });
    const answers = await onBoth<OrganizationsRepo>(
      ({ sqlite, pg }) => [sqlite.organizations, organizationsRepoPg(pg)],
      async (repo) => [
        await repo.find(k1, 'acme'),
        await repo.insert(k1, row('acme', 'Acme')),
        await repo.insert(k1, row('Zeta', 'Zeta')),
        await repo.insert(k1, row('beta', 'Beta')),
        await repo.insert(k2, row('acme', 'Other tenant')),
        await repo.find(k1, 'acme'),
        await repo.update(k1, 'acme', { name: 'Acme Inc', metadata: { b: 2, a: 1 }, updatedAt: 1_700_000_000_001 }),
        await repo.update(k1, 'missing', { name: 'x' }),
        await repo.find(k1, 'acme'),
        // code point order: 'Zeta' before 'acme' before 'beta'
        await repo.page(k1, { limit: 10 }),
        await repo.page(k1, { limit: 1, after: 'Zeta' }),
        await repo.page(k1, { limit: 10, ids: ['beta', 'acme', 'nope'] }),
        await repo.page(k2, { limit: 10 }),
        await repo.delete(k1, 'acme'),
        await repo.delete(k1, 'acme'),
        await repo.find(k1, 'acme'),
        await repo.find(k2, 'acme'),
      ],
    );
    expect(answers.pg).toEqual(answers.sqlite);
    // and each answer is what it should be, not only the same on both
    expect(answers.sqlite[0]).toBeUndefined();
    expect((answers.sqlite[9] as Array<{ id: string }>).map((o) => o.id)).toEqual(['Zeta', 'acme', 'beta']);
    expect(answers.sqlite.slice(13, 15)).toEqual([true, false]);
    // JSON comes back as it was written, key order included
    expect(JSON.stringify((answers.pg[8] as { metadata: unknown }).metadata)).toBe('{"b":2,"a":1}');
  });
});
