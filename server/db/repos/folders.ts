// An organization's folder tree. `path` is the folder's chain of ids as one sortable string, so that a subtree is
// one range of the (api_key_id, organization_id, path) index; PostgreSQL's database sorts text by code point (the
// engine refuses others), so the range and the sort are SQLite's BINARY ones on both engines.
import { and, asc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { preparedFor } from '../prepared.ts';
import { folders } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { Engine } from '../engine.ts';

export type FolderRow = typeof folders.$inferSelect;
/** What a folder's move or access change writes to one folder of the subtree. */
export type FolderChange = Partial<Pick<FolderRow, 'path' | 'ancestors' | 'accessType' | 'parentId' | 'ownAccessType' | 'inheritAccess' | 'updatedAt'>>;

/** Upper bound of a subtree's path range: encoded paths are ASCII, so this sorts after all of them. */
const PATH_END = '\uffff';
/** Ids are deleted in slices of this many: SQLite's bound-parameter limit (and PostgreSQL's, 65,535) stays far. */
const SLICE = 500;

const P = sql.placeholder;

/**
 * The folder, on a given SQLite connection: the access facts (access.ts, still written per engine) read it inside
 * their own synchronous step. PostgreSQL's access repository reads the facts it needs itself.
 */
const byIdOn = preparedFor((db) =>
  db
    .select()
    .from(folders)
    .where(and(eq(folders.apiKeyId, P('apiKeyId')), eq(folders.organizationId, P('organizationId')), eq(folders.id, P('id'))))
    .prepare(),
);
export const findFolderOn = (db: Db, apiKeyId: string, organizationId: string, id: string): FolderRow | undefined =>
  byIdOn(db).get({ apiKeyId, organizationId, id });

/** A folder's chain as access walks it: its ancestors (the root aside), then the folder itself; none for no folder. */
export const folderChain = (folder: FolderRow | null | undefined): string[] => (folder ? [...folder.ancestors.filter((a) => a !== 'root'), folder.id] : []);

/** The key's folders, written once for both engines (engine.ts; test/pg/folders.test.ts runs it on both). */
export function foldersRepo(engine: Engine) {
  const { folders: f } = engine.t;
  /** The API key's organization, as placeholders `apiKeyId` and `organizationId`. */
  const inOrganization = [eq(f.apiKeyId, P('apiKeyId')), eq(f.organizationId, P('organizationId'))];
  const byId = engine.prepare('folders.byId', (db) =>
    db
      .select()
      .from(f)
      .where(and(...inOrganization, eq(f.id, P('id')))),
  );
  const subtree = engine.prepare('folders.subtree', (db) =>
    db
      .select()
      .from(f)
      .where(and(...inOrganization, gte(f.path, P('from')), lt(f.path, P('to'))))
      .orderBy(asc(f.path)),
  );
  const own = (apiKeyId: string, organizationId: string, id: string) => and(eq(f.apiKeyId, apiKeyId), eq(f.organizationId, organizationId), eq(f.id, id));
  return {
    find: (scope: TenantScope, organizationId: string, id: string) => engine.read((db) => byId.one(db, { apiKeyId: scope.apiKeyId, organizationId, id })),

    /** The folder whose path is `path` and everything below it ('/' for the whole tree), parents before children. */
    subtree: (scope: TenantScope, organizationId: string, path: string) =>
      engine.read((db) => subtree.all(db, { apiKeyId: scope.apiKeyId, organizationId, from: path, to: path + PATH_END })),

    /**
     * Adds it unless the organization has a folder of that id (ON CONFLICT DO NOTHING: two units that both found it
     * absent cannot both insert it, issue 43; on PostgreSQL at READ COMMITTED the second waits for the first's
     * commit, then does nothing); whether this call made it.
     */
    insert: (scope: TenantScope, row: Omit<FolderRow, 'apiKeyId'>) =>
      engine.write(
        async (db) =>
          engine.changed(
            await db
              .insert(f)
              .values({ ...row, apiKeyId: scope.apiKeyId })
              .onConflictDoNothing(),
          ) > 0,
      ),

    /**
     * The folder, read by an update that changes nothing (`updated_at = updated_at`): the folder a new one is added
     * under, or one a membership is granted on. The caller's unit and a move, access change or delete of its subtree,
     * which rewrite or delete this row, exclude each other (docs/storage.md, "Invariants"). On PostgreSQL, at READ
     * COMMITTED, the caller waits for such a unit's commit and reads the row as it left it (moved, or gone); a move or
     * access change (SERIALIZABLE) that read the subtree before the caller's commit then meets this row changed, is
     * refused, and runs again, finding what the caller added; a delete (READ COMMITTED) holds the row itself
     * (`holdSubtree`), so it waits for the caller's commit and then sees what the caller added.
     */
    hold: (scope: TenantScope, organizationId: string, id: string) =>
      engine.write(
        async (db) =>
          (
            await db
              .update(f)
              .set({ updatedAt: sql`${f.updatedAt}` })
              .where(own(scope.apiKeyId, organizationId, id))
              .returning()
          )[0],
      ),

    /**
     * The folder whose path is `path` and everything below it, each held as `hold` holds one, parents before children.
     * At READ COMMITTED a folder added or moved under it by a unit that committed while this statement waited is not
     * among them: a folder's delete holds its subtree again until two passes find the same folders (services/folders.ts).
     */
    holdSubtree: (scope: TenantScope, organizationId: string, path: string) =>
      engine.write(async (db) => {
        const rows = await db
          .update(f)
          .set({ updatedAt: sql`${f.updatedAt}` })
          .where(and(eq(f.apiKeyId, scope.apiKeyId), eq(f.organizationId, organizationId), gte(f.path, path), lt(f.path, path + PATH_END)))
          .returning();
        return rows.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      }),

    /** Writes each change to its folder, in one unit of work. */
    change: (scope: TenantScope, organizationId: string, changes: ReadonlyArray<{ id: string; set: FolderChange }>) =>
      engine.write(async (db) => {
        for (const { id, set } of changes)
          await db
            .update(f)
            .set(set)
            .where(own(scope.apiKeyId, organizationId, id));
      }),

    rename: (scope: TenantScope, organizationId: string, id: string, name: string, now: number) =>
      engine.write(async (db) => {
        await db
          .update(f)
          .set({ name, updatedAt: now })
          .where(own(scope.apiKeyId, organizationId, id));
      }),

    /** Deletes these folders (only the rows: their documents and memberships are the caller's to delete). */
    delete: (scope: TenantScope, organizationId: string, ids: readonly string[]) =>
      engine.write(async (db) => {
        for (let i = 0; i < ids.length; i += SLICE)
          await db.delete(f).where(and(eq(f.apiKeyId, scope.apiKeyId), eq(f.organizationId, organizationId), inArray(f.id, ids.slice(i, i + SLICE))));
      }),
  };
}

export type FoldersRepo = ReturnType<typeof foldersRepo>;
