import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation } from '../../../../helpers/comments.ts';
import { startReceiver, type Receiver } from '../../../../helpers/receiver.ts';
import { dataOf, errorOf, eventually, resultOf, startTestServer, type TestServer } from '../../../../helpers/server.ts';
import { type EndpointAnswer, enableWithEndpoint, FAST_WEBHOOKS } from '../../../../helpers/webhooks.ts';

const PATH = '/v2/workspace/advancedwebhook/messages/replay';

interface AttemptsPage {
  attempts: { trigger: string; status: string }[];
}
let t: TestServer;
let a: Receiver;
let b: Receiver;
let endpointA: string;
let endpointB: string;
beforeAll(async () => {
  t = await startTestServer({ webhooks: FAST_WEBHOOKS });
  a = await startReceiver();
  b = await startReceiver();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  ({ id: endpointA } = await enableWithEndpoint(t, a.url));
  endpointB = dataOf<EndpointAnswer>(await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: b.url })).id;
  await addAnnotation(t, { commentData: [{ commentText: 'x', from: { userId: 'ann' } }] });
  await eventually(() => expect(a.received.length + b.received.length).toBe(2));
});
afterAll(async () => {
  await t.close();
  await a.close();
  await b.close();
});

describe(PATH, () => {
  it('sends the message again to one endpoint, or to all it went to', async () => {
    const messageId = String(a.received[0]!.headers['webhook-id']);
    const one = await t.callK(PATH, { messageId, endpointId: endpointB });
    expect(resultOf(one)).toEqual({ status: 'success', message: 'Advanced webhook message replay started.', data: { messageId, endpointIds: [endpointB] } });
    await eventually(() => expect(b.received).toHaveLength(2));
    expect(a.received).toHaveLength(1);
    const all = await t.callK(PATH, { messageId });
    expect(dataOf<{ endpointIds: string[] }>(all).endpointIds.sort()).toEqual([endpointA, endpointB].sort());
    await eventually(() => expect([a.received.length, b.received.length]).toEqual([2, 3]));
    expect(b.received[2]!.headers['webhook-id']).toBe(messageId);
  });

  it('keeps a replay asked for while an attempt of the same delivery is in flight', async () => {
    a.answer('hang');
    await addAnnotation(t, { commentData: [{ commentText: 'slow', from: { userId: 'ann' } }] });
    await eventually(() => expect(a.received).toHaveLength(3));
    const messageId = String(a.received[2]!.headers['webhook-id']);
    a.answer({ status: 200 });
    expect((await t.callK(PATH, { messageId, endpointId: endpointA })).status).toBe(200);
    // the held attempt now succeeds: its record must not swallow the replay
    a.release();
    await eventually(() => expect(a.received.filter((r) => r.headers['webhook-id'] === messageId)).toHaveLength(2));
    await eventually(async () => {
      const list = dataOf<AttemptsPage>(await t.callK('/v2/workspace/advancedwebhook/attempts/list', { messageId, endpointId: endpointA }));
      expect(list.attempts.map((i) => [i.trigger, i.status]).sort()).toEqual([
        ['replay', 'succeeded'],
        ['scheduled', 'succeeded'],
      ]);
    });
  });

  it('answers NOT_FOUND for an unknown message and refuses an endpoint that is gone', async () => {
    expect(errorOf(await t.callK(PATH, { messageId: 'msg_nope' }))).toEqual({
      status: 'NOT_FOUND',
      message: 'No delivery of this message exists for this API key.',
    });
    const messageId = String(a.received[0]!.headers['webhook-id']);
    await t.callK('/v2/workspace/advancedwebhook/endpoints/delete', { endpointId: endpointB });
    expect(errorOf(await t.callK(PATH, { messageId, endpointId: endpointB })).status).toBe('FAILED_PRECONDITION');
    expect(errorOf(await t.callK(PATH, {})).status).toBe('INVALID_ARGUMENT');
  });
});
