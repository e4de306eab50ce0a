import { and, asc, eq, gt, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { documentsAddInput, documentsGetInput, documentsUpdateInput } from '../../shared/schemas/access.ts';
import type { DocumentAccessType } from '../../shared/schemas/common.ts';
import type { AppContext } from '../context.ts';
import { transaction, type Db } from '../db/client.ts';
import { paginate } from '../db/pagination.ts';
import { preparedFor, preparedShapes } from '../db/prepared.ts';
import { documents } from '../db/schema.ts';
import { ApiError, invalid, notFound } from '../errors.ts';
import { deleteDocumentData } from './document-lifecycle.ts';
import { findFolder, insertFolder, ROOT } from './folders.ts';
import { ensureOrganizationIn, type Outcomes } from './organizations.ts';
import type { ApiKeyRow } from './types.ts';
import { readPageToken } from './paging.ts';
import { keyed } from './keyed.ts';

export type DocumentRow = typeof documents.$inferSelect;

const byId = preparedFor((db) =>
  db
    .select()
    .from(documents)
    .where(and(eq(documents.apiKeyId, sql.placeholder('apiKeyId')), eq(documents.organizationId, sql.placeholder('organizationId')), eq(documents.id, sql.placeholder('id'))))
    .prepare(),
);

export function findDocumentIn(tx: Db, apiKeyId: string, organizationId: string, documentId: string): DocumentRow | undefined {
  return byId(tx).get({ apiKeyId, organizationId, id: documentId });
}

function findDocuments(tx: Db, apiKeyId: string, organizationId: string, ids: string[]): Map<string, DocumentRow> {
  const found = new Map<string, DocumentRow>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = tx
      .select()
      .from(documents)
      .where(and(eq(documents.apiKeyId, apiKeyId), eq(documents.organizationId, organizationId), inArray(documents.id, ids.slice(i, i + 500))))
      .all();
    for (const row of rows) found.set(row.id, row);
  }
  return found;
}

export function insertDocumentIn(
  tx: Db,
  apiKey: ApiKeyRow,
  organizationId: string,
  input: { documentId: string; documentName?: string | undefined; accessType?: DocumentAccessType | undefined; metadata?: Record<string, unknown> | undefined; folderId?: string | null },
): DocumentRow {
  const now = Date.now();
  const row: DocumentRow = {
    apiKeyId: apiKey.id,
    organizationId,
    id: input.documentId,
    name: input.documentName ?? '',
    folderId: input.folderId ?? null,
    accessType: input.accessType ?? apiKey.settings.defaultDocumentAccessType,
    disabled: false,
    metadata: input.metadata ?? {},
    createdAt: now,
    updatedAt: now,
  };
  tx.insert(documents).values(row).run();
  return row;
}

export function describeDocument(row: DocumentRow) {
  return {
    id: row.id,
    documentName: row.name,
    disabled: row.disabled,
    accessType: row.accessType,
    folderId: row.folderId ?? ROOT,
    organizationId: row.organizationId,
    metadata: row.metadata,
    createdAt: row.createdAt,
    lastUpdated: row.updatedAt,
  };
}

/**
 * The v2 bulk document rule (reference §1.6): one failing item fails the whole call, nothing is written, and the
 * per-item breakdown is in `error.details`. The hosted service answers INTERNAL (500); Hearth answers the status
 * that names the cause (ALREADY_EXISTS / NOT_FOUND), since bad input never gets a 5xx here.
 */
function bulkFailure(status: 'ALREADY_EXISTS' | 'NOT_FOUND', message: string, details: unknown) {
  return new ApiError(status, message, details);
}

const unique = (ids: string[], field: string) => {
  if (new Set(ids).size !== ids.length) throw invalid(`${field} lists a document more than once.`);
};

/**
 * Resolves a target folder id: `root` or none is the top level; a missing folder is made when `create`.
 * `create: null` is for operations that have no `createFolder` flag (move), whose message must not suggest it.
 */
