import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation } from '../../../../helpers/comments.ts';
import { createWorkspace } from '../../../../helpers/factories.ts';
import { startReceiver, type Receiver } from '../../../../helpers/receiver.ts';
import { eventually, startTestServer, type TestServer } from '../../../../helpers/server.ts';
import { enableWithEndpoint, FAST_WEBHOOKS } from '../../../../helpers/webhooks.ts';

const PATH = '/v2/workspace/advancedwebhook/attempts/list';
let t: TestServer;
let r: Receiver;
let endpointId: string;
beforeAll(async () => {
  t = await startTestServer({ webhooks: FAST_WEBHOOKS });
  r = await startReceiver({ script: [{ status: 503, body: 'down' }] });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  ({ id: endpointId } = await enableWithEndpoint(t, r.url));
  for (const text of ['a', 'b']) await addAnnotation(t, { commentData: [{ commentText: text, from: { userId: 'ann' } }] });
  await eventually(async () => expect((await t.callK(PATH, { endpointId })).body.result.data.attempts).toHaveLength(3));
});
afterAll(async () => {
  await t.close();
  await r.close();
});

describe(PATH, () => {
  it("lists an endpoint's attempts newest first, with code, duration and response", async () => {
    const res = await t.callK(PATH, { endpointId });
    expect(res.body.result.message).toBe('Advanced webhook attempts retrieved successfully.');
    const attempts = res.body.result.data.attempts;
    expect(attempts.map((a: { status: string }) => a.status).sort()).toEqual(['failed', 'succeeded', 'succeeded']);
    const failed = attempts.find((a: { status: string }) => a.status === 'failed');
    expect(failed).toMatchObject({
      id: expect.stringMatching(/^atmpt_/),
      messageId: expect.stringMatching(/^msg_/),
      endpointId,
      url: r.url,
      trigger: 'scheduled',
      responseStatusCode: 503,
      response: 'down',
      responseDurationMs: expect.any(Number),
    });
    const times = attempts.map((a: { timestamp: string }) => Date.parse(a.timestamp));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
  });

  it('filters by message and status, and pages', async () => {
    const failed = (await t.callK(PATH, { endpointId, status: 'failed' })).body.result.data.attempts;
    expect(failed).toHaveLength(1);
    const ofMessage = (await t.callK(PATH, { messageId: failed[0].messageId })).body.result.data.attempts;
    expect(ofMessage.map((a: { status: string }) => a.status)).toEqual(['succeeded', 'failed']);
    const first = (await t.callK(PATH, { endpointId, limit: 2 })).body.result.data;
    expect(first.attempts).toHaveLength(2);
    expect(first.done).toBe(false);
    const second = (await t.callK(PATH, { endpointId, limit: 2, iterator: first.iterator })).body.result.data;
    expect(second.attempts).toHaveLength(1);
    expect(second.done).toBe(true);
    // a token made for one filter is not valid for another
    expect((await t.callK(PATH, { endpointId, status: 'failed', limit: 2, iterator: first.iterator })).body.error.status).toBe('INVALID_ARGUMENT');
  });

  it('needs an endpointId or a messageId, and shows nothing of another key', async () => {
    const res = await t.callK(PATH, {});
    expect(res.body.error.status).toBe('INVALID_ARGUMENT');
    expect(res.body.error.message).toContain('endpointId or messageId is required');
    const other = await createWorkspace(t);
    expect((await t.callK(PATH, { endpointId }, other.headersK)).body.result.data.attempts).toEqual([]);
  });
});
