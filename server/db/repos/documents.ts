// An organization's documents (the rows: what belongs to a document is db/repos/document-data.ts's). Written once for
// both engines (engine.ts; test/pg/documents.test.ts runs it on both and compares every answer).
import { and, asc, eq, gt, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../client.ts';
import type { Engine, Prepared } from '../engine.ts';
import { preparedFor } from '../prepared.ts';
import { documents } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import { ConcurrentChange } from '../pg/engine.ts';

export type DocumentRow = typeof documents.$inferSelect;
/** What documents/update, the access updates and a move change. */
export type DocumentChange = Partial<Pick<DocumentRow, 'name' | 'metadata' | 'accessType' | 'disabled' | 'folderId' | 'updatedAt'>>;

/** Ids are looked up and written in slices of this many: SQLite's bound-parameter limit (and PostgreSQL's) stays far. */
const SLICE = 500;
const P = sql.placeholder;

/**
 * The document, on a given SQLite connection: the access facts (access.ts, still written per engine) read it inside
 * their own synchronous step. PostgreSQL's access repository reads the facts it needs itself.
 */
const byIdOn = preparedFor((db) =>
  db
    .select()
    .from(documents)
    .where(and(eq(documents.apiKeyId, P('apiKeyId')), eq(documents.organizationId, P('organizationId')), eq(documents.id, P('id'))))
    .prepare(),
);
export const findDocumentOn = (db: Db, apiKeyId: string, organizationId: string, id: string): DocumentRow | undefined =>
  byIdOn(db).get({ apiKeyId, organizationId, id });

/** The shapes of a page: in any folder, at the root or in one folder; from the start or after an id. */
const PAGE_SHAPES = ['any', 'root', 'folder'].flatMap((where) => [where, `${where}+after`]);

/** The key's documents. */
export function documentsRepo(engine: Engine) {
  const { documents: d } = engine.t;
  const inOrganization = (apiKeyId: string, organizationId: string) => and(eq(d.apiKeyId, apiKeyId), eq(d.organizationId, organizationId));
  const own = (apiKeyId: string, organizationId: string, id: string) => and(inOrganization(apiKeyId, organizationId), eq(d.id, id));
  const byId = engine.prepare('documents.byId', (db) =>
    db
      .select()
      .from(d)
      .where(and(eq(d.apiKeyId, P('apiKeyId')), eq(d.organizationId, P('organizationId')), eq(d.id, P('id')))),
  );
  const pages = new Map<string, Prepared<DocumentRow>>(
    PAGE_SHAPES.map((shape) => {
      const conditions: SQL[] = [eq(d.apiKeyId, P('apiKeyId')), eq(d.organizationId, P('organizationId'))];
      if (shape.startsWith('root')) conditions.push(isNull(d.folderId));
      if (shape.startsWith('folder')) conditions.push(eq(d.folderId, P('folderId')));
      if (shape.endsWith('+after')) conditions.push(gt(d.id, P('after')));
      const query = engine.prepare(`documents.page.${shape}`, (db) =>
        db
          .select()
          .from(d)
          .where(and(...conditions))
          .orderBy(asc(d.id))
          .limit(P('limit')),
      );
      return [shape, query] as const;
    }),
  );
  return {
    find: (scope: TenantScope, organizationId: string, id: string) => engine.read((db) => byId.one(db, { apiKeyId: scope.apiKeyId, organizationId, id })),

    /**
     * Takes the documents' key locks for the rest of the unit of work (engine.lockRows; nothing on SQLite, whose write
     * unit holds the database): an update that merges into what it read waits for another's commit, then reads what
     * it left.
     */
    lock: (scope: TenantScope, organizationId: string, ids: readonly string[]) =>
      engine.write((db) => engine.lockRows(db, ['document', scope.apiKeyId, organizationId], ids)),

    /**
     * The document, read by an update that changes nothing (`updated_at = updated_at`), as `folders.hold`: a membership
     * granted on it and a delete of it (which holds it too: `holdAll`) exclude each other, the grant waiting for the
     * delete's commit and finding it gone, or the delete waiting for the grant's and then deleting what it added.
     */
    hold: (scope: TenantScope, organizationId: string, id: string) =>
      engine.write(
        async (db) =>
          (
            await db
              .update(d)
              .set({ updatedAt: sql`${d.updatedAt}` })
              .where(own(scope.apiKeyId, organizationId, id))
              .returning()
          )[0],
      ),

    /**
     * The ones of these ids that exist, by id, each held as `hold` holds one (a document's delete at READ COMMITTED: the
     * units that hold one of them, or change it, commit first and their rows are seen, and those after wait for the
     * delete's end and find it gone).
     */
    holdAll: (scope: TenantScope, organizationId: string, ids: readonly string[]) =>
      engine.write(async (db) => {
        const rows: DocumentRow[] = [];
        for (let i = 0; i < ids.length; i += SLICE)
          rows.push(
            ...(await db
              .update(d)
              .set({ updatedAt: sql`${d.updatedAt}` })
              .where(and(inOrganization(scope.apiKeyId, organizationId), inArray(d.id, ids.slice(i, i + SLICE))))
              .returning()),
          );
        // by id, as findMany answers (an update's rows come in no order of its own)
        return new Map(rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((row) => [row.id, row]));
      }),

    /** The ones of these ids that exist, by id. */
    findMany: (scope: TenantScope, organizationId: string, ids: readonly string[]) =>
      engine.read(async (db) => {
        const found = new Map<string, DocumentRow>();
        for (let i = 0; i < ids.length; i += SLICE) {
          const rows = await db
            .select()
            .from(d)
            .where(and(inOrganization(scope.apiKeyId, organizationId), inArray(d.id, ids.slice(i, i + SLICE))))
            .orderBy(asc(d.id));
          for (const row of rows) found.set(row.id, row);
        }
        return found;
      }),

    /** The ids of the documents in these folders, by folder then id. */
    idsInFolders: (scope: TenantScope, organizationId: string, folderIds: readonly string[]) =>
      engine.read(async (db) => {
        const ids: string[] = [];
        for (let i = 0; i < folderIds.length; i += SLICE) {
          const rows = await db
            .select({ id: d.id })
            .from(d)
            .where(and(inOrganization(scope.apiKeyId, organizationId), inArray(d.folderId, folderIds.slice(i, i + SLICE))))
            .orderBy(asc(d.folderId), asc(d.id));
          for (const row of rows) ids.push(row.id);
        }
        return ids;
      }),

    /** A page by id: in any folder (`folderId` undefined), at the top (null) or in one folder; after `after`. */
    page: (scope: TenantScope, organizationId: string, options: { folderId: string | null | undefined; after: string | undefined; limit: number }) =>
      engine.read((db) => {
        const { folderId, after } = options;
        const shape = `${folderId === undefined ? 'any' : folderId === null ? 'root' : 'folder'}${after !== undefined ? '+after' : ''}`;
        return (pages.get(shape) as Prepared<DocumentRow>).all(db, { apiKeyId: scope.apiKeyId, organizationId, folderId, after, limit: options.limit });
      }),

    /**
     * Adds them, one statement per slice, but for any the key has already (ON CONFLICT DO NOTHING: two units that both
     * found a document absent cannot both insert it, issue 43; on PostgreSQL at READ COMMITTED the second waits for
     * the first's commit, then skips it); the ids of those this call made.
     */
    insert: (scope: TenantScope, rows: ReadonlyArray<Omit<DocumentRow, 'apiKeyId'>>) =>
      engine.write(async (db) => {
        const made = new Set<string>();
        for (let i = 0; i < rows.length; i += SLICE)
          for (const { id } of await db
            .insert(d)
            .values(rows.slice(i, i + SLICE).map((row) => ({ ...row, apiKeyId: scope.apiKeyId })))
            .onConflictDoNothing()
            .returning({ id: d.id }))
            made.add(id);
        return made;
      }),

    /** Writes each change to its document, in one unit of work; whether each existed, in order. */
    change: (scope: TenantScope, organizationId: string, changes: ReadonlyArray<{ id: string; set: DocumentChange }>) =>
      engine.write(async (db) => {
        const existed: boolean[] = [];
        for (const { id, set } of changes)
          existed.push(
            engine.changed(
              await db
                .update(d)
                .set(set)
                .where(own(scope.apiKeyId, organizationId, id)),
            ) > 0,
          );
        return existed;
      }),

    /**
     * The same change to all these documents, which the unit of work found (distinct ids). One gone since (a delete
     * committed between the read and this update, at READ COMMITTED) throws ConcurrentChange: the unit runs again and
     * finds it missing, as when the delete came first (SQLite's one writer never meets it).
     */
    changeAll: (scope: TenantScope, organizationId: string, ids: readonly string[], set: DocumentChange) =>
      engine.write(async (db) => {
        let changed = 0;
        for (let i = 0; i < ids.length; i += SLICE)
          changed += engine.changed(
            await db
              .update(d)
              .set(set)
              .where(and(inOrganization(scope.apiKeyId, organizationId), inArray(d.id, ids.slice(i, i + SLICE)))),
          );
        if (changed < ids.length) throw new ConcurrentChange('a document this unit of work found');
      }),

    /** Deletes these rows (their data is db/repos/document-data.ts's to delete, in the same unit of work). */
    delete: (scope: TenantScope, organizationId: string, ids: readonly string[]) =>
      engine.write(async (db) => {
        for (let i = 0; i < ids.length; i += SLICE)
          await db.delete(d).where(and(inOrganization(scope.apiKeyId, organizationId), inArray(d.id, ids.slice(i, i + SLICE))));
      }),
  };
}

export type DocumentsRepo = ReturnType<typeof documentsRepo>;
