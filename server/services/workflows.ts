import { currentTime } from '../clock.ts';
import type { z } from 'zod';
import type { definitionCreateInput, definitionDeleteInput, definitionGetInput, definitionListInput, definitionUpdateInput } from '../../shared/schemas/ai.ts';
import type { PageTokens } from '../db/pagination.ts';
import { paginate } from '../db/pagination.ts';
import type { Storage } from '../db/repos/index.ts';
import type { DefinitionRow as Row } from '../db/repos/workflows.ts';
import type { TenantScope } from '../db/scope.ts';
import { alreadyExists, failedPrecondition, invalid, notFound } from '../errors.ts';
import { readPageToken } from './paging.ts';
import type { Secrets } from '../security/secrets.ts';

type Deps = { storage: Storage };
/** Writing a definition encrypts its webhook secret. */
type WriteDeps = Deps & { secrets: Secrets };
type Body = z.output<typeof definitionCreateInput>;
type Edge = Body['edges'][number];

/** A rule broken: INVALID_ARGUMENT whose message starts with the rule's validation key (reference.md 3.13). */
const rule = (key: string, message: string) => invalid(`${key}: ${message}`);

const DECISION_WHEN = (value: string) => ({ op: 'eq', args: [{ var: 'output.decision' }, value] });

/**
 * Checks the graph rules and returns the compiled view: forward edges with their role and condition, and the
 * loops (reject back-edges with `loop.maxIterations`). The forward graph must be acyclic: a cycle is allowed
 * only when a reject edge with a `loop` closes it.
 */
export function compileDefinition(body: Pick<Body, 'nodes' | 'edges' | 'groups'>) {
  const nodeIds = new Set<string>();
  for (const node of body.nodes) {
    if (nodeIds.has(node.nodeId)) throw rule('DUPLICATE_NODE_ID', `node id "${node.nodeId}" is used by more than one node.`);
    nodeIds.add(node.nodeId);
  }
  const seen = new Set<string>();
  for (const [i, edge] of body.edges.entries()) {
    for (const end of [edge.from, edge.to])
      if (!nodeIds.has(end)) throw rule('EDGE_UNKNOWN_NODE', `edges[${i}] refers to node "${end}", which is not among the nodes.`);
    const on = edge.on ?? 'always';
    if (edge.when !== undefined && on !== 'custom')
      throw rule('EDGE_WHEN_REQUIRES_CUSTOM', `edges[${i}] has a "when" condition, which is allowed only with on: "custom".`);
    if (on === 'custom' && edge.when === undefined) throw rule('EDGE_CUSTOM_REQUIRES_WHEN', `edges[${i}] is on: "custom" and needs a "when" condition.`);
    if (edge.loop && on !== 'reject') throw rule('LOOP_REQUIRES_REJECT_EDGE', `edges[${i}] has a loop; loops are allowed only on reject edges.`);
    const key = `${edge.from}\u0000${edge.to}\u0000${on}`;
    if (seen.has(key)) throw rule('DUPLICATE_EDGE', `edges[${i}] repeats an edge from "${edge.from}" to "${edge.to}" on "${on}".`);
    seen.add(key);
  }
  const forward = body.edges.filter((e) => !e.loop);
  const next = new Map<string, string[]>();
  for (const e of forward) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  // a cycle in the forward graph (iterative DFS with colours)
  const colour = new Map<string, 1 | 2>();
  for (const start of nodeIds) {
    if (colour.has(start)) continue;
    const stack: Array<[string, number]> = [[start, 0]];
    colour.set(start, 1);
    while (stack.length) {
      const top = stack[stack.length - 1] as [string, number];
      const children = next.get(top[0]) ?? [];
      if (top[1] < children.length) {
        const child = children[top[1]++] as string;
        const c = colour.get(child);
        if (c === 1)
          throw rule(
            'CYCLE_WITHOUT_LOOP',
            `the edges from "${top[0]}" to "${child}" close a cycle; a cycle is allowed only through a reject edge back to an earlier node with loop.maxIterations.`,
          );
        if (c === undefined) {
          colour.set(child, 1);
          stack.push([child, 0]);
        }
      } else {
        colour.set(top[0], 2);
        stack.pop();
      }
    }
  }
  const reaches = (from: string, to: string) => {
    const todo = [from];
    const visited = new Set<string>();
    while (todo.length) {
      const n = todo.pop() as string;
      if (n === to) return true;
      if (visited.has(n)) continue;
      visited.add(n);
      todo.push(...(next.get(n) ?? []));
    }
    return false;
  };
  for (const [i, edge] of body.edges.entries()) {
    if (edge.loop && !reaches(edge.to, edge.from))
      throw rule('LOOP_REQUIRES_BACK_EDGE', `edges[${i}] has a loop but does not lead back to an earlier node ("${edge.to}" does not lead to "${edge.from}").`);
  }
  for (const node of body.nodes) {
    if (node.type === 'human' && !body.edges.some((e) => e.from === node.nodeId && e.on === 'reject')) {
      throw rule('APPROVAL_HUMAN_NODE_REQUIRES_REJECT_PATH', `human node "${node.nodeId}" needs an outgoing edge with on: "reject".`);
    }
  }
  for (const [i, group] of (body.groups ?? []).entries()) {
    const members = group.nodeIds;
    if (members === undefined) continue;
    if (!Array.isArray(members) || members.some((m) => typeof m !== 'string' || !nodeIds.has(m)))
      throw rule('GROUP_UNKNOWN_NODE', `groups[${i}].nodeIds must list ids of the definition's nodes.`);
  }
  const role = (e: Edge) => e.on ?? 'always';
  return {
    forwardEdges: forward.map((e) => ({
      from: e.from,
      to: e.to,
      role: role(e),
      when: role(e) === 'approve' || role(e) === 'reject' ? DECISION_WHEN(role(e)) : role(e) === 'custom' ? e.when : null,
    })),
    loops: body.edges.filter((e) => e.loop).map((e) => ({ from: e.from, to: e.to, maxIterations: e.loop?.maxIterations })),
  };
}

