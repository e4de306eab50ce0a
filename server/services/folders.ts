import { currentTime } from '../clock.ts';
import type { z } from 'zod';
import type { foldersAddInput, foldersUpdateInput } from '../../shared/schemas/access.ts';
import type { DocumentAccessType } from '../../shared/schemas/common.ts';
import type { FolderChange, FolderRow } from '../db/repos/folders.ts';
import type { Storage } from '../db/repos/index.ts';
import type { TenantScope } from '../db/scope.ts';
import { invalid, notFound } from '../errors.ts';
import type { AccessEvents } from './access-events.ts';
import { ensureOrganization, type Outcomes } from './organizations.ts';
import { keyed } from './keyed.ts';

export type { FolderRow };
type Deps = { storage: Storage };
const ROW_LEVEL = { rowLevel: true };
export const ROOT = 'root';
/** What a top-level folder that inherits gets: no restriction (documents keep their own access type). */
const ROOT_ACCESS: DocumentAccessType = 'public';

/** A lone UTF-16 surrogate cannot be URI-encoded (encodeURIComponent throws) nor stored as given: bad input, not a 500. */
const LONE_SURROGATE = /\p{Cs}/u;
const segment = (id: string) => {
  if (LONE_SURROGATE.test(id)) throw invalid('folderId must be well-formed Unicode text (it contains a lone surrogate).');
  return `${encodeURIComponent(id)}/`;
};

function placement(parent: FolderRow | null, id: string) {
  return parent
    ? { parentId: parent.id, ancestors: [...parent.ancestors, parent.id], path: parent.path + segment(id) }
    : { parentId: ROOT, ancestors: [ROOT], path: '/' + segment(id) };
}

const effectiveAccess = (row: Pick<FolderRow, 'inheritAccess' | 'ownAccessType'>, parentAccess: DocumentAccessType): DocumentAccessType =>
  row.inheritAccess || !row.ownAccessType ? parentAccess : row.ownAccessType;

/** Inserts one folder under `parent` (null: the top level); undefined when the organization has one of that id. */
export async function insertFolder(
  deps: Deps,
  scope: TenantScope,
  organizationId: string,
  parent: FolderRow | null,
  input: { folderId: string; folderName?: string | undefined; accessType?: DocumentAccessType | undefined },
): Promise<FolderRow | undefined> {
  const now = currentTime();
  const inheritAccess = input.accessType === undefined;
  const row: Omit<FolderRow, 'apiKeyId'> = {
    organizationId,
    id: input.folderId,
    name: input.folderName ?? '',
    ...placement(parent, input.folderId),
    ownAccessType: input.accessType ?? null,
    inheritAccess,
    accessType: inheritAccess ? (parent?.accessType ?? ROOT_ACCESS) : (input.accessType as DocumentAccessType),
    createdAt: now,
    updatedAt: now,
  };
  return (await deps.storage.folders.insert(scope, row)) ? { ...row, apiKeyId: scope.apiKeyId } : undefined;
}

export async function addFolders(deps: Deps, scope: TenantScope, input: z.output<typeof foldersAddInput>): Promise<Outcomes> {
  const { folders } = deps.storage;
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the insert's count is the answer of two adds of one id,
  // and the parent is held by an update (`folders.hold`) that excludes a move, access change or delete of its subtree
  return deps.storage.transaction(
    async () => {
      await ensureOrganization(deps, scope, input.organizationId, input.createOrganization ?? false);
      const out: Outcomes = keyed();
      const exists = (id: string) => (out[id] = { success: false, id, message: 'Folder already exists.' });
      for (const item of input.folders) {
        if (await folders.find(scope, input.organizationId, item.folderId)) {
          exists(item.folderId);
          continue;
        }
        let parent: FolderRow | null = null;
        if (item.parentFolderId && item.parentFolderId !== ROOT) {
          parent = (await folders.hold(scope, input.organizationId, item.parentFolderId)) ?? null;
          if (!parent) {
            out[item.folderId] = { success: false, id: item.folderId, message: 'Parent folder does not exist.' };
            continue;
          }
        }
        if (!(await insertFolder(deps, scope, input.organizationId, parent, item))) {
          exists(item.folderId);
          continue;
        }
        out[item.folderId] = { success: true, id: item.folderId, message: 'Folder added.' };
      }
      return out;
    },
    { rowLevel: true },
  );
}

/**
 * The subtree under `path` held (`folders.holdSubtree`), parents before children, as it is once no unit adds or moves
 * a folder into it: at READ COMMITTED a pass waits for the units holding one of its folders and does not see a folder
 * they commit under it (a statement reads as of its start), so it is held again until two passes find the same
 * folders; from then on an add or move into it (each holds its parent, `folders.hold`) waits for the caller's end.
 * The caller holds the subtree's top first, so that its path cannot change meanwhile.
 */
async function holdWholeSubtree(deps: Deps, scope: TenantScope, organizationId: string, path: string): Promise<FolderRow[]> {
  let held = new Set<string>();
  for (;;) {
    const rows = await deps.storage.folders.holdSubtree(scope, organizationId, path);
    if (rows.length === held.size && rows.every((row) => held.has(row.id))) return rows;
    held = new Set(rows.map((row) => row.id));
  }
}

