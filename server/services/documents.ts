import { currentTime } from '../clock.ts';
import type { z } from 'zod';
import type { documentsAddInput, documentsGetInput, documentsUpdateInput } from '../../shared/schemas/access.ts';
import type { DocumentAccessType } from '../../shared/schemas/common.ts';
import type { PageTokens } from '../db/pagination.ts';
import { paginate } from '../db/pagination.ts';
import type { DocumentRow } from '../db/repos/documents.ts';
import type { Storage } from '../db/repos/index.ts';
import type { TenantScope } from '../db/scope.ts';
import { ApiError, invalid, notFound } from '../errors.ts';
import type { AccessEvents } from './access-events.ts';
import { insertFolder, ROOT } from './folders.ts';
import { ensureOrganization, type Outcomes } from './organizations.ts';
import type { ApiKeyRow } from './types.ts';
import { readPageToken } from './paging.ts';
import { keyed } from './keyed.ts';

export type { DocumentRow };
type Deps = { storage: Storage };
/** What a new document takes from its key: the default access type. */
type KeySettings = Pick<ApiKeyRow, 'settings'>;

type NewDocument = {
  documentId: string;
  documentName?: string | undefined;
  accessType?: DocumentAccessType | undefined;
  metadata?: Record<string, unknown> | undefined;
  folderId?: string | null;
};