function targetFolder(tx: Db, apiKeyId: string, organizationId: string, folderId: string | undefined, create: boolean | null): string | null {
  if (!folderId || folderId === ROOT) return null;
  if (findFolder(tx, apiKeyId, organizationId, folderId)) return folderId;
  if (create === null) throw notFound(`Folder does not exist: ${folderId}.`);
  if (!create) throw notFound(`Folder does not exist: ${folderId}. Pass createFolder: true to create it.`);
  insertFolder(tx, apiKeyId, organizationId, null, { folderId });
  return folderId;
}

export function addDocuments(app: AppContext, apiKey: ApiKeyRow, input: z.output<typeof documentsAddInput>): Outcomes {
  const ids = input.documents.map((d) => d.documentId);
  unique(ids, 'documents');
  return transaction(app.db, (tx) => {
    ensureOrganizationIn(tx, apiKey.id, input.organizationId, input.createOrganization ?? false);
    const folderId = targetFolder(tx, apiKey.id, input.organizationId, input.folderId, input.createFolder ?? false);
    const existing = findDocuments(tx, apiKey.id, input.organizationId, ids);
    if (existing.size > 0) {
      const details = Object.fromEntries(
        ids.map((id) => [id, existing.has(id) ? { success: false, code: 'already-exists', message: 'Document already exists.' } : { success: false, code: 'aborted', message: 'Not added: another document of the request failed.' }]),
      );
      throw bulkFailure('ALREADY_EXISTS', 'Error adding document(s).', details);
    }
    const out: Outcomes = keyed();
    for (const doc of input.documents) {
      insertDocumentIn(tx, apiKey, input.organizationId, { ...doc, folderId });
      out[doc.documentId] = { success: true, id: doc.documentId, message: 'Added Successfully' };
    }
    return out;
  });
}

function requireAll(tx: Db, apiKeyId: string, organizationId: string, ids: string[], message: string): Map<string, DocumentRow> {
  const found = findDocuments(tx, apiKeyId, organizationId, ids);
  if (found.size < new Set(ids).size) {
    const details = Object.fromEntries(
      ids.map((id) => [id, found.has(id) ? { success: false, code: 'aborted', message: 'Not changed: another document of the request failed.' } : { success: false, code: 'not-found', message: 'Document does not exist' }]),
    );
    throw bulkFailure('NOT_FOUND', message, details);
  }
  return found;
}

export function updateDocuments(app: AppContext, apiKeyId: string, input: z.output<typeof documentsUpdateInput>): Outcomes {
  const ids = input.documents.map((d) => d.documentId);
  unique(ids, 'documents');
  return transaction(app.db, (tx) => {
    const found = requireAll(tx, apiKeyId, input.organizationId, ids, 'Error updating document(s).');
    const out: Outcomes = keyed();
    for (const doc of input.documents) {
      const current = found.get(doc.documentId) as DocumentRow;
      tx.update(documents)
        .set({
          name: doc.documentName ?? current.name,
          metadata: doc.metadata ? { ...current.metadata, ...doc.metadata } : current.metadata,
          updatedAt: Date.now(),
        })
        .where(and(eq(documents.apiKeyId, apiKeyId), eq(documents.organizationId, input.organizationId), eq(documents.id, doc.documentId)))
        .run();
      out[doc.documentId] = { success: true, id: doc.documentId, message: 'Updated Successfully' };
    }
    return out;
  });
}

export function deleteDocuments(app: AppContext, apiKeyId: string, organizationId: string, documentIds: string[]): Outcomes {
  const ids = [...new Set(documentIds)];
  const outcomes = transaction(app.db, (tx) => {
    requireAll(tx, apiKeyId, organizationId, ids, 'Error deleting document(s).');
    deleteDocumentData(tx, { apiKeyId, organizationId, documentIds: ids });
    for (let i = 0; i < ids.length; i += 500) {
      tx.delete(documents)
        .where(and(eq(documents.apiKeyId, apiKeyId), eq(documents.organizationId, organizationId), inArray(documents.id, ids.slice(i, i + 500))))
        .run();
    }
    return Object.fromEntries(ids.map((id) => [id, { success: true, id, message: 'Deleted Successfully' }]));
  });
  app.accessEvents.publish({ apiKeyId, organizationId, documentIds: ids });
  return outcomes;
}

