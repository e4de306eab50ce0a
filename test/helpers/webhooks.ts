import { dataOf, type TestServer } from './server.ts';

/** An endpoint as endpoints/create answers it (the fields tests read; the rest as answered). */
export interface EndpointAnswer {
  id: string;
  url: string;
  disabled?: boolean;
  filterTypes?: string[];
  channels?: string[];
  [field: string]: unknown;
}

/** Enables advanced webhooks for the calling key and creates an endpoint; returns it with its secret. */
export async function enableWithEndpoint(t: TestServer, url: string, endpoint: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const enabled = await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }, headers);
  if (enabled.status !== 200) throw new Error(`enable failed: ${JSON.stringify(enabled.body)}`);
  const created = await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url, ...endpoint }, headers);
  if (created.status !== 200) throw new Error(`endpoint create failed: ${JSON.stringify(created.body)}`);
  const made = dataOf<EndpointAnswer>(created);
  const secret = dataOf<{ secret: string }>(await t.callK('/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId: made.id }, headers));
  return { id: made.id, secret: secret.secret, endpoint: made };
}

/** A fast retry schedule so that the whole reference schedule's logic runs in milliseconds. */
export const FAST_WEBHOOKS = { retryScheduleMs: [0, 20, 40, 60], jitter: 0, timeoutMs: 2_000, crdtDebounceMs: 150, crdtMaxWaitMs: 2_000 };
