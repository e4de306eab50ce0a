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

const update = (data: Record<string, unknown>, headers?: Record<string, string>) =>
  t.callK('/v2/workflow/definitions/update', { definitionId: 'legal-review', ...REVIEW_FLOW, ...data }, headers);

describe('/v2/workflow/definitions/update', () => {
  it('replaces the definition when ifVersion matches, and increments the version', async () => {
    const res = await update({ ifVersion: 1, name: 'Legal review v2', tags: ['legal'] });
    expect(res.body.result).toMatchObject({ definitionId: 'legal-review', name: 'Legal review v2', version: 2, tags: ['legal'] });
    const got = (await t.callK('/v2/workflow/definitions/get', { definitionId: 'legal-review' })).body.result;
    expect(got.version).toBe(2);
    expect(got.updatedAt).toBeGreaterThanOrEqual(got.createdAt);
  });

  it('refuses a stale ifVersion with FAILED_PRECONDITION and changes nothing', async () => {
    expect((await update({ ifVersion: 1, name: 'lost update' })).body.error).toEqual({
      status: 'FAILED_PRECONDITION',
      message: 'Version conflict: expected 1, current 2',
    });
    // two writers with the same version: exactly one wins
    const [a, b] = await Promise.all([update({ ifVersion: 2, name: 'A' }), update({ ifVersion: 2, name: 'B' })]);
    expect([a.status, b.status].sort()).toEqual([200, 400]);
    expect((await t.callK('/v2/workflow/definitions/get', { definitionId: 'legal-review' })).body.result.version).toBe(3);
  });

  it('checks the rules, needs ifVersion, and answers NOT_FOUND across keys and for tombstones', async () => {
    expect((await update({ ifVersion: 3, edges: [] })).body.error.message).toMatch(/^APPROVAL_HUMAN_NODE_REQUIRES_REJECT_PATH: /);
    expect((await update({})).body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'ifVersion is required.' });
    const other = await createWorkspace(t);
    expect((await update({ ifVersion: 3 }, other.headersK)).body.error.status).toBe('NOT_FOUND');
    await t.callK('/v2/workflow/definitions/delete', { definitionId: 'legal-review' });
    expect((await update({ ifVersion: 3 })).body.error.status).toBe('NOT_FOUND');
  });
});
