// Workspaces on PostgreSQL: the same repository as ../../repos/workspaces.ts (its type is the contract,
// test/pg/workspaces.test.ts runs both on the same calls and compares).
import { asc, eq } from 'drizzle-orm';
import type { WorkspaceRow, WorkspacesRepo } from '../../repos/workspaces.ts';
import { workspaceScope } from '../../scope.ts';
import type { PgDb, PgEngine } from '../engine.ts';
import { pgTableFor } from '../schema.ts';

const { table: workspaces, c } = pgTableFor('workspaces');

const byId = async (db: PgDb, id: string) => (await db.select().from(workspaces).where(eq(c.id, id)).limit(1))[0] as WorkspaceRow | undefined;

export function workspacesRepoPg(engine: PgEngine): WorkspacesRepo {
  return {
    forCredentials: (workspaceId) => engine.read((db) => byId(db, workspaceId)),
    scopeOf: (row) => workspaceScope(row.id),

    find: (scope) => engine.read((db) => byId(db, scope.workspaceId)),

    list: () => engine.read(async (db) => (await db.select().from(workspaces).orderBy(asc(c.createdAt), asc(c.id))) as WorkspaceRow[]),

    findDefault: () => engine.read(async (db) => (await db.select().from(workspaces).where(eq(c.isDefault, true)).limit(1))[0] as WorkspaceRow | undefined),

    // workspaces of one createdAt: SQLite answers them in the order they were inserted (rowid order in its
    // workspaces_owner_email index), which PostgreSQL has no column to reproduce; the lowest id first here
    ownedBy: (ownerEmail) =>
      engine.read(
        async (db) => (await db.select().from(workspaces).where(eq(c.ownerEmail, ownerEmail)).orderBy(asc(c.createdAt), asc(c.id))) as WorkspaceRow[],
      ),

    insert: async (row) => {
      await engine.write(async (db) => {
        await db.insert(workspaces).values(row as never);
      });
      return workspaceScope(row.id);
    },

    updateSettings: (scope, change) =>
      engine.write(async (db) => {
        await db
          .update(workspaces)
          .set(change as never)
          .where(eq(c.id, scope.workspaceId));
        return undefined;
      }),

    setAuthToken: (scope, token) =>
      engine.write(async (db) => {
        const updated = await db
          .update(workspaces)
          .set(token as never)
          .where(eq(c.id, scope.workspaceId))
          .returning({ id: c.id });
        return updated.length > 0;
      }),

    markEmailVerified: (ownerEmail) =>
      engine.write(async (db) => {
        await db
          .update(workspaces)
          .set({ emailVerified: true } as never)
          .where(eq(c.ownerEmail, ownerEmail));
        return undefined;
      }),
  };
}
