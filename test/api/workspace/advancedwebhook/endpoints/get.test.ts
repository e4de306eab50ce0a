import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../../helpers/server.ts';

const PATH = '/v2/workspace/advancedwebhook/endpoints/get';
let t: TestServer;
const ids: string[] = [];
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
  for (let i = 0; i < 5; i++)
    ids.push((await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: `https://hooks.example.com/${i}` })).body.result.data.id);
});
afterAll(() => t.close());

describe(PATH, () => {
  it('lists every endpoint oldest first', async () => {
    const res = await t.callK(PATH, {});
    expect(res.body.result.message).toBe('Advanced webhook endpoints retrieved successfully.');
    expect(res.body.result.data).toMatchObject({ iterator: null, prevIterator: null, done: true });
    expect(res.body.result.data.endpoints.map((e: { id: string }) => e.id)).toEqual(ids);
  });

  it('pages with limit and iterator, also under the list alias', async () => {
    const seen: string[] = [];
    let iterator: string | null = null;
    let pages = 0;
    do {
      const res: any = await t.callK('/v2/workspace/advancedwebhook/endpoints/list', { limit: 2, ...(iterator ? { iterator } : {}) });
      seen.push(...res.body.result.data.endpoints.map((e: { id: string }) => e.id));
      iterator = res.body.result.data.iterator;
      expect(res.body.result.data.done).toBe(iterator === null);
      pages++;
    } while (iterator);
    expect(seen).toEqual(ids);
    expect(pages).toBe(3);
    expect((await t.callK(PATH, { limit: 251 })).body.error.status).toBe('INVALID_ARGUMENT');
    expect((await t.callK(PATH, { iterator: 'forged.token' })).body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'Invalid pageToken.' });
  });

  it('gets one endpoint by id; unknown or foreign ids are NOT_FOUND', async () => {
    const one = await t.callK(PATH, { endpointId: ids[2] });
    expect(one.body.result.data.endpoints).toHaveLength(1);
    expect(one.body.result.data.endpoints[0].url).toBe('https://hooks.example.com/2');
    expect((await t.callK(PATH, { endpointId: 'ep_missing' })).body.error).toEqual({
      status: 'NOT_FOUND',
      message: 'Advanced webhook provider request failed.',
    });
    const other = await createWorkspace(t);
    await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }, other.headersK);
    expect((await t.callK(PATH, { endpointId: ids[0] }, other.headersK)).body.error.status).toBe('NOT_FOUND');
    expect((await t.callK(PATH, {}, other.headersK)).body.result.data.endpoints).toEqual([]);
  });

  it('says "not configured" to a key that never configured advanced webhooks, "disabled" once they are off', async () => {
    const k = await createWorkspace(t);
    const never = await t.callK(PATH, {}, k.headersK);
    expect(never.status).toBe(400);
    expect(never.body.error).toEqual({
      status: 'FAILED_PRECONDITION',
      message:
        'Advanced webhooks are not configured for this workspace. Enable them first via POST /v2/workspace/advancedwebhookconfig/update with { "isEnabled": true }.',
    });
    await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }, k.headersK);
    await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: false }, k.headersK);
    const off = await t.callK(PATH, {}, k.headersK);
    expect(off.body.error).toEqual({
      status: 'FAILED_PRECONDITION',
      message: 'Advanced webhooks are disabled for this workspace. Enable them via POST /v2/workspace/advancedwebhookconfig/update with { "isEnabled": true }.',
    });
  });
});
