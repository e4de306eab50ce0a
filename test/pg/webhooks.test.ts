// The webhooks repository (configuration, endpoints, the outbox and the dispatcher's side of it), written once,
// answers alike on both engines (see organizations.test.ts). The outbox's rows are also read as stored on each
// engine (payloads as their text), since most of what the outbox writes is read by the delivery worker, not by
// this repository.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BasicTriggers,
  type OutboxEvent,
  type Subscribers,
  type WebhookEndpointRow,
  type WebhookEventRow,
  type WebhooksRepo,
  webhooksRepo,
} from '../../server/db/repos/webhooks.ts';
import { tenantScope } from '../../server/db/scope.ts';
import { type BothEngines, bothEngines, onBoth } from '../helpers/pg-parity.ts';

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
});
afterAll(() => both?.close());

const T = 1_700_000_000_000;

/** The repository and, beside it, the outbox as stored (payloads as text, ordered by id). */
type Repo = WebhooksRepo & { events(): Promise<Array<Record<string, unknown>>> };

const EVENT_COLUMNS =
  'id, api_key_id AS "apiKeyId", type, organization_id AS "organizationId", document_id AS "documentId", dedupe_key AS "dedupeKey", target_endpoint_id AS "targetEndpointId", available_at AS "availableAt", dispatched_at AS "dispatchedAt", created_at AS "createdAt"';

function sqliteRepo(): Repo {
  return {
    ...both.storage.webhooks,
    events: async () =>
      both.sqlite.main.sqlite.prepare(`SELECT ${EVENT_COLUMNS}, payload, basic_payload AS "basicPayload" FROM webhook_events ORDER BY id`).all() as Array<
        Record<string, unknown>
      >,
  };
}

function pgRepo(): Repo {
  return {
    ...webhooksRepo(both.pg),
    events: () =>
      both.engine.read(
        async (db) =>
          (await db.$client.query(`SELECT ${EVENT_COLUMNS}, payload::text AS payload, basic_payload::text AS "basicPayload" FROM webhook_events ORDER BY id`))
            .rows,
      ),
  };
}

/** Times an engine wrote with its own Date.now() (emit's rows), compared by type. */
const timesByType = (rows: Array<Record<string, unknown>>) =>
  rows.map((row) => (String(row.id).startsWith('evt') ? { ...row, availableAt: typeof row.availableAt, createdAt: typeof row.createdAt } : row));

const endpoint = (id: string, createdAt: number, extra: Partial<WebhookEndpointRow> = {}): Omit<WebhookEndpointRow, 'apiKeyId'> => ({
  id,
  url: `https://hooks.test/${id}`,
  description: `endpoint ${id}`,
  filterTypes: null,
  channels: null,
  disabled: false,
  disabledReason: null,
  rateLimit: null,
  uid: null,
  metadata: { z: '1', a: '2' },
  secretEnc: `sealed-${id}`,
  previousSecretEnc: null,
  previousSecretExpiresAt: null,
  failingSince: null,
  createdAt,
  updatedAt: createdAt,
  ...extra,
});

const config = (isEnabled: boolean) => ({ isEnabled, encryptData: false, encodeData: true, publicKey: 'pk', enableDataProtection: false });

/** The basic service's defaults as the caller knows them, under the key's own triggers. */
const basicTakes: BasicTriggers = (type, triggers) => ({ 'document.updated': true, 'comment.added': true, ...triggers })[type] ?? false;

const ev = (type: string, extra: Partial<OutboxEvent> = {}): OutboxEvent => ({ type, hasBasicForm: false, ...extra });
const debounced = (id: string, dedupeKey: string, availableAt: number, extra: Partial<OutboxEvent> = {}) => ({
  ...ev('document.updated', { organizationId: 'o1', documentId: 'd1', ...extra }),
  id,
  dedupeKey,
  createdAt: T + 10,
  availableAt,
});
const ids = (rows: unknown) => (rows as Array<{ row: WebhookEventRow }>).map((r) => r.row.id);

