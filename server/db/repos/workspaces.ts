// Workspaces: the accounts that own API keys. A workspace's own row is read and changed with its WorkspaceScope;
// what has no workspace yet (its creation, the owner's e-mail rules, credential checks, the operator's listing and
// the default workspace at first start) is looked up by the values it is known by. Written once for both engines
// (engine.ts; test/pg/workspaces.test.ts runs it on both and compares every answer).
import { asc, eq, sql } from 'drizzle-orm';
import type { Engine } from '../engine.ts';
import type { workspaces } from '../schema.ts';
import { workspaceScope, type WorkspaceScope } from '../scope.ts';

export type WorkspaceRow = typeof workspaces.$inferSelect;
/** The plan and production-key settings the operator changes (`hearth workspace settings`, the admin UI). */
export type WorkspaceSettingsRow = Pick<WorkspaceRow, 'plan' | 'selfServeProduction' | 'maxProductionKeys'>;

export function workspacesRepo(engine: Engine) {
  const { workspaces: w } = engine.t;
  // credential checks look the workspace up by id
  const byId = engine.prepare('workspaces.byId', (db) =>
    db
      .select()
      .from(w)
      .where(eq(w.id, sql.placeholder('id'))),
  );
  return {
    /** The workspace whose id credentials name (the service compares the digests), or undefined. */
    forCredentials: (workspaceId: string) => engine.read((db) => byId.one(db, { id: workspaceId })),
    /** The scope of a workspace row this repository answered. */
    scopeOf: (row: Pick<WorkspaceRow, 'id'>): WorkspaceScope => workspaceScope(row.id),

    /** The workspace as stored now. */
    find: (scope: WorkspaceScope) => engine.read((db) => byId.one(db, { id: scope.workspaceId })),

    /** Every workspace, oldest first (the operator's CLI). */
    list: () => engine.read(async (db) => db.select().from(w).orderBy(asc(w.createdAt), asc(w.id))),

    /** The default workspace made at first start. */
    findDefault: () => engine.read(async (db) => (await db.select().from(w).where(eq(w.isDefault, true)).limit(1))[0]),

    /**
     * The workspaces an e-mail address owns, oldest first.
     * Those of one createdAt by id on both engines (SQLite's index on (owner_email, created_at) would answer them in
     * insertion order, which PostgreSQL has no column to reproduce).
     */
    ownedBy: (ownerEmail: string) => engine.read(async (db) => db.select().from(w).where(eq(w.ownerEmail, ownerEmail)).orderBy(asc(w.createdAt), asc(w.id))),

    /** Adds it; answers its scope. */
    insert: async (row: typeof workspaces.$inferInsert): Promise<WorkspaceScope> => {
      await engine.write(async (db) => void (await db.insert(w).values(row)));
      return workspaceScope(row.id);
    },

    /** Changes its plan and production-key settings (the given ones). */
    updateSettings: (scope: WorkspaceScope, change: Partial<WorkspaceSettingsRow>) =>
      engine.write(async (db) => void (await db.update(w).set(change).where(eq(w.id, scope.workspaceId)))),

    /** Replaces its auth token (sealed and digested by the service); answers whether the workspace was there. */
    setAuthToken: (scope: WorkspaceScope, token: Pick<WorkspaceRow, 'authTokenEnc' | 'authTokenDigest'>) =>
      engine.write(async (db) => engine.changed(await db.update(w).set(token).where(eq(w.id, scope.workspaceId))) > 0),

    /** The owner opened a login link: every workspace of the address has its e-mail verified. */
    markEmailVerified: (ownerEmail: string) =>
      engine.write(async (db) => void (await db.update(w).set({ emailVerified: true }).where(eq(w.ownerEmail, ownerEmail)))),
  };
}

export type WorkspacesRepo = ReturnType<typeof workspacesRepo>;
