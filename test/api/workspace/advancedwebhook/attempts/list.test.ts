import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation } from '../../../../helpers/comments.ts';
import { createWorkspace } from '../../../../helpers/factories.ts';
import { startReceiver, type Receiver } from '../../../../helpers/receiver.ts';
import { dataOf, errorOf, eventually, resultOf, startTestServer, type TestServer } from '../../../../helpers/server.ts';
import { enableWithEndpoint, FAST_WEBHOOKS } from '../../../../helpers/webhooks.ts';

const PATH = '/v2/workspace/advancedwebhook/attempts/list';

/** A delivery attempt as attempts/list answers it (the fields read here). */
interface Attempt {
  messageId: string;
  status: string;
  timestamp: string;
}
interface AttemptsPage {
  attempts: Attempt[];
  iterator: string | null;
  done: boolean;
}
let t: TestServer;
let r: Receiver;
let endpointId: string;
beforeAll(async () => {
  t = await startTestServer({ webhooks: FAST_WEBHOOKS });
  r = await startReceiver({ script: [{ status: 503, body: 'down' }] });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  ({ id: endpointId } = await enableWithEndpoint(t, r.url));
  for (const text of ['a', 'b']) await addAnnotation(t, { commentData: [{ commentText: text, from: { userId: 'ann' } }] });
  await eventually(async () => expect(dataOf<AttemptsPage>(await t.callK(PATH, { endpointId })).attempts).toHaveLength(3));
});
afterAll(async () => {
  await t.close();
  await r.close();
});

describe(PATH, () => {
  it("lists an endpoint's attempts newest first, with code, duration and response", async () => {
    const res = await t.callK(PATH, { endpointId });
    expect(resultOf(res).message).toBe('Advanced webhook attempts retrieved successfully.');
    const attempts = dataOf<AttemptsPage>(res).attempts;
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
    const failed = dataOf<AttemptsPage>(await t.callK(PATH, { endpointId, status: 'failed' })).attempts;
    expect(failed).toHaveLength(1);
    const ofMessage = dataOf<AttemptsPage>(await t.callK(PATH, { messageId: failed[0]!.messageId })).attempts;
    expect(ofMessage.map((a: { status: string }) => a.status)).toEqual(['succeeded', 'failed']);
    const first = dataOf<AttemptsPage>(await t.callK(PATH, { endpointId, limit: 2 }));
    expect(first.attempts).toHaveLength(2);
    expect(first.done).toBe(false);
    const second = dataOf<AttemptsPage>(await t.callK(PATH, { endpointId, limit: 2, iterator: first.iterator }));
    expect(second.attempts).toHaveLength(1);
    expect(second.done).toBe(true);
    // a token made for one filter is not valid for another
    expect(errorOf(await t.callK(PATH, { endpointId, status: 'failed', limit: 2, iterator: first.iterator })).status).toBe('INVALID_ARGUMENT');
  });

  it('needs an endpointId or a messageId, and shows nothing of another key', async () => {
    const res = await t.callK(PATH, {});
    expect(errorOf(res).status).toBe('INVALID_ARGUMENT');
    expect(errorOf(res).message).toContain('endpointId or messageId is required');
    const other = await createWorkspace(t);
    expect(dataOf<AttemptsPage>(await t.callK(PATH, { endpointId }, other.headersK)).attempts).toEqual([]);
  });
});
