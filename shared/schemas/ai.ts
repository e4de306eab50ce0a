import { z } from 'zod';
import { id } from './access.ts';
import { content, nonEmpty, secret } from './common.ts';

/** Largest text an AI call or an agent run takes (what a model's context holds, roughly). */
export const MAX_AI_TEXT = 400_000;

export const askAiInput = z.object({
  model: nonEmpty(200),
  prompt: content(50_000),
  text: content(MAX_AI_TEXT),
});

// ---------------------------------------------------------------------------------------------------------
// Agents and executions
// ---------------------------------------------------------------------------------------------------------

const agentFields = {
  name: nonEmpty(200),
  description: z.string().max(2000).nullable().optional(),
  model: nonEmpty(200),
  instructions: content(50_000),
};

export const agentCreateInput = z.strictObject({
  agentId: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'must be 1-64 characters: letters, digits, -, _ and . (starting with a letter or digit)')
    .optional(),
  ...agentFields,
});
export const agentGetInput = z.strictObject({ agentId: id });
export const agentListInput = z.strictObject({ pageSize: z.number().int().min(1).max(500).default(50), cursor: z.string().min(1).max(2048).nullish() });
export const agentUpdateInput = z.strictObject({
  agentId: id,
  name: agentFields.name.optional(),
  description: agentFields.description,
  model: agentFields.model.optional(),
  instructions: agentFields.instructions.optional(),
});
export const agentDeleteInput = agentGetInput;

export const EXECUTION_STATUSES = ['running', 'passed', 'failed', 'error', 'skipped'] as const;

export const executionRunInput = z
  .strictObject({
    agentId: id,
    /** The text to review; or the CRDT content of a document (organizationId + documentId, optional editorId). */
    text: content(MAX_AI_TEXT).optional(),
    organizationId: id.optional(),
    documentId: id.optional(),
    editorId: id.optional(),
    userId: id.optional(),
  })
  .refine((v) => v.text !== undefined || v.documentId !== undefined, { error: 'is required when documentId is not given', path: ['text'] })
  .refine((v) => v.documentId === undefined || v.organizationId !== undefined, { error: 'is required with documentId', path: ['organizationId'] })
  .refine((v) => v.editorId === undefined || v.documentId !== undefined, { error: 'is required with editorId', path: ['documentId'] });

export const executionGetInput = z.strictObject({ executionId: id });

export const executionListInput = z.strictObject({
  agentId: id.optional(),
  documentId: id.optional(),
  organizationId: id.optional(),
  status: z.enum(EXECUTION_STATUSES).optional(),
  pageSize: z.number().int().min(1).max(500).default(50),
  cursor: z.string().min(1).max(2048).nullish(),
  orderDirection: z.enum(['asc', 'desc']).default('desc'),
});

// ---------------------------------------------------------------------------------------------------------
// Workflow definitions (reference.md 3.13). Structural limits here; the graph rules in the service, each
// reported with its validation key.
// ---------------------------------------------------------------------------------------------------------

export const NODE_TYPES = ['agent', 'human', 'notification', 'webhook'] as const;
export const EDGE_KINDS = ['approve', 'reject', 'always', 'exhausted', 'custom'] as const;

const json = z.unknown();
const definitionNode = z.object({ nodeId: z.string().min(1).max(64), type: z.enum(NODE_TYPES), config: z.record(z.string(), json).optional() }).loose();
const definitionEdge = z.strictObject({
  from: z.string().min(1).max(64),
  to: z.string().min(1).max(64),
  on: z.enum(EDGE_KINDS).optional(),
  when: json.optional(),
  loop: z.strictObject({ maxIterations: z.number().int().min(1).max(20) }).optional(),
});
const definitionScope = z.strictObject({
  level: z.enum(['apiKey', 'organization', 'document']),
  organizationId: id.nullable().optional(),
  documentId: id.nullable().optional(),
});

export const definitionBody = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).nullable().optional(),
  scope: definitionScope.optional(),
  nodes: z.array(definitionNode).min(1).max(100),
  edges: z.array(definitionEdge).max(500).default([]),
  groups: z.array(z.record(z.string(), json)).max(100).nullable().optional(),
  triggers: z.array(json).max(50).nullable().optional(),
  webhookConfig: z
    .strictObject({
      url: z.url({ protocol: /^https?$/ }),
      secret: secret(z.string().min(16).max(512)),
      eventTypes: z.array(z.string().min(1).max(200)).max(50).optional(),
    })
    .nullable()
    .optional(),
  tags: z.array(z.string().min(1).max(100)).max(20).nullable().optional(),
  custom: json.optional(),
  organizationId: id.optional(),
  documentId: id.optional(),
};

export const DEFINITION_ID = /^[a-z0-9][a-z0-9-]{2,63}$/;
const definitionId = z.string().regex(DEFINITION_ID, 'must match ^[a-z0-9][a-z0-9-]{2,63}$ (DEFINITION_ID_INVALID)');

export const definitionCreateInput = z.strictObject({ definitionId, ...definitionBody });
export const definitionUpdateInput = z.strictObject({ definitionId, ifVersion: z.number().int().min(1), ...definitionBody });
export const definitionGetInput = z.strictObject({ definitionId, organizationId: id.optional(), documentId: id.optional() });
export const definitionDeleteInput = z.strictObject({
  definitionId,
  purge: z.boolean().default(false),
  organizationId: id.optional(),
  documentId: id.optional(),
});
export const definitionListInput = z.strictObject({ pageSize: z.number().int().min(1).max(500).default(50), cursor: z.string().min(1).max(2048).nullish() });

// ---------------------------------------------------------------------------------------------------------
// Memory: judgments and suggestions
// ---------------------------------------------------------------------------------------------------------

export const suggestInput = z.strictObject({
  query: nonEmpty(2000),
  organizationId: id.optional(),
  documentId: id.optional(),
});

export const JUDGMENT_DECISION_VALUES = [
  'comment',
  'resolve',
  'approved',
  'rejected',
  'in_progress',
  'agree',
  'disagree',
  'endorse',
  'document_approved',
  'document_rejected',
] as const;

export const judgmentsQueryInput = z.strictObject({
  query: z.string().trim().min(1).max(2000).optional(),
  organizationId: id.optional(),
  documentId: id.optional(),
  reviewerId: id.optional(),
  decision: z.enum(JUDGMENT_DECISION_VALUES).optional(),
  pageSize: z.number().int().min(1).max(500).default(50),
  cursor: z.string().min(1).max(2048).nullish(),
});
