import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { errorOf, startTestServer, type TestServer, answerOf } from '../../../helpers/server.ts';
import { REVIEW_FLOW } from '../../../helpers/workflows.ts';

interface Definition {
  definitionId: string;
  version: number;
}

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
    expect(errorOf(await del({ definitionId: 'legal-review' }, other.headersK)).status).toBe('NOT_FOUND');
    expect(answerOf(await del({ definitionId: 'legal-review' }))).toEqual({ deleted: true, purged: false, definitionId: 'legal-review' });
    expect(errorOf(await del({ definitionId: 'legal-review' })).status).toBe('NOT_FOUND');
    expect(answerOf<{ items: Definition[] }>(await t.callK('/v2/workflow/definitions/list', {})).items).toEqual([]);
    const again = await t.callK('/v2/workflow/definitions/create', { definitionId: 'legal-review', ...REVIEW_FLOW });
    expect(errorOf(again)).toEqual({
      status: 'ALREADY_EXISTS',
      message: 'Workflow definition legal-review was deleted; delete it with purge: true to reuse its id.',
    });
    expect(answerOf(await del({ definitionId: 'legal-review', purge: true }))).toEqual({ deleted: true, purged: true, definitionId: 'legal-review' });
    expect(answerOf<Definition>(await t.callK('/v2/workflow/definitions/create', { definitionId: 'legal-review', ...REVIEW_FLOW })).version).toBe(1);
  });

  it('purges an active definition at once, and validates its input', async () => {
    await t.callK('/v2/workflow/definitions/create', { definitionId: 'short-lived', ...REVIEW_FLOW, organizationId: 'acme' });
    expect(errorOf(await del({ definitionId: 'short-lived', purge: true })).message).toBe(
      'organizationId is required: this definition is scoped to an organization.',
    );
    expect(answerOf<{ purged: boolean }>(await del({ definitionId: 'short-lived', purge: true, organizationId: 'acme' })).purged).toBe(true);
    expect(errorOf(await del({ definitionId: 'short-lived', purge: true })).status).toBe('NOT_FOUND');
    expect(errorOf(await del({ definitionId: 'x', purge: 'yes' })).status).toBe('INVALID_ARGUMENT');
  });
});
