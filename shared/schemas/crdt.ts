import { z } from 'zod';
import { id } from './access.ts';

export const CRDT_DATA_TYPES = ['text', 'map', 'array', 'xml'] as const;

export const crdtWriteInput = z.object({
  organizationId: id,
  documentId: id,
  editorId: id,
  data: z.unknown().refine((v) => v !== undefined, { error: 'is required' }),
  type: z.enum(CRDT_DATA_TYPES),
  contentKey: z.string().min(1).max(200).default('content'),
});

export const crdtGetInput = z.object({ organizationId: id, documentId: id, editorId: id.optional() });
export const crdtDeleteInput = z.object({ organizationId: id, documentId: id, editorIds: z.array(id).min(1).max(1000).optional() });