function newDocument(apiKey: KeySettings, organizationId: string, input: NewDocument, now: number): Omit<DocumentRow, 'apiKeyId'> {
  return {
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
}

/** The document, or undefined. */
export const findDocument = (deps: Deps, scope: TenantScope, organizationId: string, documentId: string) =>
  deps.storage.documents.find(scope, organizationId, documentId);

/** Adds a document (the caller checked it is not there). */
export async function insertDocument(deps: Deps, scope: TenantScope, apiKey: KeySettings, organizationId: string, input: NewDocument): Promise<DocumentRow> {
  const row = newDocument(apiKey, organizationId, input, currentTime());
  await deps.storage.documents.insert(scope, [row]);
  return { ...row, apiKeyId: scope.apiKeyId };
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
async function targetFolder(
  deps: Deps,
  scope: TenantScope,
  organizationId: string,
  folderId: string | undefined,
  create: boolean | null,
): Promise<string | null> {
  if (!folderId || folderId === ROOT) return null;
  // held, not only read: a delete of the folder meanwhile and this placement exclude each other (`folders.hold`)
  if (await deps.storage.folders.hold(scope, organizationId, folderId)) return folderId;
  if (create === null) throw notFound(`Folder does not exist: ${folderId}.`);
  if (!create) throw notFound(`Folder does not exist: ${folderId}. Pass createFolder: true to create it.`);
  // made by this unit, or by another since the hold found none: held as well (gone again: not there)
  if (!(await insertFolder(deps, scope, organizationId, null, { folderId })) && !(await deps.storage.folders.hold(scope, organizationId, folderId)))
    throw notFound(`Folder does not exist: ${folderId}.`);
  return folderId;
}

export async function addDocuments(deps: Deps, scope: TenantScope, apiKey: KeySettings, input: z.output<typeof documentsAddInput>): Promise<Outcomes> {
  const ids = input.documents.map((d) => d.documentId);
  unique(ids, 'documents');
  /** All or none: the documents that exist fail the call, and the others with them. */
  const exist = (existing: (id: string) => boolean) =>
    bulkFailure(
      'ALREADY_EXISTS',
      'Error adding document(s).',
      Object.fromEntries(
        ids.map((id) => [
          id,
          existing(id)
            ? { success: false, code: 'already-exists', message: 'Document already exists.' }
            : { success: false, code: 'aborted', message: 'Not added: another document of the request failed.' },
        ]),
      ),
    );
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the organization and folder made ON CONFLICT DO NOTHING,
  // an existing folder held (`folders.hold`), and the documents' insert skipping those another add made since they
  // were looked up: those fail the call as if found, and the unit's writes roll back with it
  return deps.storage.transaction(
    async () => {
      await ensureOrganization(deps, scope, input.organizationId, input.createOrganization ?? false);
      const folderId = await targetFolder(deps, scope, input.organizationId, input.folderId, input.createFolder ?? false);
      const existing = await deps.storage.documents.findMany(scope, input.organizationId, ids);
      if (existing.size > 0) throw exist((id) => existing.has(id));
      const rows = input.documents.map((doc) => newDocument(apiKey, input.organizationId, { ...doc, folderId }, currentTime()));
      const made = await deps.storage.documents.insert(scope, rows);
      if (made.size < rows.length) throw exist((id) => !made.has(id));
      const out: Outcomes = keyed();
      for (const doc of input.documents) out[doc.documentId] = { success: true, id: doc.documentId, message: 'Added Successfully' };
      return out;
    },
    { rowLevel: true },
  );
}

async function requireAll(
  deps: Deps,
  scope: TenantScope,
  organizationId: string,
  ids: string[],
  message: string,
  read: 'find' | 'hold' = 'find',
): Promise<Map<string, DocumentRow>> {
  const found = await (read === 'hold' ? deps.storage.documents.holdAll : deps.storage.documents.findMany)(scope, organizationId, ids);
  if (found.size < new Set(ids).size) {
    const details = Object.fromEntries(
      ids.map((id) => [
        id,
        found.has(id)
          ? { success: false, code: 'aborted', message: 'Not changed: another document of the request failed.' }
          : { success: false, code: 'not-found', message: 'Document does not exist' },
      ]),
    );
    throw bulkFailure('NOT_FOUND', message, details);
  }
  return found;
}

export async function updateDocuments(deps: Deps, scope: TenantScope, input: z.output<typeof documentsUpdateInput>): Promise<Outcomes> {
  const ids = input.documents.map((d) => d.documentId);
  unique(ids, 'documents');
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the documents' key locks, then the read, so that of two
  // updates at once the second merges its metadata into what the first wrote
  return deps.storage.transaction(
    async () => {
      await deps.storage.documents.lock(scope, input.organizationId, ids);
      const found = await requireAll(deps, scope, input.organizationId, ids, 'Error updating document(s).');
      const out: Outcomes = keyed();
      const changes = input.documents.map((doc) => {
        const current = found.get(doc.documentId) as DocumentRow;
        out[doc.documentId] = { success: true, id: doc.documentId, message: 'Updated Successfully' };
        return {
          id: doc.documentId,
          set: {
            name: doc.documentName ?? current.name,
            metadata: doc.metadata ? { ...current.metadata, ...doc.metadata } : current.metadata,
            updatedAt: currentTime(),
          },
        };
      });
      await deps.storage.documents.change(scope, input.organizationId, changes);
      return out;
    },
    { rowLevel: true },
  );
}

/** Deletes the documents and their data (db/tenancy.ts, DOCUMENT_DATA); all or none: a missing one fails the call. */
export async function deleteDocuments(
  deps: Deps & { accessEvents: AccessEvents },
  scope: TenantScope,
  organizationId: string,
  documentIds: string[],
): Promise<Outcomes> {
  const ids = [...new Set(documentIds)];
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the organization's document data fenced ("Fences"), then
  // the documents held (`documents.holdAll`: a unit that holds or changes one commits first, or waits for this one's
  // end and finds it gone), then their data deleted, each statement seeing what committed before it. SERIALIZABLE,
  // a delete was refused whenever a live room's flush bumped its row, and a room edited without pause made it fail
  const outcomes = await deps.storage.transaction(
    async () => {
      await requireAll(deps, scope, organizationId, ids, 'Error deleting document(s).', 'hold');
      await deps.storage.documentData.delete(scope, organizationId, ids);
      await deps.storage.documents.delete(scope, organizationId, ids);
      return Object.fromEntries(ids.map((id) => [id, { success: true, id, message: 'Deleted Successfully' }]));
    },
    { rowLevel: true, deletesDocumentsOf: { scope, organizationId } },
  );
  deps.accessEvents.publish({ apiKeyId: scope.apiKeyId, organizationId, documentIds: ids });
  return outcomes;
}

export async function moveDocuments(
  deps: Deps & { accessEvents: AccessEvents },
  scope: TenantScope,
  input: { organizationId: string; documentIds: string[]; folderId: string },
) {
  const ids = [...new Set(input.documentIds)];
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the target folder held (`folders.hold`: a delete of it
  // meanwhile and this move exclude each other), and a document deleted between the read and the update runs the
  // unit again (`documents.changeAll`), which then answers it not found
  await deps.storage.transaction(
    async () => {
      const folderId = await targetFolder(deps, scope, input.organizationId, input.folderId, null);
      await requireAll(deps, scope, input.organizationId, ids, 'Error moving document(s).');
      await deps.storage.documents.changeAll(scope, input.organizationId, ids, { folderId, updatedAt: currentTime() });
    },
    { rowLevel: true },
  );
  // a folder of a stricter access type can shut users out
  deps.accessEvents.publish({ apiKeyId: scope.apiKeyId, organizationId: input.organizationId, documentIds: ids });
}

/** Per-item updates of access type or disabled state (a missing document is `success: false`). */
export async function setDocumentsField(
  deps: Deps & { accessEvents: AccessEvents },
  scope: TenantScope,
  organizationId: string,
  documentIds: string[],
  change: { accessType: DocumentAccessType } | { disabled: boolean },
  message: string,
): Promise<Outcomes> {
  const ids = [...new Set(documentIds)];
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): one update of the field per document, its count the answer
  const outcomes = await deps.storage.transaction(
    async () => {
      const changed = await deps.storage.documents.change(
        scope,
        organizationId,
        ids.map((id) => ({ id, set: { ...change, updatedAt: currentTime() } })),
      );
      const out: Outcomes = keyed();
      ids.forEach((id, i) => {
        out[id] = changed[i] ? { success: true, id, message } : { success: false, id, message: 'Document does not exist' };
      });
      return out;
    },
    { rowLevel: true },
  );
  deps.accessEvents.publish({ apiKeyId: scope.apiKeyId, organizationId, documentIds: ids });
  return outcomes;
}

/**
 * /v2/organizations/documents/get: by ids (at most 30, in request order; a missing one fails the call with the
 * per-id breakdown) or by organization / folder, keyset-paginated on the document id.
 */
export async function getDocuments(deps: Deps & { pageTokens: PageTokens }, scope: TenantScope, input: z.output<typeof documentsGetInput>) {
  const folderId = input.folderId === undefined ? undefined : input.folderId === ROOT ? null : input.folderId;
  if (input.documentIds) {
    const found = await deps.storage.documents.findMany(scope, input.organizationId, input.documentIds);
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
  // No folder filter leaves `folderId` out of the query (undefined keys are dropped when signing), so that no
  // folder id (not even '*') can stand for "every folder": a token stays bound to its own filter.
  const query = { op: 'documents/get', apiKeyId: scope.apiKeyId, organizationId: input.organizationId, folderId };
  const cursor = readPageToken(deps, query, input.pageToken, ['string']);
  const rows = await deps.storage.documents.page(scope, input.organizationId, {
    folderId,
    after: cursor?.[0] as string | undefined,
    limit: input.pageSize + 1,
  });
  const page = paginate(rows, input.pageSize, (r) => [r.id], deps.pageTokens, query);
  return { items: page.items.map(describeDocument), pageToken: page.pageToken };
}