/** The scope of a definition from `scope` and the top-level ids (both accepted; they must agree). */
function scopeOf(input: Pick<Body, 'scope' | 'organizationId' | 'documentId'>) {
  const level = input.scope?.level ?? (input.documentId ? 'document' : input.organizationId ? 'organization' : 'apiKey');
  const organizationId = input.scope?.organizationId ?? input.organizationId ?? null;
  const documentId = input.scope?.documentId ?? input.documentId ?? null;
  if (input.organizationId && input.scope?.organizationId && input.organizationId !== input.scope.organizationId)
    throw rule('SCOPE_MISMATCH', 'organizationId and scope.organizationId differ.');
  if (input.documentId && input.scope?.documentId && input.documentId !== input.scope.documentId)
    throw rule('SCOPE_MISMATCH', 'documentId and scope.documentId differ.');
  if (level !== 'apiKey' && !organizationId)
    throw rule('SCOPE_REQUIRES_ORGANIZATION', `a definition scoped to ${level === 'document' ? 'a document' : 'an organization'} needs organizationId.`);
  if (level === 'document' && !documentId) throw rule('SCOPE_REQUIRES_DOCUMENT', 'a definition scoped to a document needs documentId.');
  return { level, organizationId: level === 'apiKey' ? null : organizationId, documentId: level === 'document' ? documentId : null };
}

function toRow(deps: { secrets: Secrets }, input: Body, version: number, createdAt: number): Omit<Row, 'apiKeyId'> {
  const compiled = compileDefinition(input);
  const scope = scopeOf(input);
  const now = currentTime();
  return {
    definitionId: input.definitionId,
    name: input.name,
    description: input.description ?? null,
    version,
    scopeLevel: scope.level,
    organizationId: scope.organizationId,
    documentId: scope.documentId,
    body: {
      nodes: input.nodes.map((n) => ({ ...n, config: n.config ?? {} })),
      edges: input.edges.map((e) => ({ ...e, on: e.on ?? 'always' })),
      groups: input.groups ?? [],
      compiled,
      triggers: input.triggers ?? null,
      tags: input.tags ?? null,
      custom: input.custom ?? null,
      webhookConfig: input.webhookConfig ? { url: input.webhookConfig.url, eventTypes: input.webhookConfig.eventTypes ?? null } : null,
    },
    webhookSecretEnc: input.webhookConfig ? deps.secrets.encrypt(input.webhookConfig.secret) : null,
    status: 'active',
    createdAt,
    updatedAt: now,
  };
}

/** The definition view (reference.md 2.24); optional fields never set are explicit nulls; the webhook secret is never shown. */
export function describeDefinition(r: Omit<Row, 'apiKeyId'>) {
  const b = r.body;
  return {
    definitionId: r.definitionId,
    name: r.name,
    description: r.description,
    version: r.version,
    scope: { level: r.scopeLevel, organizationId: r.organizationId, documentId: r.documentId },
    nodes: b.nodes,
    edges: b.edges,
    groups: b.groups ?? [],
    compiled: b.compiled,
    triggers: b.triggers ?? null,
    tags: b.tags ?? null,
    custom: b.custom ?? null,
    webhookConfig: b.webhookConfig ?? null,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    status: r.status,
  };
}

/**
 * Row level on PostgreSQL (docs/storage.md, "Invariants"): a definition's create, update and delete each take its key
 * lock first (`workflows.lock`), then read it, so two of them on one id run one after another: one create of an id,
 * an `ifVersion` compared with the version the last writer left, a tombstone or purge answered once.
 */
