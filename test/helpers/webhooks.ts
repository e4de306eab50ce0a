import type { TestServer } from './server.ts';

/** Enables advanced webhooks for the calling key and creates an endpoint; returns it with its secret. */
export async function enableWithEndpoint(t: TestServer, url: string, endpoint: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const enabled = await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }, headers);
  if (enabled.status !== 200) throw new Error(`enable failed: ${JSON.stringify(enabled.body)}`);
  const created = await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url, ...endpoint }, headers);
  if (created.status !== 200) throw new Error(`endpoint create failed: ${JSON.stringify(created.body)}`);
  const id = created.body.result.data.id as string;
  const secret = await t.callK('/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId: id }, headers);
  return { id, secret: secret.body.result.data.secret as string, endpoint: created.body.result.data };
}

/** A fast retry schedule so that the whole reference schedule's logic runs in milliseconds. */
export const FAST_WEBHOOKS = { retryScheduleMs: [0, 20, 40, 60], jitter: 0, timeoutMs: 2_000, crdtDebounceMs: 150, crdtMaxWaitMs: 2_000 };