/**
 * Rewrites a subtree after its top folder moved or changed its access settings: every folder below gets the
 * new ancestors/path prefix and its effective access type recomputed top-down. Touches the subtree only, held
 * whole first (`holdWholeSubtree`: the caller holds `top`).
 */
async function rewriteSubtree(
  deps: Deps,
  scope: TenantScope,
  top: FolderRow,
  next: { parent: FolderRow | null; ownAccessType: DocumentAccessType | null; inheritAccess: boolean },
) {
  const rows = await holdWholeSubtree(deps, scope, top.organizationId, top.path);
  const oldPath = top.path;
  const oldDepth = top.ancestors.length;
  const moved = placement(next.parent, top.id);
  const accessById = new Map<string, DocumentAccessType>();
  const now = currentTime();
  const changes: Array<{ id: string; set: FolderChange }> = [];
  for (const row of rows) {
    const isTop = row.id === top.id;
    const settings = isTop ? { ownAccessType: next.ownAccessType, inheritAccess: next.inheritAccess } : row;
    const parentAccess = isTop ? (next.parent?.accessType ?? ROOT_ACCESS) : (accessById.get(row.parentId) ?? ROOT_ACCESS);
    const accessType = effectiveAccess(settings, parentAccess);
    accessById.set(row.id, accessType);
    const path = moved.path + row.path.slice(oldPath.length);
    const ancestors = [...moved.ancestors, ...row.ancestors.slice(oldDepth)];
    const unchanged = path === row.path && accessType === row.accessType && !isTop;
    if (unchanged) continue;
    changes.push({
      id: row.id,
      set: {
        path,
        ancestors,
        accessType,
        ...(isTop ? { parentId: moved.parentId, ownAccessType: next.ownAccessType, inheritAccess: next.inheritAccess, updatedAt: now } : {}),
      },
    });
  }
  await deps.storage.folders.change(scope, top.organizationId, changes);
}