const ROW_LEVEL = { rowLevel: true };

export async function createDefinition(deps: WriteDeps, scope: TenantScope, input: Body) {
  const row = toRow(deps, input, 1, currentTime());
  return deps.storage.transaction(async () => {
    await deps.storage.workflows.lock(scope, input.definitionId);
    const existing = await deps.storage.workflows.find(scope, input.definitionId);
    if (existing?.status === 'deleted')
      throw alreadyExists(`Workflow definition ${input.definitionId} was deleted; delete it with purge: true to reuse its id.`);
    if (existing) throw alreadyExists(`Workflow definition already exists: ${input.definitionId}.`);
    await deps.storage.workflows.insert(scope, row);
    return describeDefinition(row);
  }, ROW_LEVEL);
}

/**
 * The active definition, checked against the caller's scope: an organization- or document-scoped definition
 * needs the matching organizationId (and documentId); another organization's or document's is NOT_FOUND.
 */
async function requireActive(
  deps: Deps,
  scope: TenantScope,
  input: { definitionId: string; organizationId?: string | undefined; documentId?: string | undefined },
) {
  const row = await deps.storage.workflows.find(scope, input.definitionId);
  if (!row || row.status !== 'active') throw notFound(`Workflow definition not found: ${input.definitionId}.`);
  if (input.documentId !== undefined && input.organizationId === undefined) throw invalid('organizationId is required when documentId is given.');
  if (row.scopeLevel !== 'apiKey') {
    if (input.organizationId === undefined)
      throw invalid(`organizationId is required: this definition is scoped to ${row.scopeLevel === 'document' ? 'a document' : 'an organization'}.`);
    if (input.organizationId !== row.organizationId) throw notFound(`Workflow definition not found: ${input.definitionId}.`);
  }
  if (row.scopeLevel === 'document') {
    if (input.documentId === undefined) throw invalid('documentId is required: this definition is scoped to a document.');
    if (input.documentId !== row.documentId) throw notFound(`Workflow definition not found: ${input.definitionId}.`);
  }
  return row;
}

export async function getDefinition(deps: Deps, scope: TenantScope, input: z.output<typeof definitionGetInput>) {
  return describeDefinition(await requireActive(deps, scope, input));
}

export async function updateDefinition(deps: WriteDeps, scope: TenantScope, input: z.output<typeof definitionUpdateInput>) {
  const { ifVersion, ...body } = input;
  return deps.storage.transaction(async () => {
    await deps.storage.workflows.lock(scope, input.definitionId);
    const current = await deps.storage.workflows.find(scope, input.definitionId);
    if (!current || current.status !== 'active') throw notFound(`Workflow definition not found: ${input.definitionId}.`);
    if (current.version !== ifVersion) throw failedPrecondition(`Version conflict: expected ${ifVersion}, current ${current.version}`);
    const row = toRow(deps, body, current.version + 1, current.createdAt);
    await deps.storage.workflows.replace(scope, input.definitionId, row);
    return describeDefinition(row);
  }, ROW_LEVEL);
}

/** A tombstone (get answers NOT_FOUND; the id stays taken), or with `purge` the row is removed (tombstones too). */
export async function deleteDefinition(deps: Deps, scope: TenantScope, input: z.output<typeof definitionDeleteInput>) {
  return deps.storage.transaction(async () => {
    await deps.storage.workflows.lock(scope, input.definitionId);
    const row = await deps.storage.workflows.find(scope, input.definitionId);
    if (!row || (row.status === 'deleted' && !input.purge)) throw notFound(`Workflow definition not found: ${input.definitionId}.`);
    if (row.status === 'active') await requireActive(deps, scope, input);
    if (input.purge) await deps.storage.workflows.purge(scope, input.definitionId);
    else await deps.storage.workflows.tombstone(scope, input.definitionId, currentTime());
    return { deleted: true, purged: input.purge, definitionId: input.definitionId };
  }, ROW_LEVEL);
}

/** Active definitions by id; `{ items, nextCursor }`. */
export async function listDefinitions(deps: Deps & { pageTokens: PageTokens }, scope: TenantScope, input: z.output<typeof definitionListInput>) {
  const query = { op: 'workflow-definitions', apiKeyId: scope.apiKeyId };
  const cursor = readPageToken(deps, query, input.cursor, ['string'], 'cursor');
  const rows = await deps.storage.workflows.activePage(scope, cursor?.[0] as string | undefined, input.pageSize + 1);
  const page = paginate(rows, input.pageSize, (r) => [r.definitionId], deps.pageTokens, query);
  return { items: page.items.map(describeDefinition), nextCursor: page.pageToken };
}
