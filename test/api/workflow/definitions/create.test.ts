import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { errorOf, startTestServer, type TestServer, answerOf } from '../../../helpers/server.ts';
import { REVIEW_FLOW } from '../../../helpers/workflows.ts';

interface Definition {
  scope: { level: string; organizationId: string | null; documentId: string | null };
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const create = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK('/v2/workflow/definitions/create', data, headers);
const ruleOf = async (data: Record<string, unknown>) => {
  const res = await create({ definitionId: 'rule-check', ...REVIEW_FLOW, ...data });
  expect(errorOf(res).status).toBe('INVALID_ARGUMENT');
  return errorOf(res).message as string;
};

describe('/v2/workflow/definitions/create', () => {
  it('creates a definition at version 1 with the compiled view and explicit nulls', async () => {
    const res = await create({
      definitionId: 'legal-review',
      ...REVIEW_FLOW,
      webhookConfig: { url: 'https://hooks.example.com/x', secret: 'a-secret-of-16-chars' },
    });
    expect(res.status).toBe(200);
    expect(answerOf(res)).toEqual({
      definitionId: 'legal-review',
      name: 'Legal review',
      description: null,
      version: 1,
      scope: { level: 'apiKey', organizationId: null, documentId: null },
      nodes: [
        { nodeId: 'draft', type: 'agent', config: { agentId: 'claims' } },
        { nodeId: 'legal', type: 'human', config: {} },
        { nodeId: 'publish', type: 'webhook', config: {} },
      ],
      edges: [
        { from: 'draft', to: 'legal', on: 'always' },
        { from: 'legal', to: 'publish', on: 'approve' },
        { from: 'legal', to: 'draft', on: 'reject', loop: { maxIterations: 3 } },
      ],
      groups: [],
      compiled: {
        forwardEdges: [
          { from: 'draft', to: 'legal', role: 'always', when: null },
          { from: 'legal', to: 'publish', role: 'approve', when: { op: 'eq', args: [{ var: 'output.decision' }, 'approve'] } },
        ],
        loops: [{ from: 'legal', to: 'draft', maxIterations: 3 }],
      },
      triggers: null,
      tags: null,
      custom: null,
      webhookConfig: { url: 'https://hooks.example.com/x', eventTypes: null },
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      status: 'active',
    });
    expect(JSON.stringify(res.body)).not.toContain('a-secret-of-16-chars');
  });

  it('refuses a taken id (per API key)', async () => {
    expect(errorOf(await create({ definitionId: 'legal-review', ...REVIEW_FLOW }))).toEqual({
      status: 'ALREADY_EXISTS',
      message: 'Workflow definition already exists: legal-review.',
    });
    const other = await createWorkspace(t);
    expect((await create({ definitionId: 'legal-review', ...REVIEW_FLOW }, other.headersK)).status).toBe(200);
  });

  it('checks the definition rules, naming each rule in the message', async () => {
    expect(errorOf(await create({ definitionId: 'Bad_Id', ...REVIEW_FLOW })).message).toContain('DEFINITION_ID_INVALID');
    expect(errorOf(await create({ definitionId: 'ab', ...REVIEW_FLOW })).status).toBe('INVALID_ARGUMENT');
    expect(
      await ruleOf({
        edges: [
          { from: 'draft', to: 'legal' },
          { from: 'legal', to: 'publish', on: 'approve' },
        ],
      }),
    ).toBe('APPROVAL_HUMAN_NODE_REQUIRES_REJECT_PATH: human node "legal" needs an outgoing edge with on: "reject".');
    expect(await ruleOf({ edges: [...REVIEW_FLOW.edges.slice(0, 2), { from: 'legal', to: 'draft', on: 'reject' }] })).toMatch(/^CYCLE_WITHOUT_LOOP: /);
    expect(
      await ruleOf({
        edges: [
          ...REVIEW_FLOW.edges.slice(0, 2),
          { from: 'legal', to: 'draft', on: 'approve', loop: { maxIterations: 2 } },
          { from: 'legal', to: 'publish', on: 'reject' },
        ],
      }),
    ).toMatch(/^LOOP_REQUIRES_REJECT_EDGE: /);
    expect(await ruleOf({ edges: [...REVIEW_FLOW.edges.slice(0, 2), { from: 'legal', to: 'publish', on: 'reject', loop: { maxIterations: 2 } }] })).toMatch(
      /^LOOP_REQUIRES_BACK_EDGE: /,
    );
    expect(await ruleOf({ edges: [...REVIEW_FLOW.edges, { from: 'legal', to: 'nowhere' }] })).toBe(
      'EDGE_UNKNOWN_NODE: edges[3] refers to node "nowhere", which is not among the nodes.',
    );
    expect(await ruleOf({ nodes: [...REVIEW_FLOW.nodes, { nodeId: 'draft', type: 'notification' }] })).toMatch(/^DUPLICATE_NODE_ID: /);
    expect(await ruleOf({ edges: [...REVIEW_FLOW.edges, { from: 'draft', to: 'publish', when: { op: 'eq' } }] })).toMatch(/^EDGE_WHEN_REQUIRES_CUSTOM: /);
    expect(await ruleOf({ edges: [...REVIEW_FLOW.edges, { from: 'draft', to: 'publish', on: 'custom' }] })).toMatch(/^EDGE_CUSTOM_REQUIRES_WHEN: /);
    expect(await ruleOf({ edges: [...REVIEW_FLOW.edges, { from: 'draft', to: 'legal' }] })).toMatch(/^DUPLICATE_EDGE: /);
    expect(await ruleOf({ groups: [{ groupId: 'g', nodeIds: ['draft', 'ghost'] }] })).toMatch(/^GROUP_UNKNOWN_NODE: /);
    expect(await ruleOf({ scope: { level: 'document', organizationId: 'acme' } })).toMatch(/^SCOPE_REQUIRES_DOCUMENT: /);
    expect(await ruleOf({ scope: { level: 'organization' } })).toMatch(/^SCOPE_REQUIRES_ORGANIZATION: /);
    // structural limits
    expect(await ruleOf({ nodes: [] })).toBe('nodes must have at least 1 item(s).');
    expect(await ruleOf({ nodes: [{ nodeId: 'x', type: 'robot' }] })).toMatch(/^nodes\[0\]\.type must be one of: agent, human, notification, webhook\.$/);
    expect(await ruleOf({ edges: [...REVIEW_FLOW.edges.slice(0, 2), { from: 'legal', to: 'draft', on: 'reject', loop: { maxIterations: 21 } }] })).toMatch(
      /maxIterations must be at most 20/,
    );
    expect(await ruleOf({ webhookConfig: { url: 'https://x.example', secret: 'short' } })).toMatch(/secret must be at least 16 characters/);
    expect(errorOf(await t.callK('/v2/workflow/definitions/get', { definitionId: 'rule-check' })).status).toBe('NOT_FOUND');
  });

  it('scopes a definition to an organization or a document', async () => {
    const org = await create({ definitionId: 'org-flow', ...REVIEW_FLOW, organizationId: 'acme' });
    expect(answerOf<Definition>(org).scope).toEqual({ level: 'organization', organizationId: 'acme', documentId: null });
    const doc = await create({ definitionId: 'doc-flow', ...REVIEW_FLOW, scope: { level: 'document', organizationId: 'acme', documentId: 'launch' } });
    expect(answerOf<Definition>(doc).scope).toEqual({ level: 'document', organizationId: 'acme', documentId: 'launch' });
  });
});
