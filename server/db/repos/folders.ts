// An organization's folder tree. `path` is the folder's chain of ids as one sortable string, so that a subtree is
// one range of the (api_key_id, organization_id, path) index.
import { and, asc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { preparedFor } from '../prepared.ts';
import { folders } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

export type FolderRow = typeof folders.$inferSelect;
/** What a folder's move or access change writes to one folder of the subtree. */
export type FolderChange = Partial<Pick<FolderRow, 'path' | 'ancestors' | 'accessType' | 'parentId' | 'ownAccessType' | 'inheritAccess' | 'updatedAt'>>;

/** Upper bound of a subtree's path range: encoded paths are ASCII, so this sorts after all of them. */
const PATH_END = '\uffff';
/** Ids are deleted in slices of this many: SQLite's bound-parameter limit stays far. */
const SLICE = 500;

const P = sql.placeholder;
/** The API key's organization, as placeholders `apiKeyId` and `organizationId`. */
const inOrganization = [eq(folders.apiKeyId, P('apiKeyId')), eq(folders.organizationId, P('organizationId'))];
const queries = preparedFor((db) => ({
  byId: db
    .select()
    .from(folders)
    .where(and(...inOrganization, eq(folders.id, P('id'))))
    .prepare(),
  subtree: db
    .select()
    .from(folders)
    .where(and(...inOrganization, gte(folders.path, P('from')), lt(folders.path, P('to'))))
    .orderBy(asc(folders.path))
    .prepare(),
}));

const own = (apiKeyId: string, organizationId: string, id: string) =>
  and(eq(folders.apiKeyId, apiKeyId), eq(folders.organizationId, organizationId), eq(folders.id, id));

/** The folder, on a given connection (the access facts read it inside their own step). */
export const findFolderOn = (db: Db, apiKeyId: string, organizationId: string, id: string): FolderRow | undefined =>
  queries(db).byId.get({ apiKeyId, organizationId, id });
const subtreeOn = (db: Db, apiKeyId: string, organizationId: string, path: string): FolderRow[] =>
  queries(db).subtree.all({ apiKeyId, organizationId, from: path, to: path + PATH_END });

/** The key's folders. */
export function foldersRepo(engine: SqliteEngine) {
  return {
    find: (scope: TenantScope, organizationId: string, id: string) => engine.read((db) => findFolderOn(db, scope.apiKeyId, organizationId, id)),

    /** The folder whose path is `path` and everything below it ('/' for the whole tree), parents before children. */
    subtree: (scope: TenantScope, organizationId: string, path: string) => engine.read((db) => subtreeOn(db, scope.apiKeyId, organizationId, path)),

    /**
     * Adds it unless the organization has a folder of that id (ON CONFLICT DO NOTHING: two units that both found it
     * absent cannot both insert it, issue 43); whether this call made it.
     */
    insert: (scope: TenantScope, row: Omit<FolderRow, 'apiKeyId'>) =>
      engine.write(
        (db) =>
          db
            .insert(folders)
            .values({ ...row, apiKeyId: scope.apiKeyId })
            .onConflictDoNothing()
            .run().changes > 0,
      ),

    /** Writes each change to its folder, in one step. */
    change: (scope: TenantScope, organizationId: string, changes: ReadonlyArray<{ id: string; set: FolderChange }>) =>
      engine.write((db) => {
        for (const { id, set } of changes)
          db.update(folders)
            .set(set)
            .where(own(scope.apiKeyId, organizationId, id))
            .run();
      }),

    rename: (scope: TenantScope, organizationId: string, id: string, name: string, now: number) =>
      engine.write((db) => {
        db.update(folders)
          .set({ name, updatedAt: now })
          .where(own(scope.apiKeyId, organizationId, id))
          .run();
      }),

    /** Deletes these folders (only the rows: their documents and memberships are the caller's to delete). */
    delete: (scope: TenantScope, organizationId: string, ids: readonly string[]) =>
      engine.write((db) => {
        for (let i = 0; i < ids.length; i += SLICE) {
          db.delete(folders)
            .where(and(eq(folders.apiKeyId, scope.apiKeyId), eq(folders.organizationId, organizationId), inArray(folders.id, ids.slice(i, i + SLICE))))
            .run();
        }
      }),
  };
}

export type FoldersRepo = ReturnType<typeof foldersRepo>;
