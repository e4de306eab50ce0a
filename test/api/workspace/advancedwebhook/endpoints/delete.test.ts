import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../../helpers/factories.ts';
import { ApiError } from '../../../../../server/errors.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../../helpers/server.ts';
import type { EndpointAnswer } from '../../../../helpers/webhooks.ts';

const PATH = '/v2/workspace/advancedwebhook/endpoints/delete';
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
});
afterAll(() => t.close());

const create = async () => dataOf<EndpointAnswer>(await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: 'https://hooks.example.com/x' })).id;

describe(PATH, () => {
  it('deletes for good: the endpoint and its secret are gone', async () => {
    const id = await create();
    const res = await t.callK(PATH, { endpointId: id });
    expect(resultOf(res)).toEqual({ status: 'success', message: 'Advanced webhook endpoint deleted successfully.', data: { endpointId: id, deleted: true } });
    expect(errorOf(await t.callK('/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId: id })).status).toBe('NOT_FOUND');
    expect(errorOf(await t.callK(PATH, { endpointId: id }))).toEqual({ status: 'NOT_FOUND', message: 'Advanced webhook provider request failed.' });
  });

  it('answers done while the delivery worker restarts, since the delete is committed', async () => {
    const id = await create();
    const webhooks = t.server.app.webhooks;
    const cancelTarget = webhooks.cancelTarget;
    webhooks.cancelTarget = () => Promise.reject(new ApiError('UNAVAILABLE', 'Webhook delivery is restarting; try again in a few seconds.'));
    try {
      const res = await t.callK(PATH, { endpointId: id });
      expect(res.status).toBe(200);
      expect(dataOf<unknown>(res)).toEqual({ endpointId: id, deleted: true });
    } finally {
      webhooks.cancelTarget = cancelTarget;
    }
    expect(errorOf(await t.callK('/v2/workspace/advancedwebhook/endpoints/get', { endpointId: id })).status).toBe('NOT_FOUND');
  });

  it('cannot delete another key’s endpoint, and needs the feature enabled', async () => {
    const id = await create();
    const other = await createWorkspace(t);
    expect(errorOf(await t.callK(PATH, { endpointId: id }, other.headersK)).status).toBe('FAILED_PRECONDITION');
    await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }, other.headersK);
    expect(errorOf(await t.callK(PATH, { endpointId: id }, other.headersK)).status).toBe('NOT_FOUND');
    expect((await t.callK('/v2/workspace/advancedwebhook/endpoints/get', { endpointId: id })).status).toBe(200);
    expect(errorOf(await t.callK(PATH, {})).status).toBe('INVALID_ARGUMENT');
  });
});
