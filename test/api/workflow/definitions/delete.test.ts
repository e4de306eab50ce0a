import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';
import { REVIEW_FLOW } from '../../../helpers/workflows.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/workflow/definitions/create', { definitionId: 'legal-review', ...REVIEW_FLOW });
});
afterAll(() => t.close());

const del = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK('/v2/workflow/definitions/delete', data, headers);

describe('/v2/workflow/definitions/delete', () => {
  it('leaves a tombstone that keeps the id taken until purged', async () => {
    const other = await createWorkspace(t);
    expect((await del({ definitionId: 'legal-review' }, other.headersK)).body.error.status).toBe('NOT_FOUND');
    expect((await del({ definitionId: 'legal-review' })).body.result).toEqual({ deleted: true, purged: false, definitionId: 'legal-review' });
    expect((await del({ definitionId: 'legal-review' })).body.error.status).toBe('NOT_FOUND');
    expect((await t.callK('/v2/workflow/definitions/list', {})).body.result.items).toEqual([]);
    const again = await t.callK('/v2/workflow/definitions/create', { definitionId: 'legal-review', ...REVIEW_FLOW });
    expect(again.body.error).toEqual({
      status: 'ALREADY_EXISTS',
      message: 'Workflow definition legal-review was deleted; delete it with purge: true to reuse its id.',
    });
    expect((await del({ definitionId: 'legal-review', purge: true })).body.result).toEqual({ deleted: true, purged: true, definitionId: 'legal-review' });
    expect((await t.callK('/v2/workflow/definitions/create', { definitionId: 'legal-review', ...REVIEW_FLOW })).body.result.version).toBe(1);
  });

  it('purges an active definition at once, and validates its input', async () => {
    await t.callK('/v2/workflow/definitions/create', { definitionId: 'short-lived', ...REVIEW_FLOW, organizationId: 'acme' });
    expect((await del({ definitionId: 'short-lived', purge: true })).body.error.message).toBe(
      'organizationId is required: this definition is scoped to an organization.',
    );
    expect((await del({ definitionId: 'short-lived', purge: true, organizationId: 'acme' })).body.result.purged).toBe(true);
    expect((await del({ definitionId: 'short-lived', purge: true })).body.error.status).toBe('NOT_FOUND');
    expect((await del({ definitionId: 'x', purge: 'yes' })).body.error.status).toBe('INVALID_ARGUMENT');
  });
});
