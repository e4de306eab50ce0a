import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../../helpers/factories.ts';
import { ApiError } from '../../../../../server/errors.ts';
import { startTestServer, type TestServer } from '../../../../helpers/server.ts';

const PATH = '/v2/workspace/advancedwebhook/endpoints/delete';
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
});
afterAll(() => t.close());

const create = async () =>
  (await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: 'https://hooks.example.com/x' })).body.result.data.id as string;

describe(PATH, () => {
  it('deletes for good: the endpoint and its secret are gone', async () => {
    const id = await create();
    const res = await t.callK(PATH, { endpointId: id });
    expect(res.body.result).toEqual({ status: 'success', message: 'Advanced webhook endpoint deleted successfully.', data: { endpointId: id, deleted: true } });
    expect((await t.callK('/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId: id })).body.error.status).toBe('NOT_FOUND');
    expect((await t.callK(PATH, { endpointId: id })).body.error).toEqual({ status: 'NOT_FOUND', message: 'Advanced webhook provider request failed.' });
  });

  it('answers done while the delivery worker restarts, since the delete is committed', async () => {
    const id = await create();
    const webhooks = t.server.app.webhooks;
    const cancelTarget = webhooks.cancelTarget;
    webhooks.cancelTarget = () => Promise.reject(new ApiError('UNAVAILABLE', 'Webhook delivery is restarting; try again in a few seconds.'));
    try {
      const res = await t.callK(PATH, { endpointId: id });
      expect(res.status).toBe(200);
      expect(res.body.result.data).toEqual({ endpointId: id, deleted: true });
    } finally {
      webhooks.cancelTarget = cancelTarget;
    }
    expect((await t.callK('/v2/workspace/advancedwebhook/endpoints/get', { endpointId: id })).body.error.status).toBe('NOT_FOUND');
  });

  it('cannot delete another key’s endpoint, and needs the feature enabled', async () => {
    const id = await create();
    const other = await createWorkspace(t);
    expect((await t.callK(PATH, { endpointId: id }, other.headersK)).body.error.status).toBe('FAILED_PRECONDITION');
    await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }, other.headersK);
    expect((await t.callK(PATH, { endpointId: id }, other.headersK)).body.error.status).toBe('NOT_FOUND');
    expect((await t.callK('/v2/workspace/advancedwebhook/endpoints/get', { endpointId: id })).status).toBe(200);
    expect((await t.callK(PATH, {})).body.error.status).toBe('INVALID_ARGUMENT');
  });
});