describe('webhooks', () => {
  it('answers every call as on SQLite: configuration, endpoints, subscribers, emit, debounced events, the dispatcher', async () => {
    const { k1, k2 } = both;
    const answers = await onBoth<Repo>(sqliteRepo(), pgRepo(), async (repo) => {
      const built: Subscribers[] = [];
      const build = (id: string) => (who: Subscribers) => {
        built.push(who);
        return { id, payload: JSON.stringify({ z: id, a: [1, { y: null, b: true }] }), basic: who.basic ? '{"kind":"basic"}' : null };
      };
      const a: unknown[] = [
        // 0-4: nothing configured: nobody subscribes, nothing is written
        await repo.config(k1),
        await repo.inUse(),
        await repo.subscribers(k1, ev('document.updated', { hasBasicForm: true, organizationId: 'o1' }), basicTakes),
        await repo.emit(k1, ev('document.updated'), basicTakes, build('evt-0')),
        await repo.openDebounced(k1, debounced('deb-0', 'doc:d1', T), basicTakes),
        // 5-11: the configuration, written whole, created once
        await repo.saveConfig(k1, config(false), T),
        await repo.config(k1),
        await repo.inUse(),
        await repo.saveConfig(k1, { ...config(true), publicKey: 'pk2' }, T + 5),
        await repo.config(k1),
        await repo.config(k2),
        await repo.inUse(),
        // 12-17: endpoints; a uid is unique per key, a taken id throws
        await repo.insertEndpoint(k1, endpoint('ep-b', T + 1, { uid: 'u1', filterTypes: ['document.updated'] })),
        await repo.insertEndpoint(k1, endpoint('ep-a', T + 1, { channels: ['o2'], rateLimit: 5 })),
        await repo.insertEndpoint(k1, endpoint('ep-c', T, { uid: 'u1' })),
        await repo.insertEndpoint(k1, endpoint('ep-c', T, { uid: 'u2', disabled: true })),
        await repo.insertEndpoint(k2, endpoint('ep-k2', T, { uid: 'u1' })),
        await repo.insertEndpoint(k2, endpoint('ep-a', T, { uid: 'u9' })).then(
          () => 'no error',
          () => 'threw',
        ),
        // 18-22: one endpoint, tenant isolation, missing rows, existing ones in the order asked
        await repo.endpoint(k1, 'ep-b'),
        await repo.endpoint(k2, 'ep-b'),
        await repo.endpoint(k1, 'missing'),
        [...(await repo.existingEndpoints(k1, ['ep-c', 'nope', 'ep-k2', 'ep-a', 'ep-c']))],
        [...(await repo.existingEndpoints(k1, []))],
        // 23-26: pages by (createdAt, id)
        await repo.endpointsPage(k1, null, 10),
        await repo.endpointsPage(k1, [T + 1, 'ep-a'], 10),
        await repo.endpointsPage(k1, null, 2),
        await repo.endpointsPage(k2, null, 10),
        // 27-30: updates
        await repo.updateEndpoint(k1, 'ep-c', { description: 'changed', metadata: { y: '1', b: '2' }, updatedAt: T + 9 }),
        await repo.updateEndpoint(k2, 'ep-c', { description: 'not mine' }),
        await repo.updateEndpoint(k1, 'missing', { description: 'nobody' }),
        await repo.endpoint(k1, 'ep-c'),
        // 31-40: who would receive: ep-b takes document.updated anywhere, ep-a anything in channel o2, ep-c is disabled
        await repo.subscribers(k1, ev('document.updated'), basicTakes),
        await repo.subscribers(k1, ev('comment.added'), basicTakes),
        await repo.subscribers(k1, ev('comment.added', { organizationId: 'o2' }), basicTakes),
        await repo.subscribers(k1, ev('comment.added', { documentId: 'o2' }), basicTakes),
        await repo.subscribers(k1, ev('comment.added', { organizationId: 'o1', documentId: 'd1', hasBasicForm: true }), basicTakes),
        await repo.subscribers(k2, ev('document.updated'), basicTakes),
        await repo.subscribers(k1, ev('test.event', { targetEndpointId: 'ep-c' }), basicTakes),
        await repo.subscribers(k1, ev('test.event', { targetEndpointId: 'ep-a' }), basicTakes),
        await repo.subscribers(k2, ev('test.event', { targetEndpointId: 'ep-k2' }), basicTakes),
        await repo.subscribers(k1, ev('test.event', { targetEndpointId: 'missing' }), basicTakes),
        // 41-45: emit: the check and the insert, or the caller's `who` (but for an addressed event)
        await repo.emit(k1, ev('document.updated', { organizationId: 'o1', documentId: 'd1' }), basicTakes, build('evt-1')),
        await repo.emit(k1, ev('comment.added'), basicTakes, build('evt-2')),
        await repo.emit(k1, ev('comment.added'), basicTakes, build('evt-3'), { advanced: true, basic: false }),
        await repo.emit(k1, ev('test.event', { targetEndpointId: 'ep-c' }), basicTakes, build('evt-4'), { advanced: true, basic: false }),
        await repo.emit(k1, ev('test.event', { targetEndpointId: 'ep-a' }), basicTakes, build('evt-5')),
        // 46-51: debounced events: one pending per key and dedupe key
        await repo.openDebounced(k1, debounced('deb-1', 'doc:d1', T + 100), basicTakes),
        await repo.openDebounced(k1, debounced('deb-2', 'doc:d1', T + 50), basicTakes),
        await repo.openDebounced(k1, debounced('deb-3', 'doc:d2', T + 100), basicTakes),
        await repo.openDebounced(k1, debounced('deb-4', 'doc:d3', T + 40), basicTakes),
        await repo.openDebounced(k2, debounced('deb-k2', 'doc:d1', T + 10), basicTakes),
        await repo.openDebounced(k1, debounced('deb-9', 'doc:d9', T + 10, { type: 'comment.added', organizationId: 'o2' }), basicTakes),
        // 52-57: falling due
        await repo.nextDebounced(),
        await repo.dueDebounced(T + 39),
        await repo.dueDebounced(T + 100),
        await repo.postponeDebounced('deb-4', T + 200),
        await repo.nextDebounced(),
        await repo.dueDebounced(T + 100),
      ];
      const due = (id: string) => (a[57] as Array<{ row: WebhookEventRow }>).find((r) => r.row.id === id)?.row as WebhookEventRow;
      a.push(
        // 58-59: a dropped one is closed: the next change opens a new one
        await repo.dropDebounced('deb-3', T + 101),
        await repo.openDebounced(k1, debounced('deb-5', 'doc:d2', T + 120), basicTakes),
        // 60-62: released with a follow-up (which keeps the dedupe key pending), and one nobody takes any more
        await repo.releaseDebounced(
          k1,
          due('deb-1'),
          ev('document.updated', { organizationId: 'o1', documentId: 'd1' }),
          basicTakes,
          (who) => {
            built.push(who);
            return { payload: '{"z":"released","a":1}', basic: null };
          },
          T + 150,
          { id: 'deb-6', availableAt: T + 300 },
        ),
        await repo.openDebounced(k1, debounced('deb-7', 'doc:d1', T + 160), basicTakes),
        await repo.releaseDebounced(
          k1,
          { ...due('deb-3'), id: 'deb-5' },
          ev('comment.added', { organizationId: 'o1' }),
          basicTakes,
          () => ({ payload: '{}', basic: null }),
          T + 170,
        ),
        // 63: deb-4 (postponed to T+200), then the follow-up deb-6 (T+300)
        await repo.dueDebounced(T + 1000),
        // 64-69: the delivery worker's writes
        await repo.applyDeliveryState([
          { kind: 'dispatched', eventId: 'evt-1', at: T + 400 },
          { kind: 'failing', endpointId: 'ep-b', since: T + 401 },
          { kind: 'failing', endpointId: 'ep-b', since: T + 402 },
          { kind: 'recovered', endpointId: 'ep-a' },
          { kind: 'disable', endpointId: 'ep-a', reason: 'gone (410)', at: T + 403 },
          { kind: 'dispatched', eventId: 'deb-4', at: T + 404 },
        ]),
        await repo.endpoint(k1, 'ep-b'),
        await repo.endpoint(k1, 'ep-a'),
        await repo.applyDeliveryState([{ kind: 'recovered', endpointId: 'ep-b' }]),
        await repo.endpoint(k1, 'ep-b'),
        await repo.dueDebounced(T + 1000),
        // 70-72: the scopes of keys, in the order asked; a gone key has none
        [...(await repo.scopesOf(['k2', 'missing', 'k1', 'k2']))],
        [...(await repo.scopesOf([]))],
        await repo.nextDebounced(),
        // 73-76: delete
        await repo.deleteEndpoint(k2, 'ep-b'),
        await repo.deleteEndpoint(k1, 'ep-b'),
        await repo.deleteEndpoint(k1, 'ep-b'),
        await repo.endpoint(k1, 'ep-b'),
        // 77-79: everything handed over and advanced webhooks off: nothing for the worker to do
        await repo.applyDeliveryState(['evt-3', 'evt-5', 'deb-1', 'deb-6', 'deb-9'].map((eventId) => ({ kind: 'dispatched' as const, eventId, at: T + 500 }))),
        await repo.saveConfig(k1, config(false), T + 501),
        await repo.inUse(),
        // 80-81: what build was asked for, and the outbox as stored
        built,
        timesByType(await repo.events()),
      );
      return a;
    });
    expect(answers.pg).toEqual(answers.sqlite);

    // and each answer is what it should be, not only the same on both
    const s = answers.sqlite;
    expect(s.slice(0, 5)).toEqual([undefined, false, { advanced: false, basic: false }, null, 'none']);
    expect(s[6]).toMatchObject({ apiKeyId: 'k1', isEnabled: false, createdAt: T, updatedAt: T });
    expect(s[7]).toBe(false);
    expect(s[9]).toMatchObject({ isEnabled: true, publicKey: 'pk2', createdAt: T, updatedAt: T + 5 });
    expect(s.slice(10, 12)).toEqual([undefined, true]);
    expect(s.slice(12, 18)).toEqual([true, true, false, true, true, 'threw']);
    expect(s[18]).toMatchObject({ id: 'ep-b', apiKeyId: 'k1', filterTypes: ['document.updated'], channels: null, uid: 'u1' });
    expect(JSON.stringify((answers.pg[18] as WebhookEndpointRow).metadata)).toBe('{"z":"1","a":"2"}');
    expect(s.slice(19, 23)).toEqual([undefined, undefined, ['ep-c', 'ep-a'], []]);
    const pageIds = (i: number) => (s[i] as WebhookEndpointRow[]).map((r) => r.id);
    expect([pageIds(23), pageIds(24), pageIds(25), pageIds(26)]).toEqual([['ep-c', 'ep-a', 'ep-b'], ['ep-b'], ['ep-c', 'ep-a'], ['ep-k2']]);
    expect(s.slice(27, 30)).toEqual([true, false, false]);
    expect(s[30]).toMatchObject({ description: 'changed', metadata: { y: '1', b: '2' }, updatedAt: T + 9, disabled: true });
    expect((s.slice(31, 41) as Subscribers[]).map((w) => w.advanced)).toEqual([true, false, true, true, false, false, false, true, false, false]);
    expect(s.slice(41, 46)).toEqual(['evt-1', null, 'evt-3', null, 'evt-5']);
    expect(s.slice(46, 52)).toEqual(['opened', 'pending', 'opened', 'opened', 'none', 'opened']);
    expect(s[52]).toBe(T + 10);
    expect(ids(s[53])).toEqual(['deb-9']);
    expect(ids(s[54])).toEqual(['deb-9', 'deb-4', 'deb-1', 'deb-3']);
    expect((s[54] as Array<{ scope: unknown }>)[0]?.scope).toEqual(tenantScope('k1', 'w1'));
    expect(s[56]).toBe(T + 10);
    expect(ids(s[57])).toEqual(['deb-9', 'deb-1', 'deb-3']);
    expect(s.slice(59, 62)).toEqual(['opened', true, 'pending']);
    expect(s[62]).toBe(false);
    expect(ids(s[63])).toEqual(['deb-9', 'deb-4', 'deb-6']);
    expect(s[65]).toMatchObject({ failingSince: T + 401 });
    expect(s[66]).toMatchObject({ disabled: true, disabledReason: 'gone (410)', updatedAt: T + 403, failingSince: null });
    expect(s[68]).toMatchObject({ failingSince: null });
    expect(ids(s[69])).toEqual(['deb-9', 'deb-6']);
    expect(s[70]).toEqual([
      ['k2', tenantScope('k2', 'w2')],
      ['k1', tenantScope('k1', 'w1')],
    ]);
    expect(s.slice(71, 73)).toEqual([[], T + 10]);
    expect(s.slice(73, 77)).toEqual([false, true, false, undefined]);
    expect(s[79]).toBe(false);
    // build ran only for events written, with who receives them
    expect((s[80] as Subscribers[]).length).toBe(4);
    const stored = s[81] as Array<Record<string, unknown>>;
    expect(stored.map((r) => r.id)).toEqual(['deb-1', 'deb-3', 'deb-4', 'deb-5', 'deb-6', 'deb-9', 'evt-1', 'evt-3', 'evt-5']);
    expect(stored.find((r) => r.id === 'deb-1')).toMatchObject({ payload: '{"z":"released","a":1}', dedupeKey: null, availableAt: T + 150 });
    expect(stored.find((r) => r.id === 'deb-6')).toMatchObject({ payload: null, dedupeKey: 'doc:d1', availableAt: T + 300, createdAt: T + 150 });
    expect(stored.find((r) => r.id === 'deb-5')).toMatchObject({ dispatchedAt: T + 170, dedupeKey: 'doc:d2' });
    expect(stored.find((r) => r.id === 'evt-1')).toMatchObject({
      payload: '{"z":"evt-1","a":[1,{"y":null,"b":true}]}',
      basicPayload: null,
      availableAt: 'number',
      organizationId: 'o1',
      dispatchedAt: T + 400,
    });
    expect(stored.find((r) => r.id === 'evt-5')).toMatchObject({ targetEndpointId: 'ep-a', type: 'test.event' });
  });

  it('reads the basic service from the key settings, and JSON filters of any shape, as SQLite does', async () => {
    const settings = JSON.stringify({
      useWebhookService: true,
      webhookServiceConfig: { rawNotificationUrl: 'https://basic.test/', triggers: { 'comment.added': false } },
    });
    await both.insertBoth('INSERT INTO api_keys (id, workspace_id, name, type, owner_email, allowed_domains, settings) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      'k3',
      'w1',
      'K3',
      'testing',
      'o@x.test',
      '[]',
      settings,
    ]);
    const endpointSql =
      'INSERT INTO webhook_endpoints (id, api_key_id, url, description, filter_types, channels, disabled, metadata, secret_enc, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
    // JSON null takes every type; a scalar string channel and an object's values are what json_each walks; a number never equals text
    await both.insertBoth(endpointSql, ['ep-null', 'k3', 'https://h.test/1', '', 'null', '"o5"', false, '{}', 's', T, T]);
    await both.insertBoth(endpointSql, ['ep-obj', 'k3', 'https://h.test/2', '', '[1, "doc.x"]', '{"x": "o7"}', false, '{}', 's', T + 1, T + 1]);
    const k3 = tenantScope('k3', 'w1');
    const answers = await onBoth<Repo>(sqliteRepo(), pgRepo(), async (repo) => {
      const built: Subscribers[] = [];
      return [
        await repo.inUse(),
        await repo.subscribers(k3, ev('document.updated', { hasBasicForm: true }), basicTakes),
        await repo.subscribers(k3, ev('comment.added', { hasBasicForm: true }), basicTakes),
        await repo.subscribers(k3, ev('document.updated'), basicTakes),
        await repo.emit(k3, ev('document.updated', { hasBasicForm: true }), basicTakes, (who) => {
          built.push(who);
          return { id: 'evt-k3', payload: null, basic: '{"b":1,"a":2}' };
        }),
        await repo.saveConfig(k3, config(true), T),
        await repo.subscribers(k3, ev('anything', { organizationId: 'o5' }), basicTakes),
        await repo.subscribers(k3, ev('anything', { documentId: 'o6' }), basicTakes),
        await repo.subscribers(k3, ev('1', { organizationId: 'o7' }), basicTakes),
        await repo.subscribers(k3, ev('doc.x', { organizationId: 'o7' }), basicTakes),
        await repo.openDebounced(k3, { ...debounced('deb-k3', 'doc:k3', T + 600), organizationId: 'o5' }, basicTakes),
        await repo.dueDebounced(T + 600),
        built,
        await repo.applyDeliveryState([
          { kind: 'dispatched', eventId: 'evt-k3', at: T + 700 },
          { kind: 'dispatched', eventId: 'deb-k3', at: T + 700 },
        ]),
        await repo.saveConfig(k3, config(false), T + 1),
        timesByType((await repo.events()).filter((r) => r.apiKeyId === 'k3')),
      ];
    });
    expect(answers.pg).toEqual(answers.sqlite);
    const s = answers.sqlite;
    expect(s.slice(0, 5)).toEqual([true, { advanced: false, basic: true }, { advanced: false, basic: false }, { advanced: false, basic: false }, 'evt-k3']);
    expect((s.slice(6, 10) as Subscribers[]).map((w) => w.advanced)).toEqual([true, false, false, true]);
    expect(s[10]).toBe('opened');
    expect(s[11]).toEqual([
      {
        row: expect.objectContaining({ id: 'deb-k3', apiKeyId: 'k3', payload: null, dedupeKey: 'doc:k3' }),
        scope: tenantScope('k3', 'w1'),
      },
    ]);
    expect(s[12]).toEqual([{ advanced: false, basic: true }]);
    expect((s[15] as Array<Record<string, unknown>>).find((r) => r.id === 'evt-k3')).toMatchObject({ basicPayload: '{"b":1,"a":2}', payload: null });

    // inUse reads json_extract(settings, '$.useWebhookService') = 1: JSON true or 1, not "1" nor false
    const inUse = async (value: unknown) => {
      await both.insertBoth('UPDATE api_keys SET settings = ? WHERE id = ?', [JSON.stringify({ useWebhookService: value }), 'k3']);
      const answer = await onBoth<Repo>(sqliteRepo(), pgRepo(), async (repo) => [await repo.inUse()]);
      expect(answer.pg).toEqual(answer.sqlite);
      return answer.sqlite[0];
    };
    expect([await inUse(true), await inUse(1), await inUse(1.0), await inUse('1'), await inUse(false), await inUse(null)]).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});
