// Workspaces: the accounts that own API keys. A workspace's own row is read and changed with its WorkspaceScope;
// what has no workspace yet (its creation, the owner's e-mail rules, credential checks, the operator's listing and
// the default workspace at first start) is looked up by the values it is known by.
import { asc, eq, sql } from 'drizzle-orm';
import { preparedFor } from '../prepared.ts';
import { workspaces } from '../schema.ts';
import { workspaceScope, type WorkspaceScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

export type WorkspaceRow = typeof workspaces.$inferSelect;
/** The plan and production-key settings the operator changes (`hearth workspace settings`, the admin UI). */
export type WorkspaceSettingsRow = Pick<WorkspaceRow, 'plan' | 'selfServeProduction' | 'maxProductionKeys'>;

const byId = preparedFor((db) =>
  db
    .select()
    .from(workspaces)
    .where(eq(workspaces.id, sql.placeholder('id')))
    .prepare(),
);

export function workspacesRepo(engine: SqliteEngine) {
  return {
    /** The workspace whose id credentials name (the service compares the digests), or undefined. */
    forCredentials: (workspaceId: string) => engine.read((db) => byId(db).get({ id: workspaceId })),
    /** The scope of a workspace row this repository answered. */
    scopeOf: (row: Pick<WorkspaceRow, 'id'>): WorkspaceScope => workspaceScope(row.id),

    /** The workspace as stored now. */
    find: (scope: WorkspaceScope) => engine.read((db) => byId(db).get({ id: scope.workspaceId })),

    /** Every workspace, oldest first (the operator's CLI). */
    list: () => engine.read((db) => db.select().from(workspaces).orderBy(asc(workspaces.createdAt), asc(workspaces.id)).all()),

    /** The default workspace made at first start. */
    findDefault: () => engine.read((db) => db.select().from(workspaces).where(eq(workspaces.isDefault, true)).get()),

    /** The workspaces an e-mail address owns, oldest first. */
    ownedBy: (ownerEmail: string) =>
      engine.read((db) =>
        db.select().from(workspaces).where(eq(workspaces.ownerEmail, ownerEmail)).orderBy(asc(workspaces.createdAt), asc(workspaces.id)).all(),
      ),

    /** Adds it; answers its scope. */
    insert: async (row: typeof workspaces.$inferInsert): Promise<WorkspaceScope> => {
      await engine.write((db) => void db.insert(workspaces).values(row).run());
      return workspaceScope(row.id);
    },

    /** Changes its plan and production-key settings (the given ones). */
    updateSettings: (scope: WorkspaceScope, change: Partial<WorkspaceSettingsRow>) =>
      engine.write((db) => void db.update(workspaces).set(change).where(eq(workspaces.id, scope.workspaceId)).run()),

    /** Replaces its auth token (sealed and digested by the service); answers whether the workspace was there. */
    setAuthToken: (scope: WorkspaceScope, token: Pick<WorkspaceRow, 'authTokenEnc' | 'authTokenDigest'>) =>
      engine.write((db) => db.update(workspaces).set(token).where(eq(workspaces.id, scope.workspaceId)).run().changes > 0),

    /** The owner opened a login link: every workspace of the address has its e-mail verified. */
    markEmailVerified: (ownerEmail: string) =>
      engine.write((db) => void db.update(workspaces).set({ emailVerified: true }).where(eq(workspaces.ownerEmail, ownerEmail)).run()),
  };
}

export type WorkspacesRepo = ReturnType<typeof workspacesRepo>;
