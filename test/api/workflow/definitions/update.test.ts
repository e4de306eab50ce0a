import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { errorOf, startTestServer, type TestServer, answerOf } from '../../../helpers/server.ts';
import { REVIEW_FLOW } from '../../../helpers/workflows.ts';

interface Definition {
  version: number;
  createdAt: number;
  updatedAt: number;
}

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
    expect(answerOf(res)).toMatchObject({ definitionId: 'legal-review', name: 'Legal review v2', version: 2, tags: ['legal'] });
    const got = answerOf<Definition>(await t.callK('/v2/workflow/definitions/get', { definitionId: 'legal-review' }));
    expect(got.version).toBe(2);
    expect(got.updatedAt).toBeGreaterThanOrEqual(got.createdAt);
  });

  it('refuses a stale ifVersion with FAILED_PRECONDITION and changes nothing', async () => {
    expect(errorOf(await update({ ifVersion: 1, name: 'lost update' }))).toEqual({
      status: 'FAILED_PRECONDITION',
      message: 'Version conflict: expected 1, current 2',
    });
    // two writers with the same version: exactly one wins
    const [a, b] = await Promise.all([update({ ifVersion: 2, name: 'A' }), update({ ifVersion: 2, name: 'B' })]);
    expect([a.status, b.status].sort()).toEqual([200, 400]);
    expect(answerOf<Definition>(await t.callK('/v2/workflow/definitions/get', { definitionId: 'legal-review' })).version).toBe(3);
  });

  it('checks the rules, needs ifVersion, and answers NOT_FOUND across keys and for tombstones', async () => {
    expect(errorOf(await update({ ifVersion: 3, edges: [] })).message).toMatch(/^APPROVAL_HUMAN_NODE_REQUIRES_REJECT_PATH: /);
    expect(errorOf(await update({}))).toEqual({ status: 'INVALID_ARGUMENT', message: 'ifVersion is required.' });
    const other = await createWorkspace(t);
    expect(errorOf(await update({ ifVersion: 3 }, other.headersK)).status).toBe('NOT_FOUND');
    await t.callK('/v2/workflow/definitions/delete', { definitionId: 'legal-review' });
    expect(errorOf(await update({ ifVersion: 3 })).status).toBe('NOT_FOUND');
  });
});
