import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';
import { REVIEW_FLOW } from '../../../helpers/workflows.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/workflow/definitions/create', { definitionId: 'key-flow', ...REVIEW_FLOW });
  await t.callK('/v2/workflow/definitions/create', { definitionId: 'org-flow', ...REVIEW_FLOW, organizationId: 'acme' });
  await t.callK('/v2/workflow/definitions/create', { definitionId: 'doc-flow', ...REVIEW_FLOW, organizationId: 'acme', documentId: 'launch' });
});
afterAll(() => t.close());

const get = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK('/v2/workflow/definitions/get', data, headers);

describe('/v2/workflow/definitions/get', () => {
  it('returns the definition itself as the result', async () => {
    const res = await get({ definitionId: 'key-flow' });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      definitionId: 'key-flow',
      version: 1,
      status: 'active',
      scope: { level: 'apiKey', organizationId: null, documentId: null },
    });
    expect(res.body.result.status).toBe('active');
    expect(res.body.result.message).toBeUndefined();
  });

  it('needs the organizationId of an organization-scoped definition and both ids of a document-scoped one', async () => {
    expect((await get({ definitionId: 'org-flow' })).body.error).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'organizationId is required: this definition is scoped to an organization.',
    });
    expect((await get({ definitionId: 'org-flow', organizationId: 'acme' })).body.result.definitionId).toBe('org-flow');
    expect((await get({ definitionId: 'org-flow', organizationId: 'globex' })).body.error.status).toBe('NOT_FOUND');
    expect((await get({ definitionId: 'doc-flow', organizationId: 'acme' })).body.error).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'documentId is required: this definition is scoped to a document.',
    });
    expect((await get({ definitionId: 'doc-flow', organizationId: 'acme', documentId: 'other' })).body.error.status).toBe('NOT_FOUND');
    expect((await get({ definitionId: 'doc-flow', organizationId: 'acme', documentId: 'launch' })).body.result.definitionId).toBe('doc-flow');
    expect((await get({ definitionId: 'key-flow', documentId: 'launch' })).body.error).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'organizationId is required when documentId is given.',
    });
  });

  it("answers NOT_FOUND for a missing, tombstoned or another key's definition", async () => {
    expect((await get({ definitionId: 'nope' })).body.error).toEqual({ status: 'NOT_FOUND', message: 'Workflow definition not found: nope.' });
    const other = await createWorkspace(t);
    expect((await get({ definitionId: 'key-flow' }, other.headersK)).body.error.status).toBe('NOT_FOUND');
    await t.callK('/v2/workflow/definitions/delete', { definitionId: 'key-flow' });
    expect((await get({ definitionId: 'key-flow' })).body.error.status).toBe('NOT_FOUND');
    expect((await get({})).body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'definitionId is required.' });
    // an id no definition can have is a bad argument, not a missing definition (delete alike)
    for (const definitionId of ['A B', 'x', '-lead']) {
      expect((await get({ definitionId })).body.error).toEqual({
        status: 'INVALID_ARGUMENT',
        message: 'definitionId must match ^[a-z0-9][a-z0-9-]{2,63}$ (DEFINITION_ID_INVALID).',
      });
      expect((await t.callK('/v2/workflow/definitions/delete', { definitionId })).body.error.status).toBe('INVALID_ARGUMENT');
    }
  });
});
