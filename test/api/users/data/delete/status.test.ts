import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, errorOf, eventually, resultOf, startTestServer, type TestServer } from '../../../../helpers/server.ts';

interface ErasureStatus {
  jobId: string;
  status: string;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('/v2/users/data/delete/status', () => {
  it('reports a job through to completed', async () => {
    const { jobId } = dataOf<ErasureStatus>(await t.callK('/v2/users/data/delete', { userId: 'someone' }));
    const first = await t.callK('/v2/users/data/delete/status', { jobId });
    expect(first.status).toBe(200);
    expect(resultOf(first).message).toBe('User data deletion status retrieved successfully.');
    expect(['pending', 'in_progress', 'completed']).toContain(dataOf<ErasureStatus>(first).status);
    await eventually(async () =>
      expect(dataOf(await t.callK('/v2/users/data/delete/status', { jobId }))).toMatchObject({
        status: 'completed',
        error: null,
        completedAt: expect.any(Number),
      }),
    );
  });

  it('answers NOT_FOUND for an unknown job and validates the input', async () => {
    const res = await t.callK('/v2/users/data/delete/status', { jobId: 'del_nope' });
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'Deletion job not found.' });
    expect(errorOf(await t.callK('/v2/users/data/delete/status', {})).message).toBe('jobId is required.');
  });
});
