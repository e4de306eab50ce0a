// An organization's folder tree on PostgreSQL: the same repository as ../../repos/folders.ts (its type is the
// contract; test/pg/folders.test.ts runs both on the same calls and compares). A subtree is one range of `path`
// (the folders_path index): the engine requires a database in code point order, so the range and the sort are
// SQLite's BINARY ones. The synchronous helper `findFolderOn` (the access facts' read within one step) is the
// SQLite engine's own and has no counterpart here: the access repository's port will read the facts it needs.
import { and, asc, eq, gte, inArray, lt } from 'drizzle-orm';
import type { FolderRow, FoldersRepo } from '../../repos/folders.ts';
import type { PgEngine } from '../engine.ts';
import { pgTableFor } from '../schema.ts';

const { table: folders, c } = pgTableFor('folders');

/** Upper bound of a subtree's path range: encoded paths are ASCII, so this sorts after all of them (as on SQLite). */
const PATH_END = '\uffff';
/** Ids are deleted in slices of this many, as on SQLite (PostgreSQL's parameter limit, 65,535, stays far too). */
const SLICE = 500;

const inOrganization = (apiKeyId: string, organizationId: string) => and(eq(c.apiKeyId, apiKeyId), eq(c.organizationId, organizationId));
const own = (apiKeyId: string, organizationId: string, id: string) => and(inOrganization(apiKeyId, organizationId), eq(c.id, id));

export function foldersRepoPg(engine: PgEngine): FoldersRepo {
  return {
    find: (scope, organizationId, id) =>
      engine.read(
        async (db) =>
          (
            await db
              .select()
              .from(folders)
              .where(own(scope.apiKeyId, organizationId, id))
              .limit(1)
          )[0] as FolderRow | undefined,
      ),

    subtree: (scope, organizationId, path) =>
      engine.read(
        async (db) =>
          (await db
            .select()
            .from(folders)
            .where(and(inOrganization(scope.apiKeyId, organizationId), gte(c.path, path), lt(c.path, path + PATH_END)))
            .orderBy(asc(c.path))) as FolderRow[],
      ),

    // a unit at READ COMMITTED that found it absent waits here for the other creator's commit, then does nothing
    insert: (scope, row) =>
      engine.write(
        async (db) =>
          ((
            await db
              .insert(folders)
              .values({ ...row, apiKeyId: scope.apiKeyId } as never)
              .onConflictDoNothing()
          ).rowCount ?? 0) > 0,
      ),

    change: (scope, organizationId, changes) =>
      engine.write(async (db) => {
        for (const { id, set } of changes)
          await db
            .update(folders)
            .set(set as never)
            .where(own(scope.apiKeyId, organizationId, id));
      }),

    rename: (scope, organizationId, id, name, now) =>
      engine.write(async (db) => {
        await db
          .update(folders)
          .set({ name, updatedAt: now } as never)
          .where(own(scope.apiKeyId, organizationId, id));
      }),

    delete: (scope, organizationId, ids) =>
      engine.write(async (db) => {
        for (let i = 0; i < ids.length; i += SLICE) {
          await db.delete(folders).where(and(inOrganization(scope.apiKeyId, organizationId), inArray(c.id, ids.slice(i, i + SLICE))));
        }
      }),
  };
}
