import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestServer, type TestServer } from '../../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('/v2/users/data/delete/status', () => {
  it('reports a job through to completed', async () => {
    const { jobId } = (await t.callK('/v2/users/data/delete', { userId: 'someone' })).body.result.data;
    const first = await t.callK('/v2/users/data/delete/status', { jobId });
    expect(first.status).toBe(200);
    expect(first.body.result.message).toBe('User data deletion status retrieved successfully.');
    expect(['pending', 'in_progress', 'completed']).toContain(first.body.result.data.status);
    await eventually(async () =>
      expect((await t.callK('/v2/users/data/delete/status', { jobId })).body.result.data).toMatchObject({
        status: 'completed',
        error: null,
        completedAt: expect.any(Number),
      }),
    );
  });

  it('answers NOT_FOUND for an unknown job and validates the input', async () => {
    const res = await t.callK('/v2/users/data/delete/status', { jobId: 'del_nope' });
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ status: 'NOT_FOUND', message: 'Deletion job not found.' });
    expect((await t.callK('/v2/users/data/delete/status', {})).body.error.message).toBe('jobId is required.');
  });
});
