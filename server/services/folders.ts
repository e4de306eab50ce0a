import { and, asc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { foldersAddInput, foldersUpdateInput } from '../../shared/schemas/access.ts';
import type { DocumentAccessType } from '../../shared/schemas/common.ts';
import type { AppContext } from '../context.ts';
import { transaction, type Db } from '../db/client.ts';
import { preparedFor } from '../db/prepared.ts';
import { documents, folders, memberships } from '../db/schema.ts';
import { invalid, notFound } from '../errors.ts';
import { deleteDocumentData } from './document-lifecycle.ts';
import { ensureOrganizationIn, type Outcomes } from './organizations.ts';
import { keyed } from './keyed.ts';

export type FolderRow = typeof folders.$inferSelect;
export const ROOT = 'root';
/** What a top-level folder that inherits gets: no restriction (documents keep their own access type). */
const ROOT_ACCESS: DocumentAccessType = 'public';

/** A lone UTF-16 surrogate cannot be URI-encoded (encodeURIComponent throws) nor stored as given: bad input, not a 500. */
const LONE_SURROGATE = /\p{Cs}/u;
const segment = (id: string) => {
  if (LONE_SURROGATE.test(id)) throw invalid('folderId must be well-formed Unicode text (it contains a lone surrogate).');
  return `${encodeURIComponent(id)}/`;
};
/** Upper bound of a subtree's path range: encoded paths are ASCII, so this sorts after all of them. */
const PATH_END = '\uffff';

const P = sql.placeholder;
/** The API key's organization, as placeholders `apiKeyId` and `organizationId`. */
const inOrganization = [eq(folders.apiKeyId, P('apiKeyId')), eq(folders.organizationId, P('organizationId'))];
const byId = preparedFor((db) =>
  db
    .select()
    .from(folders)
    .where(and(...inOrganization, eq(folders.id, P('id'))))
    .prepare(),
);

export function findFolder(tx: Db, apiKeyId: string, organizationId: string, folderId: string): FolderRow | undefined {
  return byId(tx).get({ apiKeyId, organizationId, id: folderId });
}

/** The folder and everything below it, parents before children. */
export function subtree(tx: Db, folder: Pick<FolderRow, 'apiKeyId' | 'organizationId' | 'path'>): FolderRow[] {
  return subtreeQuery(tx).all({ apiKeyId: folder.apiKeyId, organizationId: folder.organizationId, from: folder.path, to: folder.path + PATH_END });
}

const subtreeQuery = preparedFor((db) =>
  db
    .select()
    .from(folders)
    .where(and(...inOrganization, gte(folders.path, P('from')), lt(folders.path, P('to'))))
    .orderBy(asc(folders.path))
    .prepare(),
);

function placement(parent: FolderRow | null, id: string) {
  return parent
    ? { parentId: parent.id, ancestors: [...parent.ancestors, parent.id], path: parent.path + segment(id) }
    : { parentId: ROOT, ancestors: [ROOT], path: '/' + segment(id) };
}

const effectiveAccess = (row: Pick<FolderRow, 'inheritAccess' | 'ownAccessType'>, parentAccess: DocumentAccessType): DocumentAccessType =>
  row.inheritAccess || !row.ownAccessType ? parentAccess : row.ownAccessType;

/** Inserts one folder under `parent` (null: the top level). */
export function insertFolder(
  tx: Db,
  apiKeyId: string,
  organizationId: string,
  parent: FolderRow | null,
  input: { folderId: string; folderName?: string | undefined; accessType?: DocumentAccessType | undefined },
): FolderRow {
  const now = Date.now();
  const inheritAccess = input.accessType === undefined;
  const row: FolderRow = {
    apiKeyId,
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
  tx.insert(folders).values(row).run();
  return row;
}

export function addFolders(app: AppContext, apiKeyId: string, input: z.output<typeof foldersAddInput>): Outcomes {
  return transaction(app.db, (tx) => {
    ensureOrganizationIn(tx, apiKeyId, input.organizationId, input.createOrganization ?? false);
    const out: Outcomes = keyed();
    for (const item of input.folders) {
      if (findFolder(tx, apiKeyId, input.organizationId, item.folderId)) {
        out[item.folderId] = { success: false, id: item.folderId, message: 'Folder already exists.' };
        continue;
      }
      let parent: FolderRow | null = null;
      if (item.parentFolderId && item.parentFolderId !== ROOT) {
        parent = findFolder(tx, apiKeyId, input.organizationId, item.parentFolderId) ?? null;
        if (!parent) {
          out[item.folderId] = { success: false, id: item.folderId, message: 'Parent folder does not exist.' };
          continue;
        }
      }
      insertFolder(tx, apiKeyId, input.organizationId, parent, item);
      out[item.folderId] = { success: true, id: item.folderId, message: 'Folder added.' };
    }
    return out;
  });
}

/**
 * Rewrites a subtree after its top folder moved or changed its access settings: every folder below gets the
 * new ancestors/path prefix and its effective access type recomputed top-down. Touches the subtree only.
 */
function rewriteSubtree(tx: Db, top: FolderRow, next: { parent: FolderRow | null; ownAccessType: DocumentAccessType | null; inheritAccess: boolean }) {
  const rows = subtree(tx, top);
  const oldPath = top.path;
  const oldDepth = top.ancestors.length;
  const moved = placement(next.parent, top.id);
  const accessById = new Map<string, DocumentAccessType>();
  const now = Date.now();
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
    tx.update(folders)
      .set({
        path,
        ancestors,
        accessType,
        ...(isTop ? { parentId: moved.parentId, ownAccessType: next.ownAccessType, inheritAccess: next.inheritAccess, updatedAt: now } : {}),
      })
      .where(and(eq(folders.apiKeyId, row.apiKeyId), eq(folders.organizationId, row.organizationId), eq(folders.id, row.id)))
      .run();
  }
}

/** Rename and move (with its whole subtree), refusing moves that would make a cycle. */
export function updateFolders(app: AppContext, apiKeyId: string, input: z.output<typeof foldersUpdateInput>): Outcomes {
  let moved = false;
  const outcomes = transaction(app.db, (tx) => {
    const out: Outcomes = keyed();
    for (const item of input.folders) {
      const folder = findFolder(tx, apiKeyId, input.organizationId, item.folderId);
      if (!folder) {
        out[item.folderId] = { success: false, id: item.folderId, message: 'Folder does not exist.' };
        continue;
      }
      if (item.parentFolderId !== undefined && item.parentFolderId !== folder.parentId) {
        let parent: FolderRow | null = null;
        if (item.parentFolderId !== ROOT) {
          parent = findFolder(tx, apiKeyId, input.organizationId, item.parentFolderId) ?? null;
          if (!parent) {
            out[item.folderId] = { success: false, id: item.folderId, message: 'Parent folder does not exist.' };
            continue;
          }
          if (parent.path.startsWith(folder.path)) {
            out[item.folderId] = { success: false, id: item.folderId, message: 'A folder cannot be moved into itself or one of its subfolders.' };
            continue;
          }
        }
        rewriteSubtree(tx, folder, { parent, ownAccessType: folder.ownAccessType, inheritAccess: folder.inheritAccess });
        moved = true;
      }
      if (item.folderName !== undefined) {
        tx.update(folders)
          .set({ name: item.folderName, updatedAt: Date.now() })
          .where(and(eq(folders.apiKeyId, apiKeyId), eq(folders.organizationId, input.organizationId), eq(folders.id, item.folderId)))
          .run();
      }
      out[item.folderId] = { success: true, id: item.folderId, message: 'Folder Updated.' };
    }
    return out;
  });
  // a folder moved under a stricter parent takes its access type, and its documents'
  if (moved) app.accessEvents.publish({ apiKeyId, organizationId: input.organizationId });
  return outcomes;
}

export function updateFolderAccess(
  app: AppContext,
  apiKeyId: string,
  input: { organizationId: string; folderIds: string[]; accessType?: DocumentAccessType | undefined; inheritFromParent?: boolean | undefined },
): Outcomes {
  if (input.accessType === undefined && input.inheritFromParent === undefined) {
    throw invalid('At least one of accessType or inheritFromParent must be provided.');
  }
  if (input.inheritFromParent === false && input.accessType === undefined) {
    throw invalid('accessType is required when inheritFromParent is false.');
  }
  const outcomes = transaction(app.db, (tx) => {
    const out: Outcomes = keyed();
    for (const folderId of new Set(input.folderIds)) {
      const folder = findFolder(tx, apiKeyId, input.organizationId, folderId);
      if (!folder) {
        out[folderId] = { success: false, id: folderId, message: 'Folder does not exist.' };
        continue;
      }
      const parent = folder.parentId === ROOT ? null : (findFolder(tx, apiKeyId, input.organizationId, folder.parentId) ?? null);
      // An explicit access type turns inheritance off unless inheritFromParent says otherwise.
      const inheritAccess = input.inheritFromParent ?? (input.accessType !== undefined ? false : folder.inheritAccess);
      const ownAccessType = input.accessType ?? folder.ownAccessType;
      rewriteSubtree(tx, folder, { parent, ownAccessType, inheritAccess });
      out[folderId] = { success: true, id: folderId, message: 'Folder access updated.' };
    }
    return out;
  });
  app.accessEvents.publish({ apiKeyId, organizationId: input.organizationId });
  return outcomes;
}

/** Deletes a folder, its subfolders, the documents in them and every membership on those. */
export function deleteFolder(app: AppContext, apiKeyId: string, organizationId: string, folderId: string) {
  transaction(app.db, (tx) => {
    const folder = findFolder(tx, apiKeyId, organizationId, folderId);
    if (!folder) throw notFound('Folder not found.');
    const folderIds = subtree(tx, folder).map((f) => f.id);
    for (let i = 0; i < folderIds.length; i += 500) {
      const chunk = folderIds.slice(i, i + 500);
      const docIds = tx
        .select({ id: documents.id })
        .from(documents)
        .where(and(eq(documents.apiKeyId, apiKeyId), eq(documents.organizationId, organizationId), inArray(documents.folderId, chunk)))
        .all()
        .map((d) => d.id);
      deleteDocumentData(tx, { apiKeyId, organizationId, documentIds: docIds });
      tx.delete(documents)
        .where(and(eq(documents.apiKeyId, apiKeyId), eq(documents.organizationId, organizationId), inArray(documents.folderId, chunk)))
        .run();
      tx.delete(memberships)
        .where(and(eq(memberships.apiKeyId, apiKeyId), eq(memberships.organizationId, organizationId), eq(memberships.level, 'folder'), inArray(memberships.resourceId, chunk)))
        .run();
      tx.delete(folders).where(and(eq(folders.apiKeyId, apiKeyId), eq(folders.organizationId, organizationId), inArray(folders.id, chunk))).run();
    }
  });
  app.accessEvents.publish({ apiKeyId, organizationId });
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
export function folderTree(app: AppContext, apiKeyId: string, organizationId: string, folderId?: string, maxDepth?: number): FolderNode[] {
  const db = app.db;
  let rows: FolderRow[];
  let baseDepth: number;
  if (folderId) {
    const folder = findFolder(db, apiKeyId, organizationId, folderId);
    if (!folder) throw notFound('Folder not found.');
    rows = subtree(db, folder);
    baseDepth = folder.ancestors.length;
  } else {
    rows = subtree(db, { apiKeyId, organizationId, path: '/' });
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
