import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { memberships } from '../db/schema.ts';

export interface DocumentSet {
  apiKeyId: string;
  organizationId: string;
  documentIds: string[];
}

export interface DocumentMove {
  apiKeyId: string;
  organizationId: string;
  fromDocumentId: string;
  toDocumentId: string;
}

/**
 * What each area keeps per document, and how to delete it or move it to a new document id. Areas register
 * their part (memberships here; notifications, activities, CRDT data, comments… in their own modules), so that
 * deleting a document and migrating it cover everything without this module knowing every table.
 * Both run inside the caller's transaction.
 */
export interface DocumentDataPart {
  name: string;
  deleteData(tx: Db, set: DocumentSet): void;
  moveData(tx: Db, move: DocumentMove): void;
}

const parts: DocumentDataPart[] = [];

export function registerDocumentData(part: DocumentDataPart) {
  if (parts.some((p) => p.name === part.name)) return;
  parts.push(part);
}

export function deleteDocumentData(tx: Db, set: DocumentSet) {
  if (set.documentIds.length === 0) return;
  for (const part of parts) part.deleteData(tx, set);
}

export function moveDocumentData(tx: Db, move: DocumentMove) {
  for (const part of parts) part.moveData(tx, move);
}

export function registeredDocumentParts(): string[] {
  return parts.map((p) => p.name);
}

registerDocumentData({
  name: 'memberships',
  deleteData(tx, { apiKeyId, organizationId, documentIds }) {
    for (let i = 0; i < documentIds.length; i += 500) {
      tx.delete(memberships)
        .where(
          and(
            eq(memberships.apiKeyId, apiKeyId),
            eq(memberships.organizationId, organizationId),
            eq(memberships.level, 'document'),
            inArray(memberships.resourceId, documentIds.slice(i, i + 500)),
          ),
        )
        .run();
    }
  },
  moveData(tx, { apiKeyId, organizationId, fromDocumentId, toDocumentId }) {
    tx.update(memberships)
      .set({ resourceId: toDocumentId })
      .where(and(eq(memberships.apiKeyId, apiKeyId), eq(memberships.organizationId, organizationId), eq(memberships.level, 'document'), eq(memberships.resourceId, fromDocumentId)))
      .run();
  },
});
