import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type CallResult, type TestServer } from '../../../../helpers/server.ts';
import type { EndpointAnswer } from '../../../../helpers/webhooks.ts';

const PATH = '/v2/workspace/advancedwebhook/endpoints/get';

/** A page of endpoints/get (and its list alias). */
interface EndpointsPage {
  endpoints: EndpointAnswer[];
  iterator: string | null;
  done: boolean;
}
let t: TestServer;
const ids: string[] = [];
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
  for (let i = 0; i < 5; i++)
    ids.push(dataOf<EndpointAnswer>(await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: `https://hooks.example.com/${i}` })).id);
});
afterAll(() => t.close());

describe(PATH, () => {
  it('lists every endpoint oldest first', async () => {
    const res = await t.callK(PATH, {});
    expect(resultOf(res).message).toBe('Advanced webhook endpoints retrieved successfully.');
    expect(dataOf<EndpointsPage>(res)).toMatchObject({ iterator: null, prevIterator: null, done: true });
    expect(dataOf<EndpointsPage>(res).endpoints.map((e: { id: string }) => e.id)).toEqual(ids);
  });

  it('pages with limit and iterator, also under the list alias', async () => {
    const seen: string[] = [];
    let iterator: string | null = null;
    let pages = 0;
    do {
      const res: CallResult = await t.callK('/v2/workspace/advancedwebhook/endpoints/list', { limit: 2, ...(iterator ? { iterator } : {}) });
      seen.push(...dataOf<EndpointsPage>(res).endpoints.map((e: { id: string }) => e.id));
      iterator = dataOf<EndpointsPage>(res).iterator;
      expect(dataOf<EndpointsPage>(res).done).toBe(iterator === null);
      pages++;
    } while (iterator);
    expect(seen).toEqual(ids);
    expect(pages).toBe(3);
    expect(errorOf(await t.callK(PATH, { limit: 251 })).status).toBe('INVALID_ARGUMENT');
    expect(errorOf(await t.callK(PATH, { iterator: 'forged.token' }))).toEqual({ status: 'INVALID_ARGUMENT', message: 'Invalid pageToken.' });
  });

  it('gets one endpoint by id; unknown or foreign ids are NOT_FOUND', async () => {
    const one = await t.callK(PATH, { endpointId: ids[2] });
    expect(dataOf<EndpointsPage>(one).endpoints).toHaveLength(1);
    expect(dataOf<EndpointsPage>(one).endpoints[0]!.url).toBe('https://hooks.example.com/2');
    expect(errorOf(await t.callK(PATH, { endpointId: 'ep_missing' }))).toEqual({
      status: 'NOT_FOUND',
      message: 'Advanced webhook provider request failed.',
    });
    const other = await createWorkspace(t);
    await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }, other.headersK);
    expect(errorOf(await t.callK(PATH, { endpointId: ids[0] }, other.headersK)).status).toBe('NOT_FOUND');
    expect(dataOf<EndpointsPage>(await t.callK(PATH, {}, other.headersK)).endpoints).toEqual([]);
  });

  it('says "not configured" to a key that never configured advanced webhooks, "disabled" once they are off', async () => {
    const k = await createWorkspace(t);
    const never = await t.callK(PATH, {}, k.headersK);
    expect(never.status).toBe(400);
    expect(errorOf(never)).toEqual({
      status: 'FAILED_PRECONDITION',
      message:
        'Advanced webhooks are not configured for this workspace. Enable them first via POST /v2/workspace/advancedwebhookconfig/update with { "isEnabled": true }.',
    });
    await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }, k.headersK);
    await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: false }, k.headersK);
    const off = await t.callK(PATH, {}, k.headersK);
    expect(errorOf(off)).toEqual({
      status: 'FAILED_PRECONDITION',
      message: 'Advanced webhooks are disabled for this workspace. Enable them via POST /v2/workspace/advancedwebhookconfig/update with { "isEnabled": true }.',
    });
  });
});