/** Rename and move (with its whole subtree), refusing moves that would make a cycle. */
export async function updateFolders(
  deps: Deps & { accessEvents: AccessEvents },
  scope: TenantScope,
  input: z.output<typeof foldersUpdateInput>,
): Promise<Outcomes> {
  const { folders } = deps.storage;
  let moved = false;
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the folder held, its new parent held (a delete or move of
  // it and this move exclude each other), its subtree held whole before it is rewritten (`holdWholeSubtree`): an add
  // into it, a grant on it or a delete of it waits, or is waited for. SERIALIZABLE, a move was refused whenever such a
  // unit held a folder of its subtree, and users added to a subfolder without pause made it fail
  const outcomes = await deps.storage.transaction(async () => {
    const out: Outcomes = keyed();
    for (const item of input.folders) {
      const folder = await folders.hold(scope, input.organizationId, item.folderId);
      if (!folder) {
        out[item.folderId] = { success: false, id: item.folderId, message: 'Folder does not exist.' };
        continue;
      }
      if (item.parentFolderId !== undefined && item.parentFolderId !== folder.parentId) {
        let parent: FolderRow | null = null;
        if (item.parentFolderId !== ROOT) {
          // held, not only read: a delete of the parent meanwhile (READ COMMITTED) and this move exclude each other
          parent = (await folders.hold(scope, input.organizationId, item.parentFolderId)) ?? null;
          if (!parent) {
            out[item.folderId] = { success: false, id: item.folderId, message: 'Parent folder does not exist.' };
            continue;
          }
          if (parent.path.startsWith(folder.path)) {
            out[item.folderId] = { success: false, id: item.folderId, message: 'A folder cannot be moved into itself or one of its subfolders.' };
            continue;
          }
        }
        await rewriteSubtree(deps, scope, folder, { parent, ownAccessType: folder.ownAccessType, inheritAccess: folder.inheritAccess });
        moved = true;
      }
      if (item.folderName !== undefined) await folders.rename(scope, input.organizationId, item.folderId, item.folderName, currentTime());
      out[item.folderId] = { success: true, id: item.folderId, message: 'Folder Updated.' };
    }
    return out;
  }, ROW_LEVEL);
  // a folder moved under a stricter parent takes its access type, and its documents'
  if (moved) deps.accessEvents.publish({ apiKeyId: scope.apiKeyId, organizationId: input.organizationId });
  return outcomes;
}

export async function updateFolderAccess(
  deps: Deps & { accessEvents: AccessEvents },
  scope: TenantScope,
  input: { organizationId: string; folderIds: string[]; accessType?: DocumentAccessType | undefined; inheritFromParent?: boolean | undefined },
): Promise<Outcomes> {
  if (input.accessType === undefined && input.inheritFromParent === undefined) {
    throw invalid('At least one of accessType or inheritFromParent must be provided.');
  }
  if (input.inheritFromParent === false && input.accessType === undefined) {
    throw invalid('accessType is required when inheritFromParent is false.');
  }
  const { folders } = deps.storage;
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the folder held, then its parent read (a change of the
  // parent's access holds this folder too, so it commits first or waits), then its subtree held whole and rewritten,
  // as a move's
  const outcomes = await deps.storage.transaction(async () => {
    const out: Outcomes = keyed();
    for (const folderId of new Set(input.folderIds)) {
      const folder = await folders.hold(scope, input.organizationId, folderId);
      if (!folder) {
        out[folderId] = { success: false, id: folderId, message: 'Folder does not exist.' };
        continue;
      }
      const parent = folder.parentId === ROOT ? null : ((await folders.find(scope, input.organizationId, folder.parentId)) ?? null);
      // An explicit access type turns inheritance off unless inheritFromParent says otherwise.
      const inheritAccess = input.inheritFromParent ?? (input.accessType !== undefined ? false : folder.inheritAccess);
      const ownAccessType = input.accessType ?? folder.ownAccessType;
      await rewriteSubtree(deps, scope, folder, { parent, ownAccessType, inheritAccess });
      out[folderId] = { success: true, id: folderId, message: 'Folder access updated.' };
    }
    return out;
  }, ROW_LEVEL);
  deps.accessEvents.publish({ apiKeyId: scope.apiKeyId, organizationId: input.organizationId });
  return outcomes;
}

/** Deletes a folder, its subfolders, the documents in them with their data (db/tenancy.ts) and every membership on those. */
export async function deleteFolder(deps: Deps & { accessEvents: AccessEvents }, scope: TenantScope, organizationId: string, folderId: string) {
  const { storage } = deps;
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the organization's document data fenced ("Fences"); the
  // folder held, then its subtree held again and again until two passes find the same folders (a folder added or
  // moved under a held one waits for this delete, and one that committed while a pass waited is found by the next);
  // then the documents in them held (`documents.holdAll`), those still in them deleted with their data, each statement
  // seeing what committed before it. SERIALIZABLE, a delete was refused whenever a live room's flush in the subtree
  // bumped its row, and a room edited without pause made it fail
  await storage.transaction(
    async () => {
      const folder = await storage.folders.hold(scope, organizationId, folderId);
      if (!folder) throw notFound('Folder not found.');
      const ids = (await holdWholeSubtree(deps, scope, organizationId, folder.path)).map((f) => f.id);
      const folderIds = new Set(ids);
      const inFolders = await storage.documents.idsInFolders(scope, organizationId, ids);
      // a document moved out while this waited for it is no longer this delete's
      const documentIds = [...(await storage.documents.holdAll(scope, organizationId, inFolders)).values()]
        .filter((d) => d.folderId !== null && folderIds.has(d.folderId))
        .map((d) => d.id);
      await storage.documentData.delete(scope, organizationId, documentIds);
      await storage.documents.delete(scope, organizationId, documentIds);
      await storage.memberships.removeAt(scope, organizationId, 'folder', ids);
      await storage.folders.delete(scope, organizationId, ids);
    },
    { rowLevel: true, deletesDocumentsOf: { scope, organizationId } },
  );
  deps.accessEvents.publish({ apiKeyId: scope.apiKeyId, organizationId });
}

export function describeFolder(row: FolderRow) {
  return {
    folderId: row.id,
    folderName: row.name,
    organizationId: row.organizationId,
    parentFolderId: row.parentId,
    apiKey: row.apiKeyId,
    createdAt: row.createdAt,
    lastUpdated: row.updatedAt,
    ancestors: row.ancestors,
    accessType: row.accessType,
    inheritAccessFromParent: row.inheritAccess,
  };
}

type FolderNode = ReturnType<typeof describeFolder> & { subFolders?: FolderNode[] };

/**
 * The folder (or every top-level folder) with its subfolders nested as `subFolders`, down to `maxDepth` levels
 * below it (all levels when omitted). Reads only the subtree's index range.
 */
export async function folderTree(deps: Deps, scope: TenantScope, organizationId: string, folderId?: string, maxDepth?: number): Promise<FolderNode[]> {
  let rows: FolderRow[];
  let baseDepth: number;
  if (folderId) {
    const folder = await deps.storage.folders.find(scope, organizationId, folderId);
    if (!folder) throw notFound('Folder not found.');
    rows = await deps.storage.folders.subtree(scope, organizationId, folder.path);
    baseDepth = folder.ancestors.length;
  } else {
    rows = await deps.storage.folders.subtree(scope, organizationId, '/');
    baseDepth = 1;
  }
  const nodes = new Map<string, FolderNode>();
  const tops: FolderNode[] = [];
  for (const row of rows) {
    const depth = row.ancestors.length - baseDepth;
    if (maxDepth !== undefined && depth > maxDepth) continue;
    const node: FolderNode = describeFolder(row);
    nodes.set(row.id, node);
    const parent = nodes.get(row.parentId);
    if (depth === 0 || !parent) tops.push(node);
    else (parent.subFolders ??= []).push(node);
  }
  return tops;
}
