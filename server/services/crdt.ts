import { and, asc, eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import { DEFAULT_CONTENT_KEY, type crdtWriteInput } from '../../shared/schemas/crdt.ts';
import type { AppContext } from '../context.ts';
import { checkData, INFER_KEY, INFER_TYPE, writeContent } from '../crdt/content.ts';
import { crdtItem } from '../crdt/events.ts';
import type { DocKey } from '../crdt/store.ts';
import { crdtDocuments } from '../db/schema.ts';
import { alreadyExists, invalid, notFound } from '../errors.ts';
import { recordActivityIn } from './activities.ts';
import { findOrganizationIn } from './organizations.ts';
import { keyed } from './keyed.ts';

type WriteInput = z.output<typeof crdtWriteInput>;
/** reference §2.22's words, byte for byte. */
const NOT_FOUND_MESSAGE = 'No CRDT data found for this editor ID.';
const REST = { server: true as const, by: 'rest-api' };

/** /v2/crdt/add: creates the editor's document with the given content; ALREADY_EXISTS when there is one. */
export function addCrdt(app: AppContext, apiKeyId: string, input: WriteInput) {
  checkData(input.type, input.data);
  const key: DocKey = { apiKeyId, organizationId: input.organizationId, documentId: input.documentId, editorId: input.editorId };
  if (app.crdt.find(key)) throw alreadyExists('CRDT data already exists for this editor ID.');
  const contentKey = input.contentKey ?? DEFAULT_CONTENT_KEY;
  app.crdt.create(key, input.type, contentKey);
  const entry = app.crdt.load(key);
  if (!entry) throw new Error('the new document could not be loaded');
  app.crdt.transact(entry, REST, (doc) => writeContent(doc, input.type, contentKey, input.data));
  crdtActivity(app, key, 'crdt.add', 'added the editor content');
}

/**
 * The `crdt` activity of a REST change (the API key itself is the acting user: REST calls name no user).
 * Activity logs belong to organizations: CRDT data written for an organization Hearth does not know has none.
 */
function crdtActivity(app: AppContext, key: DocKey, actionType: string, what: string) {
  if (!findOrganizationIn(app.db, key.apiKeyId, key.organizationId)) return;
  recordActivityIn(app.db, {
    apiKeyId: key.apiKeyId,
    organizationId: key.organizationId,
    documentId: key.documentId,
    featureType: 'crdt',
    actionType,
    actionUser: { userId: REST.by },
    targetEntityId: key.editorId,
    displayMessageTemplate: `{{actionUser}} ${what}`,
    displayMessageTemplateData: { actionUser: 'The API' },
  });
}

/**
 * /v2/crdt/update: replaces the content by applying CRDT operations to the live document (connected clients
 * get an ordinary update); NOT_FOUND when the editor has no data. The stored type must match.
 */
export function updateCrdt(app: AppContext, apiKeyId: string, input: WriteInput) {
  checkData(input.type, input.data);
  const key: DocKey = { apiKeyId, organizationId: input.organizationId, documentId: input.documentId, editorId: input.editorId };
  const entry = app.crdt.load(key);
  if (!entry) throw notFound(NOT_FOUND_MESSAGE);
  // A room opened over the websocket without its type or key, where no client has written yet: the caller says them.
  if (entry.infer) {
    app.crdt.settle(entry, entry.infer & INFER_TYPE ? input.type : entry.type, entry.infer & INFER_KEY ? (input.contentKey ?? entry.contentKey) : entry.contentKey);
  }
  if (entry.type !== input.type) throw invalid(`type must be ${entry.type}: this editor's data is of type ${entry.type}.`);
  // the content lives under the key it was created with: another one would write where nobody reads
  if (input.contentKey !== undefined && input.contentKey !== entry.contentKey) {
    throw invalid(`contentKey must be ${entry.contentKey}: this editor's data is stored under ${entry.contentKey}.`);
  }
  app.crdt.transact(entry, REST, (doc) => writeContent(doc, entry.type, entry.contentKey, input.data));
  crdtActivity(app, key, 'crdt.update', 'updated the editor content');
}

/** /v2/crdt/get: `[{ data, id, lastUpdate, lastUpdatedBy, sessionId }]` for one editor or every editor of the document. */
export function getCrdt(app: AppContext, apiKeyId: string, input: { organizationId: string; documentId: string; editorId?: string | undefined }) {
  const conditions = [eq(crdtDocuments.apiKeyId, apiKeyId), eq(crdtDocuments.organizationId, input.organizationId), eq(crdtDocuments.documentId, input.documentId)];
  if (input.editorId) conditions.push(eq(crdtDocuments.editorId, input.editorId));
  const rows = app.db.select({ editorId: crdtDocuments.editorId }).from(crdtDocuments).where(and(...conditions)).orderBy(asc(crdtDocuments.editorId)).all();
  return rows.map(({ editorId }) => {
    const item = crdtItem(app.crdt, { apiKeyId, organizationId: input.organizationId, documentId: input.documentId, editorId });
    if (!item) throw new Error('a listed document vanished while reading');
    return item;
  });
}

/** /v2/crdt/delete: the given editors' data (or every editor's) of a document. */
export function deleteCrdt(app: AppContext, apiKeyId: string, input: { organizationId: string; documentId: string; editorIds?: string[] | undefined }) {
  const conditions = [eq(crdtDocuments.apiKeyId, apiKeyId), eq(crdtDocuments.organizationId, input.organizationId), eq(crdtDocuments.documentId, input.documentId)];
  if (input.editorIds) conditions.push(inArray(crdtDocuments.editorId, input.editorIds));
  const editors = app.db.select({ editorId: crdtDocuments.editorId }).from(crdtDocuments).where(and(...conditions)).all().map((r) => r.editorId);
  for (const editorId of editors) app.crdt.remove({ apiKeyId, organizationId: input.organizationId, documentId: input.documentId, editorId });
  const out: Record<string, { success: boolean; message: string }> = keyed();
  for (const editorId of editors) out[editorId] = { success: true, message: 'CRDT data deleted.' };
  for (const editorId of input.editorIds ?? []) if (!out[editorId]) out[editorId] = { success: false, message: NOT_FOUND_MESSAGE };
  return out;
}
