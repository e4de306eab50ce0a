import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { errorOf, startTestServer, type TestServer, answerOf } from '../../../helpers/server.ts';
import { REVIEW_FLOW } from '../../../helpers/workflows.ts';

interface Definition {
  definitionId: string;
  status: string;
  /** read to show a definition is not the classic envelope: it has no message */
  message?: unknown;
}

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
    expect(answerOf(res)).toMatchObject({
      definitionId: 'key-flow',
      version: 1,
      status: 'active',
      scope: { level: 'apiKey', organizationId: null, documentId: null },
    });
    expect(answerOf<Definition>(res).status).toBe('active');
    expect(answerOf<Definition>(res).message).toBeUndefined();
  });

  it('needs the organizationId of an organization-scoped definition and both ids of a document-scoped one', async () => {
    expect(errorOf(await get({ definitionId: 'org-flow' }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'organizationId is required: this definition is scoped to an organization.',
    });
    expect(answerOf<Definition>(await get({ definitionId: 'org-flow', organizationId: 'acme' })).definitionId).toBe('org-flow');
    expect(errorOf(await get({ definitionId: 'org-flow', organizationId: 'globex' })).status).toBe('NOT_FOUND');
    expect(errorOf(await get({ definitionId: 'doc-flow', organizationId: 'acme' }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'documentId is required: this definition is scoped to a document.',
    });
    expect(errorOf(await get({ definitionId: 'doc-flow', organizationId: 'acme', documentId: 'other' })).status).toBe('NOT_FOUND');
    expect(answerOf<Definition>(await get({ definitionId: 'doc-flow', organizationId: 'acme', documentId: 'launch' })).definitionId).toBe('doc-flow');
    expect(errorOf(await get({ definitionId: 'key-flow', documentId: 'launch' }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'organizationId is required when documentId is given.',
    });
  });

  it("answers NOT_FOUND for a missing, tombstoned or another key's definition", async () => {
    expect(errorOf(await get({ definitionId: 'nope' }))).toEqual({ status: 'NOT_FOUND', message: 'Workflow definition not found: nope.' });
    const other = await createWorkspace(t);
    expect(errorOf(await get({ definitionId: 'key-flow' }, other.headersK)).status).toBe('NOT_FOUND');
    await t.callK('/v2/workflow/definitions/delete', { definitionId: 'key-flow' });
    expect(errorOf(await get({ definitionId: 'key-flow' })).status).toBe('NOT_FOUND');
    expect(errorOf(await get({}))).toEqual({ status: 'INVALID_ARGUMENT', message: 'definitionId is required.' });
    // an id no definition can have is a bad argument, not a missing definition (delete alike)
    for (const definitionId of ['A B', 'x', '-lead']) {
      expect(errorOf(await get({ definitionId }))).toEqual({
        status: 'INVALID_ARGUMENT',
        message: 'definitionId must match ^[a-z0-9][a-z0-9-]{2,63}$ (DEFINITION_ID_INVALID).',
      });
      expect(errorOf(await t.callK('/v2/workflow/definitions/delete', { definitionId })).status).toBe('INVALID_ARGUMENT');
    }
  });
});