export function moveDocuments(app: AppContext, apiKeyId: string, input: { organizationId: string; documentIds: string[]; folderId: string }) {
  const ids = [...new Set(input.documentIds)];
  transaction(app.db, (tx) => {
    const folderId = targetFolder(tx, apiKeyId, input.organizationId, input.folderId, null);
    requireAll(tx, apiKeyId, input.organizationId, ids, 'Error moving document(s).');
    for (let i = 0; i < ids.length; i += 500) {
      tx.update(documents)
        .set({ folderId, updatedAt: Date.now() })
        .where(and(eq(documents.apiKeyId, apiKeyId), eq(documents.organizationId, input.organizationId), inArray(documents.id, ids.slice(i, i + 500))))
        .run();
    }
  });
  // a folder of a stricter access type can shut users out
  app.accessEvents.publish({ apiKeyId, organizationId: input.organizationId, documentIds: ids });
}

/** Per-item updates of access type or disabled state (a missing document is `success: false`). */
export function setDocumentsField(
  app: AppContext,
  apiKeyId: string,
  organizationId: string,
  documentIds: string[],
  change: { accessType: DocumentAccessType } | { disabled: boolean },
  message: string,
): Outcomes {
  const outcomes = transaction(app.db, (tx) => {
    const out: Outcomes = keyed();
    for (const id of new Set(documentIds)) {
      const changed = tx
        .update(documents)
        .set({ ...change, updatedAt: Date.now() })
        .where(and(eq(documents.apiKeyId, apiKeyId), eq(documents.organizationId, organizationId), eq(documents.id, id)))
        .run();
      out[id] = changed.changes > 0 ? { success: true, id, message } : { success: false, id, message: 'Document does not exist' };
    }
    return out;
  });
  app.accessEvents.publish({ apiKeyId, organizationId, documentIds: [...new Set(documentIds)] });
  return outcomes;
}

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

/**
 * /v2/organizations/documents/get: by ids (at most 30, in request order; a missing one fails the call with the
 * per-id breakdown) or by organization / folder, keyset-paginated on the document id.
 */
export function getDocuments(app: AppContext, apiKeyId: string, input: z.output<typeof documentsGetInput>) {
  const db = app.db;
  const folderId = input.folderId === undefined ? undefined : input.folderId === ROOT ? null : input.folderId;
  if (input.documentIds) {
    const found = findDocuments(db, apiKeyId, input.organizationId, input.documentIds);
    const missing = input.documentIds.filter((id) => !found.has(id));
    if (missing.length > 0) {
      const details = input.documentIds.map((id) => {
        const row = found.get(id);
        return row ? describeDocument(row) : { id, success: false, message: 'Document does not exist', code: 'not-found' };
      });
      throw bulkFailure('NOT_FOUND', 'Error retrieving document(s).', details);
    }
    // with a folder the ids are narrowed to the documents in it (an existing document elsewhere is left out)
    const rows = input.documentIds.map((id) => found.get(id) as DocumentRow).filter((row) => folderId === undefined || row.folderId === folderId);
    return { items: rows.map(describeDocument), pageToken: null };
  }
  // No folder filter leaves `folderId` out of the scope (undefined keys are dropped when signing), so that no
  // folder id (not even '*') can stand for "every folder": a token stays bound to its own filter.
  const scope = { op: 'documents/get', apiKeyId, organizationId: input.organizationId, folderId };
  const cursor = readPageToken(app, scope, input.pageToken, ['string']);
  const shape = `${folderId === undefined ? 'any' : folderId === null ? 'root' : 'folder'}${cursor ? '+after' : ''}` as const;
  const rows = pageQuery(db, shape).all({ apiKeyId, organizationId: input.organizationId, folderId, after: cursor?.[0], limit: input.pageSize + 1 });
  const page = paginate(rows, input.pageSize, (r) => [r.id], app.pageTokens, scope);
  return { items: page.items.map(describeDocument), pageToken: page.pageToken };
}
