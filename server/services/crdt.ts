import type { z } from 'zod';
import { DEFAULT_CONTENT_KEY, type crdtWriteInput } from '../../shared/schemas/crdt.ts';
import { checkData, INFER_KEY, INFER_TYPE, writeContent } from '../crdt/content.ts';
import { crdtItem } from '../crdt/events.ts';
import type { CrdtStore } from '../crdt/store.ts';
import type { Storage } from '../db/repos/index.ts';
import type { StoredRoom } from '../db/repos/key-transfer.ts';
import type { TenantScope } from '../db/scope.ts';
import { alreadyExists, invalid, notFound } from '../errors.ts';
import { recordActivity } from './activities.ts';
import { keyed } from './keyed.ts';

type Deps = { storage: Storage; crdt: CrdtStore };

type WriteInput = z.output<typeof crdtWriteInput>;
/** reference §2.22's words, byte for byte. */
const NOT_FOUND_MESSAGE = 'No CRDT data found for this editor ID.';
const REST = { server: true as const, by: 'rest-api' };

/** /v2/crdt/add: creates the editor's document with the given content; ALREADY_EXISTS when there is one. */
export async function addCrdt(deps: Deps, scope: TenantScope, input: WriteInput) {
  checkData(input.type, input.data);
  const room = { organizationId: input.organizationId, documentId: input.documentId, editorId: input.editorId };
  if (await deps.crdt.find(scope, room)) throw alreadyExists('CRDT data already exists for this editor ID.');
  const contentKey = input.contentKey ?? DEFAULT_CONTENT_KEY;
  // two adds at once both find none: the second one's create finds the first one's row (issue 43)
  if (!(await deps.crdt.create(scope, room, input.type, contentKey))) throw alreadyExists('CRDT data already exists for this editor ID.');
  const entry = await deps.crdt.load(scope, room);
  if (!entry) throw new Error('the new document could not be loaded');
  await deps.crdt.transact(entry, REST, (doc) => writeContent(doc, input.type, contentKey, input.data));
  await crdtActivity(deps, scope, room, 'crdt.add', 'added the editor content');
}

/**
 * The `crdt` activity of a REST change (the API key itself is the acting user: REST calls name no user).
 * Activity logs belong to organizations: CRDT data written for an organization Hearth does not know has none.
 */
async function crdtActivity(
  deps: Deps,
  scope: TenantScope,
  room: { organizationId: string; documentId: string; editorId: string },
  actionType: string,
  what: string,
) {
  // row level, as activities/add (services/activities.ts): a new row under a fresh id, the organization's foreign key
  await deps.storage.transaction(
    async () => {
      if (!(await deps.storage.organizations.find(scope, room.organizationId))) return;
      await recordActivity(deps, scope, {
        organizationId: room.organizationId,
        documentId: room.documentId,
        featureType: 'crdt',
        actionType,
        actionUser: { userId: REST.by },
        targetEntityId: room.editorId,
        displayMessageTemplate: `{{actionUser}} ${what}`,
        displayMessageTemplateData: { actionUser: 'The API' },
      });
    },
    { rowLevel: true },
  );
}

/**
 * /v2/crdt/update: replaces the content by applying CRDT operations to the live document (connected clients
 * get an ordinary update); NOT_FOUND when the editor has no data. The stored type must match.
 */
export async function updateCrdt(deps: Deps, scope: TenantScope, input: WriteInput) {
  checkData(input.type, input.data);
  const room = { organizationId: input.organizationId, documentId: input.documentId, editorId: input.editorId };
  const entry = await deps.crdt.load(scope, room);
  if (!entry) throw notFound(NOT_FOUND_MESSAGE);
  // A room opened over the websocket without its type or key, where no client has written yet: the caller says them.
  if (entry.infer) {
    await deps.crdt.settle(
      entry,
      entry.infer & INFER_TYPE ? input.type : entry.type,
      entry.infer & INFER_KEY ? (input.contentKey ?? entry.contentKey) : entry.contentKey,
    );
  }
  if (entry.type !== input.type) throw invalid(`type must be ${entry.type}: this editor's data is of type ${entry.type}.`);
  // the content lives under the key it was created with: another one would write where nobody reads
  if (input.contentKey !== undefined && input.contentKey !== entry.contentKey) {
    throw invalid(`contentKey must be ${entry.contentKey}: this editor's data is stored under ${entry.contentKey}.`);
  }
  await deps.crdt.transact(entry, REST, (doc) => writeContent(doc, entry.type, entry.contentKey, input.data));
  await crdtActivity(deps, scope, room, 'crdt.update', 'updated the editor content');
}

/** /v2/crdt/get: `[{ data, id, lastUpdate, lastUpdatedBy, sessionId }]` for one editor or every editor of the document. */
export async function getCrdt(deps: Deps, scope: TenantScope, input: { organizationId: string; documentId: string; editorId?: string | undefined }) {
  const editors = await deps.storage.crdt.editors(scope, input.organizationId, input.documentId, input.editorId ? [input.editorId] : undefined);
  const items = [];
  for (const editorId of editors) {
    const item = await crdtItem(deps.crdt, scope, { organizationId: input.organizationId, documentId: input.documentId, editorId });
    if (!item) throw new Error('a listed document vanished while reading');
    items.push(item);
  }
  return items;
}

/** /v2/crdt/delete: the given editors' data (or every editor's) of a document. */
export async function deleteCrdt(deps: Deps, scope: TenantScope, input: { organizationId: string; documentId: string; editorIds?: string[] | undefined }) {
  const editors = await deps.storage.crdt.editors(scope, input.organizationId, input.documentId, input.editorIds);
  for (const editorId of editors) await deps.crdt.remove(scope, { organizationId: input.organizationId, documentId: input.documentId, editorId });
  const out: Record<string, { success: boolean; message: string }> = keyed();
  for (const editorId of editors) out[editorId] = { success: true, message: 'CRDT data deleted.' };
  for (const editorId of input.editorIds ?? []) if (!out[editorId]) out[editorId] = { success: false, message: NOT_FOUND_MESSAGE };
  return out;
}

/**
 * Drops the key's loaded Yjs documents whose rows the caller's unit of work replaced or deleted (an admin import or
 * reset, testing mode's reset), closing their clients with a code they reconnect on (crdt/store.ts `forget`).
 */
export function forgetRooms(app: { crdt: Pick<CrdtStore, 'forget'> }, scope: TenantScope, rooms: readonly StoredRoom[]) {
  for (const r of rooms) app.crdt.forget({ apiKeyId: scope.apiKeyId, organizationId: r.organization_id, documentId: r.document_id, editorId: r.editor_id });
}
