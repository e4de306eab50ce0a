// An organization's documents on PostgreSQL: the same repository as ../../repos/documents.ts (its type is the
// contract; test/pg/documents.test.ts runs both on the same calls and compares). The synchronous helper
// `findDocumentOn` (the access facts' read within one step) is the SQLite engine's own and has no counterpart here:
// the access repository's port will read the facts it needs.
import { and, asc, eq, gt, inArray, isNull, type SQL } from 'drizzle-orm';
import type { DocumentRow, DocumentsRepo } from '../../repos/documents.ts';
import type { PgEngine } from '../engine.ts';
import { pgTableFor } from '../schema.ts';

const { table: documents, c } = pgTableFor('documents');

/** Ids are looked up and written in slices of this many, as on SQLite (so that answers come in the same order). */
const SLICE = 500;

const inOrganization = (apiKeyId: string, organizationId: string) => and(eq(c.apiKeyId, apiKeyId), eq(c.organizationId, organizationId));
const own = (apiKeyId: string, organizationId: string, id: string) => and(inOrganization(apiKeyId, organizationId), eq(c.id, id));

export function documentsRepoPg(engine: PgEngine): DocumentsRepo {
  return {
    find: (scope, organizationId, id) =>
      engine.read(
        async (db) =>
          (
            await db
              .select()
              .from(documents)
              .where(own(scope.apiKeyId, organizationId, id))
              .limit(1)
          )[0] as DocumentRow | undefined,
      ),

    findMany: (scope, organizationId, ids) =>
      engine.read(async (db) => {
        const found = new Map<string, DocumentRow>();
        for (let i = 0; i < ids.length; i += SLICE) {
          const rows = (await db
            .select()
            .from(documents)
            .where(and(inOrganization(scope.apiKeyId, organizationId), inArray(c.id, ids.slice(i, i + SLICE))))
            // SQLite walks the primary key: rows by id
            .orderBy(asc(c.id))) as DocumentRow[];
          for (const row of rows) found.set(row.id, row);
        }
        return found;
      }),

    idsInFolders: (scope, organizationId, folderIds) =>
      engine.read(async (db) => {
        const ids: string[] = [];
        for (let i = 0; i < folderIds.length; i += SLICE) {
          const rows = (await db
            .select({ id: c.id })
            .from(documents)
            .where(and(inOrganization(scope.apiKeyId, organizationId), inArray(c.folderId, folderIds.slice(i, i + SLICE))))
            // SQLite walks the documents_folder index: by folder, then id
            .orderBy(asc(c.folderId), asc(c.id))) as Array<{ id: string }>;
          for (const row of rows) ids.push(row.id);
        }
        return ids;
      }),

    page: (scope, organizationId, options) =>
      engine.read(async (db) => {
        const { folderId, after } = options;
        const where: SQL[] = [eq(c.apiKeyId, scope.apiKeyId), eq(c.organizationId, organizationId)];
        if (folderId === null) where.push(isNull(c.folderId));
        else if (folderId !== undefined) where.push(eq(c.folderId, folderId));
        if (after !== undefined) where.push(gt(c.id, after));
        return (await db
          .select()
          .from(documents)
          .where(and(...where))
          .orderBy(asc(c.id))
          .limit(options.limit)) as DocumentRow[];
      }),

    // one statement per slice rather than one per row
    // at READ COMMITTED an insert that meets another unit's uncommitted document waits for its commit, then skips it
    insert: (scope, rows) =>
      engine.write(async (db) => {
        let made = 0;
        for (let i = 0; i < rows.length; i += SLICE) {
          const result = await db
            .insert(documents)
            .values(rows.slice(i, i + SLICE).map((row) => ({ ...row, apiKeyId: scope.apiKeyId })) as never)
            .onConflictDoNothing();
          made += result.rowCount ?? 0;
        }
        return made;
      }),

    change: (scope, organizationId, changes) =>
      engine.write(async (db) => {
        const existed: boolean[] = [];
        for (const { id, set } of changes) {
          const result = await db
            .update(documents)
            .set(set as never)
            .where(own(scope.apiKeyId, organizationId, id));
          existed.push((result.rowCount ?? 0) > 0);
        }
        return existed;
      }),

    changeAll: (scope, organizationId, ids, set) =>
      engine.write(async (db) => {
        for (let i = 0; i < ids.length; i += SLICE) {
          await db
            .update(documents)
            .set(set as never)
            .where(and(inOrganization(scope.apiKeyId, organizationId), inArray(c.id, ids.slice(i, i + SLICE))));
        }
      }),

    delete: (scope, organizationId, ids) =>
      engine.write(async (db) => {
        for (let i = 0; i < ids.length; i += SLICE) {
          await db.delete(documents).where(and(inOrganization(scope.apiKeyId, organizationId), inArray(c.id, ids.slice(i, i + SLICE))));
        }
      }),

    deleteInFolders: (scope, organizationId, folderIds) =>
      engine.write(async (db) => {
        for (let i = 0; i < folderIds.length; i += SLICE) {
          await db.delete(documents).where(and(inOrganization(scope.apiKeyId, organizationId), inArray(c.folderId, folderIds.slice(i, i + SLICE))));
        }
      }),
  };
}
