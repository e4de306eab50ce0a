import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation } from '../../../../helpers/comments.ts';
import { startReceiver, type Receiver } from '../../../../helpers/receiver.ts';
import { dataOf, errorOf, eventually, resultOf, startTestServer, type TestServer } from '../../../../helpers/server.ts';
import { enableWithEndpoint, FAST_WEBHOOKS } from '../../../../helpers/webhooks.ts';

const PATH = '/v2/workspace/advancedwebhook/endpoints/recover';

interface AttemptsPage {
  attempts: unknown[];
}
let t: TestServer;
let r: Receiver;
let id: string;
beforeAll(async () => {
  t = await startTestServer({ webhooks: { ...FAST_WEBHOOKS, retryScheduleMs: [0] } });
  r = await startReceiver({ fallback: { status: 500 } });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  ({ id } = await enableWithEndpoint(t, r.url, { filterTypes: ['comment_annotation.add'] }));
});
afterAll(async () => {
  await t.close();
  await r.close();
});

describe(PATH, () => {
  it('resends only the failed deliveries created since the given time', async () => {
    await addAnnotation(t, { commentData: [{ commentText: 'old', from: { userId: 'ann' } }] });
    await eventually(() => expect(r.received).toHaveLength(1));
    await eventually(async () =>
      expect(dataOf<AttemptsPage>(await t.callK('/v2/workspace/advancedwebhook/attempts/list', { endpointId: id })).attempts).toHaveLength(1),
    );
    const since = Date.now() + 1;
    await eventually(() => expect(Date.now()).toBeGreaterThan(since));
    await addAnnotation(t, { commentData: [{ commentText: 'new', from: { userId: 'ann' } }] });
    await eventually(() => expect(r.received).toHaveLength(2));
    await eventually(async () =>
      expect(dataOf<AttemptsPage>(await t.callK('/v2/workspace/advancedwebhook/attempts/list', { endpointId: id, status: 'failed' })).attempts).toHaveLength(2),
    );
    r.answer({ status: 200 });
    const res = await t.callK(PATH, { endpointId: id, since });
    expect(resultOf(res)).toEqual({ status: 'success', message: 'Recovery started for 1 failed messages.', data: { endpointId: id, recovered: 1 } });
    await eventually(() => expect(r.received).toHaveLength(3));
    expect(JSON.parse(r.received[2]!.body).data.targetComment.commentText).toBe('new');
    // recovered: nothing left failed since then
    expect(dataOf<{ recovered: number }>(await t.callK(PATH, { endpointId: id, since: new Date(since).toISOString() })).recovered).toBe(0);
  });

  it('validates its input', async () => {
    expect(errorOf(await t.callK(PATH, { endpointId: id, since: 'yesterday' })).status).toBe('INVALID_ARGUMENT');
    expect(errorOf(await t.callK(PATH, { endpointId: 'ep_x', since: 0 })).status).toBe('NOT_FOUND');
    await t.callK('/v2/workspace/advancedwebhook/endpoints/update', { endpointId: id, disabled: true });
    expect(errorOf(await t.callK(PATH, { endpointId: id, since: 0 })).status).toBe('FAILED_PRECONDITION');
  });
});
