import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookEventType } from '../../shared/schemas/webhooks.ts';
import { DELIVERY_CACHE_KIB, openDeliveryFile } from '../../server/db/delivery-file.ts';
import type { TenantScope } from '../../server/db/scope.ts';
import { emitEvent } from '../../server/webhooks/outbox.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { FAST_WEBHOOKS } from '../helpers/webhooks.ts';

// The outbox writes an event only when a live endpoint would take it: the same type and channel filters the
// delivery worker applies when it fans the event out. Before, any enabled endpoint made every event be written
// (and every debounced crdt.update_data be opened and resolved, which re-reads the whole document every few
// seconds while it is edited: the soak's rising RSS).

/** advancedwebhook/endpoints/create's data. */
interface CreatedEndpoint {
  id: string;
}

let t: TestServer;
let scope: TenantScope;
const receivers: Receiver[] = [];
const endpoints: Record<'types' | 'doc' | 'org' | 'off' | 'cleared', { id: string; r: Receiver }> = {} as never;

async function endpoint(name: keyof typeof endpoints, input: Record<string, unknown>) {
  const r = await startReceiver();
  receivers.push(r);
  const created = await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: r.url, ...input });
  expect(created.status).toBe(200);
  endpoints[name] = { id: dataOf<CreatedEndpoint>(created).id, r };
  return endpoints[name].id;
}

beforeAll(async () => {
  t = await startTestServer({ webhooks: FAST_WEBHOOKS });
  await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
  const apiKeyId = (await t.query<{ id: string }>('SELECT id FROM api_keys'))[0]!.id;
  scope = (await t.server.app.storage.keys.scopeFor(apiKeyId))!;
  await endpoint('types', { filterTypes: ['comment_annotation.add'] });
  await endpoint('doc', { channels: ['doc-b'] });
  await endpoint('org', { filterTypes: ['notification.add'], channels: ['org-c'] });
  const off = await endpoint('off', {});
  await t.callK('/v2/workspace/advancedwebhook/endpoints/update', { endpointId: off, disabled: true });
  // filters cleared by an update are stored as NULL: no filter
  const cleared = await endpoint('cleared', { filterTypes: ['recorder.done'], channels: ['org-d'] });
  await t.callK('/v2/workspace/advancedwebhook/endpoints/update', { endpointId: cleared, filterTypes: null, channels: [] });
});
afterAll(async () => {
  await t.close();
  await Promise.all(receivers.map((r) => r.close()));
});

const emit = (type: WebhookEventType, organizationId: string | null, documentId: string | null) =>
  t.server.app.storage.transaction(() =>
    emitEvent(t.server.app, scope, { type, organizationId, documentId, actionType: 'add', source: 'platform', data: { n: 1 } }),
  );

describe('the outbox writes an event only when an endpoint would take it', () => {
  it('writes exactly the events the worker delivers, to the endpoints whose filters take them', async () => {
    // the endpoint with cleared filters takes everything: pause it to see the others' filters alone
    await t.callK('/v2/workspace/advancedwebhook/endpoints/update', { endpointId: endpoints.cleared.id, disabled: true });
    const cases: Array<[WebhookEventType, string | null, string | null, Array<keyof typeof endpoints>]> = [
      ['comment_annotation.add', 'org-x', 'doc-y', ['types']],
      ['comment_annotation.add', null, null, ['types']],
      ['notification.add', 'org-x', 'doc-b', ['doc']],
      ['notification.add', 'org-c', 'doc-z', ['org']],
      ['comment_annotation.add', 'org-c', 'doc-b', ['types', 'doc']],
      ['notification.add', 'org-x', 'doc-z', []],
      ['recorder.done', 'org-c', 'doc-z', []],
      ['crdt.update_data', 'org-d', 'doc-d', []],
    ];
    const expected: Record<string, string[]> = { types: [], doc: [], org: [], off: [], cleared: [] };
    for (const [type, org, doc, to] of cases) {
      const id = await emit(type, org, doc);
      if (to.length === 0) expect(id, `${type} ${org}/${doc}`).toBeNull();
      else expect(id, `${type} ${org}/${doc}`).toEqual(expect.any(String));
      for (const name of to) expected[name]!.push(id!);
    }
    const count = (await t.query<{ n: number }>('SELECT CAST(count(*) AS INTEGER) AS n FROM webhook_events'))[0]!.n;
    expect(count).toBe(cases.filter((c) => c[3].length > 0).length);
    for (const [name, { r }] of Object.entries(endpoints)) {
      await eventually(() => expect(r.received.map((x) => String(x.headers['webhook-id'])).sort(), name).toEqual([...expected[name]!].sort()));
    }
  });

  it('takes filters cleared by an update as no filter', async () => {
    await t.callK('/v2/workspace/advancedwebhook/endpoints/update', { endpointId: endpoints.cleared.id, disabled: false });
    const id = await emit('recorder.done', 'org-x', 'doc-z');
    expect(id).toEqual(expect.any(String));
    await eventually(() => expect(endpoints.cleared.r.received.map((x) => x.headers['webhook-id'])).toEqual([id]));
  });

  it('opens no debounced crdt.update_data when no endpoint takes it, so nothing re-reads the document while it is edited', async () => {
    await t.callK('/v2/workspace/advancedwebhook/endpoints/update', { endpointId: endpoints.cleared.id, disabled: true });
    const doc = { organizationId: 'acme', documentId: 'edited', editorId: 'e1' };
    await t.callK('/v2/crdt/add', { ...doc, type: 'text', data: 'a' });
    for (const data of ['b', 'c', 'd']) {
      await t.callK('/v2/crdt/update', { ...doc, type: 'text', data });
      // past the change feed's own debounce, so that every change asks the outbox again
      await new Promise((resolve) => setTimeout(resolve, FAST_WEBHOOKS.crdtDebounceMs + 20));
    }
    const pending = async () =>
      (await t.query<{ n: number }>("SELECT CAST(count(*) AS INTEGER) AS n FROM webhook_events WHERE type = 'crdt.update_data'"))[0]!.n;
    expect(await pending()).toBe(0);
    // an endpoint that takes it (by its document) gets the burst, once
    const r = await startReceiver();
    receivers.push(r);
    await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: r.url, filterTypes: ['crdt.update_data'], channels: ['edited'] });
    await t.callK('/v2/crdt/update', { ...doc, type: 'text', data: 'e' });
    expect(await pending()).toBe(1);
    await eventually(() => expect(r.received).toHaveLength(1));
    expect(JSON.parse(r.received[0]!.body).data.crdtData.data).toBe('e');
  });
});

describe('delivery connections', () => {
  it('keep a small page cache (better-sqlite3 defaults to 16,000 KiB per connection, filled as the file grows)', () => {
    const sqlite = openDeliveryFile(t.dataDir, { readOnly: true });
    try {
      expect(sqlite.pragma('cache_size', { simple: true })).toBe(-DELIVERY_CACHE_KIB);
      expect(DELIVERY_CACHE_KIB).toBeLessThanOrEqual(2000);
    } finally {
      sqlite.close();
    }
  });
});
