// An organization's documents (the rows: what belongs to a document is db/repos/document-data.ts's).
import { and, asc, eq, gt, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { preparedFor, preparedShapes } from '../prepared.ts';
import { documents } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

export type DocumentRow = typeof documents.$inferSelect;
/** What documents/update, the access updates and a move change. */
export type DocumentChange = Partial<Pick<DocumentRow, 'name' | 'metadata' | 'accessType' | 'disabled' | 'folderId' | 'updatedAt'>>;

/** Ids are looked up and written in slices of this many: SQLite's bound-parameter limit stays far. */
const SLICE = 500;

const byId = preparedFor((db) =>
  db
    .select()
    .from(documents)
    .where(
      and(
        eq(documents.apiKeyId, sql.placeholder('apiKeyId')),
        eq(documents.organizationId, sql.placeholder('organizationId')),
        eq(documents.id, sql.placeholder('id')),
      ),
    )
    .prepare(),
);

/** A page of an organization's documents by id: in any folder, at the root or in one folder; from the start or after an id. */
const pageQuery = preparedShapes((db, shape: `${'any' | 'root' | 'folder'}${'' | '+after'}`) => {
  const conditions: SQL[] = [eq(documents.apiKeyId, sql.placeholder('apiKeyId')), eq(documents.organizationId, sql.placeholder('organizationId'))];
  if (shape.startsWith('root')) conditions.push(isNull(documents.folderId));
  if (shape.startsWith('folder')) conditions.push(eq(documents.folderId, sql.placeholder('folderId')));
  if (shape.endsWith('+after')) conditions.push(gt(documents.id, sql.placeholder('after')));
  return db
    .select()
    .from(documents)
    .where(and(...conditions))
    .orderBy(asc(documents.id))
    .limit(sql.placeholder('limit'))
    .prepare();
});

const inOrganization = (apiKeyId: string, organizationId: string) => and(eq(documents.apiKeyId, apiKeyId), eq(documents.organizationId, organizationId));
const own = (apiKeyId: string, organizationId: string, id: string) => and(inOrganization(apiKeyId, organizationId), eq(documents.id, id));

/** The document, on a given connection (the access facts read it inside their own step). */
export const findDocumentOn = (db: Db, apiKeyId: string, organizationId: string, id: string): DocumentRow | undefined =>
  byId(db).get({ apiKeyId, organizationId, id });

function findManyOn(db: Db, apiKeyId: string, organizationId: string, ids: readonly string[]): Map<string, DocumentRow> {
  const found = new Map<string, DocumentRow>();
  for (let i = 0; i < ids.length; i += SLICE) {
    const rows = db
      .select()
      .from(documents)
      .where(and(inOrganization(apiKeyId, organizationId), inArray(documents.id, ids.slice(i, i + SLICE))))
      .all();
    for (const row of rows) found.set(row.id, row);
  }
  return found;
}

/** The key's documents. */
export function documentsRepo(engine: SqliteEngine) {
  return {
    find: (scope: TenantScope, organizationId: string, id: string) => engine.read((db) => findDocumentOn(db, scope.apiKeyId, organizationId, id)),

    /** The ones of these ids that exist, by id. */
    findMany: (scope: TenantScope, organizationId: string, ids: readonly string[]) => engine.read((db) => findManyOn(db, scope.apiKeyId, organizationId, ids)),

    /** The ids of the documents in these folders. */
    idsInFolders: (scope: TenantScope, organizationId: string, folderIds: readonly string[]) =>
      engine.read((db) => {
        const ids: string[] = [];
        for (let i = 0; i < folderIds.length; i += SLICE) {
          const rows = db
            .select({ id: documents.id })
            .from(documents)
            .where(and(inOrganization(scope.apiKeyId, organizationId), inArray(documents.folderId, folderIds.slice(i, i + SLICE))))
            .all();
          for (const row of rows) ids.push(row.id);
        }
        return ids;
      }),

    /** A page by id: in any folder (`folderId` undefined), at the top (null) or in one folder; after `after`. */
    page: (scope: TenantScope, organizationId: string, options: { folderId: string | null | undefined; after: string | undefined; limit: number }) =>
      engine.read((db) => {
        const { folderId, after } = options;
        const shape = `${folderId === undefined ? 'any' : folderId === null ? 'root' : 'folder'}${after !== undefined ? '+after' : ''}` as const;
        return pageQuery(db, shape).all({ apiKeyId: scope.apiKeyId, organizationId, folderId, after, limit: options.limit });
      }),

    /**
     * Adds them, in one step, but for any the key has already (ON CONFLICT DO NOTHING: two units that both found a
     * document absent cannot both insert it, issue 43); how many this call made.
     */
    insert: (scope: TenantScope, rows: ReadonlyArray<Omit<DocumentRow, 'apiKeyId'>>) =>
      engine.write((db) => {
        let made = 0;
        for (const row of rows)
          made += db
            .insert(documents)
            .values({ ...row, apiKeyId: scope.apiKeyId })
            .onConflictDoNothing()
            .run().changes;
        return made;
      }),

    /** Writes each change to its document, in one step; whether each existed, in order. */
    change: (scope: TenantScope, organizationId: string, changes: ReadonlyArray<{ id: string; set: DocumentChange }>) =>
      engine.write((db) =>
        changes.map(
          ({ id, set }) =>
            db
              .update(documents)
              .set(set)
              .where(own(scope.apiKeyId, organizationId, id))
              .run().changes > 0,
        ),
      ),

    /** The same change to all these documents. */
    changeAll: (scope: TenantScope, organizationId: string, ids: readonly string[], set: DocumentChange) =>
      engine.write((db) => {
        for (let i = 0; i < ids.length; i += SLICE) {
          db.update(documents)
            .set(set)
            .where(and(inOrganization(scope.apiKeyId, organizationId), inArray(documents.id, ids.slice(i, i + SLICE))))
            .run();
        }
      }),

    /** Deletes these rows (their data is db/repos/document-data.ts's to delete, in the same unit of work). */
    delete: (scope: TenantScope, organizationId: string, ids: readonly string[]) =>
      engine.write((db) => {
        for (let i = 0; i < ids.length; i += SLICE) {
          db.delete(documents)
            .where(and(inOrganization(scope.apiKeyId, organizationId), inArray(documents.id, ids.slice(i, i + SLICE))))
            .run();
        }
      }),

    /** Deletes the rows of the documents in these folders. */
    deleteInFolders: (scope: TenantScope, organizationId: string, folderIds: readonly string[]) =>
      engine.write((db) => {
        for (let i = 0; i < folderIds.length; i += SLICE) {
          db.delete(documents)
            .where(and(inOrganization(scope.apiKeyId, organizationId), inArray(documents.folderId, folderIds.slice(i, i + SLICE))))
            .run();
        }
      }),
  };
}

export type DocumentsRepo = ReturnType<typeof documentsRepo>;
