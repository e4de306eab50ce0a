/**
 * Testing mode's reset: the data of every API key (or of one workspace's keys) deleted, the way the admin UI's
 * reset deletes one key's (admin/transfer.ts, without its demo seed): organizations and everything in them, users,
 * groups, notifications, comments, collaborative documents, agents, workflow definitions, webhook endpoints and
 * pending events, recordings' files. Workspaces, API keys, their auth tokens and settings stay, so the credentials
 * a suite was given keep working. Loaded Yjs documents are dropped once the deletion commits and their clients
 * closed with 1012, which the stock y-websocket provider retries (crdt/store.ts `forget`).
 */
import { forgetRooms } from '../services/crdt.ts';
import { clock } from '../clock.ts';
import type { AppContext } from '../context.ts';
import type { TenantScope } from '../db/scope.ts';

export interface ResetResult {
  workspaces: number;
  apiKeys: number;
  /** Rows removed, by table, summed over the keys. */
  removed: Record<string, number>;
  /** Whether the fixtures Hearth was started with were loaded again. */
  fixturesReloaded: boolean;
}

/** Deletes the data of one key (its deliveries cancelled first: the worker answers over its channel, outside a unit of work). */
async function wipeKey(app: AppContext, scope: TenantScope, removed: Record<string, number>) {
  for (const id of await app.storage.keyTransfer.endpointIds(scope)) await app.webhooks.cancelTarget(scope.apiKeyId, id);
  const wiped = await app.storage.transaction(async () => {
    const result = await app.storage.keyTransfer.wipe(scope);
    app.storage.afterCommit(() => forgetRooms(app, scope, result.rooms));
    return result;
  });
  await app.storage.attachments.remove(wiped.storageKeys);
  for (const [table, n] of Object.entries(wiped.removed)) removed[table] = (removed[table] ?? 0) + n;
}

/**
 * Clears the data of every workspace, or of `workspaceId`'s only (undefined when there is no such workspace). A
 * whole reset also empties the captured outbound traffic and sets Hearth's clock back to the real time; a
 * workspace's reset leaves both (other workspaces' tests may be reading them).
 */
export async function resetData(app: AppContext, workspaceId?: string): Promise<ResetResult | undefined> {
  const all = await app.storage.workspaces.list();
  const workspaces = workspaceId === undefined ? all : all.filter((w) => w.id === workspaceId);
  if (workspaceId !== undefined && workspaces.length === 0) return undefined;
  const removed: Record<string, number> = {};
  let apiKeys = 0;
  for (const workspace of workspaces) {
    for (const key of await app.storage.keys.listInWorkspace(app.storage.workspaces.scopeOf(workspace))) {
      await wipeKey(app, app.storage.keys.scopeOf({ id: key.id, workspaceId: workspace.id }), removed);
      apiKeys++;
    }
  }
  if (workspaceId === undefined) {
    if (app.testing) await app.testing.clear(app.mail);
    clock.setOffset(0);
  }
  // Started with fixtures: they are loaded again (into the workspaces and keys the reset kept), the whole file or
  // the one workspace's part, so that each test starts from them.
  const fixtures = app.testing?.fixtures;
  let reloaded = false;
  if (fixtures) {
    const part = workspaceId === undefined ? fixtures : { ...fixtures, workspaces: fixtures.workspaces.filter((w) => w.id === workspaceId) };
    if (part.workspaces.length > 0) {
      const { loadFixtures } = await import('./fixtures.ts');
      await loadFixtures(app, part, { intoExisting: true });
      reloaded = true;
    }
  }
  return { workspaces: workspaces.length, apiKeys, removed, fixturesReloaded: reloaded };
}
