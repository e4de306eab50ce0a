import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('/v2/workspace/email/status', () => {
  it('is not verified for a new owner', async () => {
    const ws = await createWorkspace(t);
    const res = await t.callPublic('/v2/workspace/email/status', { ownerEmail: ws.ownerEmail });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({ status: 'success', message: 'Email not yet verified', data: { ownerEmail: ws.ownerEmail, verified: false } });
  });

  it('answers NOT_FOUND for an address that owns no workspace', async () => {
    const res = await t.callPublic('/v2/workspace/email/status', { ownerEmail: 'nobody@example.com' });
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'User not found' });
  });

  it('validates the e-mail', async () => {
    expect(errorOf(await t.callPublic('/v2/workspace/email/status', { ownerEmail: 'x' })).message).toBe('ownerEmail must be a valid email address.');
  });
});
