import type { Db } from '../db/client.ts';
import { deleteDocumentsData, moveDocumentData as moveData } from '../db/repos/document-data.ts';

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

/** For services not yet moved to units of work: deletes the documents' data (db/repos/document-data.ts) in `tx`. */
export function deleteDocumentData(tx: Db, set: DocumentSet) {
  if (set.documentIds.length > 0) deleteDocumentsData(tx, set.apiKeyId, set.organizationId, set.documentIds);
}

/** For services not yet moved to units of work: moves a document's data to another id in `tx`. */
export function moveDocumentData(tx: Db, move: DocumentMove) {
  moveData(tx, move.apiKeyId, move.organizationId, move.fromDocumentId, move.toDocumentId);
}
