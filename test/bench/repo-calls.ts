// Repository calls on SQLite, timed in-process: the storage layer's own cost, with no HTTP and no response cache in
// front (the API's reads are answered from memory while nothing changes). Run from a checkout's root; compare two
// checkouts by running it in each, alternated (issue 43: the repositories written once against their SQLite
// originals):
//   node --import tsx test/bench/repo-calls.ts [rounds]          (this checkout)
//   cd ../other && node --import tsx /path/to/repo-calls.ts      (another one, same calls: the repositories' types)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = process.cwd();
const { openStorage, sqliteEngineOf } = (await import(
  pathToFileURL(join(root, 'server/db/repos/index.ts')).href
)) as typeof import('../../server/db/repos/index.ts');
const { tenantScope, workspaceScope } = (await import(pathToFileURL(join(root, 'server/db/scope.ts')).href)) as typeof import('../../server/db/scope.ts');

const dir = mkdtempSync(join(tmpdir(), 'hearth-repo-calls-'));
const storage = openStorage(dir);
const main = sqliteEngineOf(storage).main.sqlite;
main.exec("INSERT INTO workspaces (id, name, owner_id, owner_email, auth_token_enc, auth_token_digest) VALUES ('w', 'w', 'o', 'o@x.test', 'x', 'x')");
main.exec(
  "INSERT INTO api_keys (id, workspace_id, name, type, owner_email, allowed_domains, settings) VALUES ('k', 'w', 'k', 'testing', 'o@x.test', '[]', '{}')",
);
const scope = tenantScope('k', 'w');
await storage.organizations.insert(scope, { id: 'org', name: 'Org', disabled: false, metadata: {}, createdAt: 1, updatedAt: 1 });
const doc = (id: string) => ({
  id,
  organizationId: 'org',
  folderId: null,
  name: id,
  metadata: {},
  accessType: 'organizationPrivate' as const,
  disabled: false,
  createdAt: 1,
  updatedAt: 1,
});
await storage.documents.insert(
  scope,
  Array.from({ length: 500 }, (_, i) => doc(`d${String(i).padStart(4, '0')}`)),
);
const activity = (i: number) => ({
  organizationId: 'org',
  id: `a${i}`,
  documentId: `d${String(i % 500).padStart(4, '0')}`,
  featureType: 'comment' as const,
  actionType: 'added',
  actionUser: { userId: 'u1', name: 'U' },
  actionUserId: 'u1',
  targetEntityId: null,
  targetSubEntityId: null,
  changes: null,
  entityData: null,
  entityTargetData: null,
  displayMessageTemplate: 'x',
  displayMessageTemplateData: { a: 1 },
  actionIcon: null,
  resolver: false,
  timestamp: 1_000 + i,
});
for (let i = 0; i < 2000; i += 100) await storage.activities.upsert(scope, Array.from({ length: 100 }, (_, j) => activity(i + j)) as never);

let upserts = 2000;
const calls: Record<string, () => Promise<unknown>> = {
  'organizations.find': () => storage.organizations.find(scope, 'org'),
  'documents.find': () => storage.documents.find(scope, 'org', 'd0042'),
  'documents.page (50)': () => storage.documents.page(scope, 'org', { folderId: undefined, after: 'd0100', limit: 50 }),
  'workspaces.find': () => storage.workspaces.find(workspaceScope('w')),
  'activities.page (50)': () => storage.activities.page(scope, { organizationId: 'org', order: 'desc' }, null, 50),
  'activities.upsert (1)': () => storage.activities.upsert(scope, [activity(upserts++)] as never),
  'organizations.update': () => storage.organizations.update(scope, 'org', { updatedAt: upserts++ }),
};
// CALLS=name,name: only these
const only = process.env.CALLS?.split(',');
if (only) for (const name of Object.keys(calls)) if (!only.includes(name)) delete calls[name];
const rounds = Number(process.argv[2] ?? 5);
const n = 2000;
const results: Record<string, number[]> = {};
for (let round = 0; round <= rounds; round++) {
  for (const [name, call] of Object.entries(calls)) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await call();
    const us = Number(process.hrtime.bigint() - start) / 1000 / n;
    if (round > 0) (results[name] ??= []).push(us);
  }
}
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] as number;
console.log(JSON.stringify(Object.fromEntries(Object.entries(results).map(([k, v]) => [k, Number(median(v).toFixed(2))]))));
await storage.close();
rmSync(dir, { recursive: true, force: true });
