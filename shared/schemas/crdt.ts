import { z } from 'zod';
import { id } from './access.ts';

export const CRDT_DATA_TYPES = ['text', 'map', 'array', 'xml'] as const;

export const crdtWriteInput = z.object({
  organizationId: id,
  documentId: id,
  editorId: id,
  data: z.unknown().refine((v) => v !== undefined, { error: 'is required' }),
  type: z.enum(CRDT_DATA_TYPES),
  /** Default `content` when an editor's data is created; an update writes under the stored key. */
  contentKey: z.string().min(1).max(200).optional(),
});

export const DEFAULT_CONTENT_KEY = 'content';

export const crdtGetInput = z.object({ organizationId: id, documentId: id, editorId: id.optional() });
export const crdtDeleteInput = z.object({ organizationId: id, documentId: id, editorIds: z.array(id).min(1).max(1000).optional() });

/**
 * The hosted words for a missing id (reference §2.21: `Editor ID is required.`; §3.10, crdt/get: `Organization
 * ID is required`, without a period); the other ids follow each operation's form.
 */
export const CRDT_WRITE_MISSING = {
  organizationId: 'Organization ID is required.',
  documentId: 'Document ID is required.',
  editorId: 'Editor ID is required.',
};
export const CRDT_GET_MISSING = { organizationId: 'Organization ID is required', documentId: 'Document ID is required' };
