// The delivery engine's store on PostgreSQL (pg/repos/webhook-delivery.ts) answers as SQLite's (the worker's
// deliveryQueries over hearth.db and webhooks.db): the same calls on both, every answer compared, and checked for
// what it should be; so do the main thread's reads of delivery state, written once (repos/webhook-deliveries.ts and
// inspection.ts's deliveryInspection, on each engine's delivery engine). Then the real
// delivery engine runs on the PostgreSQL store against a real local receiver.
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryQueriesPg } from '../../server/db/pg/repos/webhook-delivery.ts';
import { type DeliveryStoreQueries, openDeliveryWorkerStorage } from '../../server/db/repos/webhook-delivery.ts';
import { deliveryEngine, deliveryInspection, webhookDeliveriesRepo } from '../../server/db/repos/webhook-deliveries.ts';
import { type DeliveryStateWrite, webhooksRepo } from '../../server/db/repos/webhooks.ts';
import { createSecrets } from '../../server/security/secrets.ts';
import { createDeliveryEngine } from '../../server/webhooks/engine.ts';
import { type BothEngines, bothEngines } from '../helpers/pg-parity.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { eventually } from '../helpers/server.ts';

let both: BothEngines;
let sqliteWorker: ReturnType<typeof openDeliveryWorkerStorage>;
const secrets = createSecrets(randomBytes(32));
const SIGNING_SECRET = `whsec_${randomBytes(24).toString('base64')}`;

const T = 1_700_000_000_000;

/** Endpoint rows: id, key, filter types, channels, disabled, created. */
const ENDPOINTS: Array<[string, string, string | null, string | null, boolean, number]> = [
  ['e1', 'k1', null, null, false, T + 10],
  ['e3', 'k1', null, '["o1"]', false, T + 20],
  ['e2', 'k1', '["comment.added"]', null, false, T + 20],
  ['e4', 'k1', null, null, true, T + 30],
  ['e5', 'k1', 'null', '["d1","o9"]', false, T + 40],
  ['e6', 'k1', '["document.updated", 3]', 'null', false, T + 50],
  ['e9', 'k2', null, null, false, T + 10],
];

/** Events: id, key, type, organization, document, payload, dedupe key, target endpoint, available, dispatched. */
const EVENTS: Array<[string, string, string, string | null, string | null, string | null, string | null, string | null, number, number | null]> = [
  ['msg_b', 'k1', 'comment.added', 'o1', null, '{"z":1,"a":[2,{"y":3,"b":4}]}', null, null, T + 200, null],
  ['msg_a', 'k1', 'document.updated', 'o2', 'd1', '{"doc":"d1"}', null, null, T + 100, null],
  ['msg_c', 'k1', 'document.updated', 'o2', 'd1', null, 'crdt:d1', null, T + 100, null],
  ['msg_d', 'k1', 'comment.added', 'o1', null, '{}', null, null, T + 50, T + 60],
  ['msg_e', 'k1', 'comment.added', 'o1', null, '{}', null, null, T + 10_000, null],
  ['msg_f', 'k1', 'endpoint.test', null, null, '{"test":true}', null, 'e4', T + 200, null],
  ['msg_g', 'k2', 'comment.added', null, null, '{"k":2}', null, null, T + 150, null],
];

beforeAll(async () => {
  both = await bothEngines();
  await both.insertBoth(
    'INSERT INTO webhook_configs (api_key_id, is_enabled, encrypt_data, encode_data, public_key, enable_data_protection, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ['k1', true, false, true, 'pk', false, T, T],
  );
  for (const [id, key, filterTypes, channels, disabled, createdAt] of ENDPOINTS) {
    await both.insertBoth(
      `INSERT INTO webhook_endpoints (id, api_key_id, url, description, filter_types, channels, disabled, rate_limit, metadata, secret_enc,
        previous_secret_enc, previous_secret_expires_at, failing_since, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        key,
        `https://hooks.test/${id}`,
        '',
        filterTypes,
        channels,
        disabled,
        id === 'e6' ? 5 : null,
        '{}',
        secrets.encrypt(SIGNING_SECRET),
        id === 'e6' ? 'old-secret' : null,
        id === 'e6' ? T + 999 : null,
        id === 'e3' ? T + 7 : null,
        createdAt,
        createdAt,
      ],
    );
  }
  for (const [id, key, type, org, doc, payload, dedupe, target, availableAt, dispatchedAt] of EVENTS) {
    await both.insertBoth(
      `INSERT INTO webhook_events (id, api_key_id, type, organization_id, document_id, payload, basic_payload, dedupe_key, target_endpoint_id, available_at,
        dispatched_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, key, type, org, doc, payload, id === 'msg_b' ? '{"basic":true,"order":[3,1]}' : null, dedupe, target, availableAt, dispatchedAt, availableAt],
    );
  }
  await both.insertBoth('UPDATE api_keys SET settings = ? WHERE id = ?', [
    '{"useWebhookService":true,"webhookServiceConfig":{"rawNotificationUrl":"https://basic.test/raw","encodeData":false}}',
    'k1',
  ]);
  await both.insertBoth('INSERT INTO api_key_secrets (api_key_id, name, value_enc, updated_at) VALUES (?, ?, ?, ?)', ['k1', 'webhook:authToken', 'sealed', T]);
  sqliteWorker = openDeliveryWorkerStorage(dirname(both.sqlite.main.sqlite.name), 'hearth.db', (error) => {
    throw error;
  });
  sqliteWorker.stopCheckpointer();
});
afterAll(async () => {
  sqliteWorker?.close();
  await both?.close();
});

/** The same calls on a delivery store, each answer in order (an error as its message). */
async function script(q: DeliveryStoreQueries): Promise<unknown[]> {
  const out: unknown[] = [];
  const ask = async (label: string, answer: Promise<unknown>) => {
    try {
      out.push([label, await answer]);
    } catch (error) {
      out.push([label, 'error', error instanceof Error ? error.message : String(error)]);
    }
  };
  await ask('ready', q.readyEvents(T + 250, 10));
  await ask('ready, first 2', q.readyEvents(T + 250, 2));
  await ask('ready, none yet', q.readyEvents(T, 10));
  await ask('event type', q.eventType('msg_b'));
  await ask('event type, none', q.eventType('msg_none'));
  await ask('config', q.config('k1'));
  await ask('config, none', q.config('k2'));
  await ask('endpoint', q.endpoint('k1', 'e6'));
  await ask('endpoint, another key', q.endpoint('k2', 'e1'));
  await ask('takes comment in o1', q.takingEndpoints('k1', 'comment.added', 'o1', null));
  await ask('takes document in o2/d1', q.takingEndpoints('k1', 'document.updated', 'o2', 'd1'));
  await ask('takes comment, no channel', q.takingEndpoints('k1', 'comment.added', null, null));
  await ask('takes, other key', q.takingEndpoints('k2', 'comment.added', null, null));
  await ask('key settings', q.keySettings('k1'));
  await ask('key settings, none', q.keySettings('k_none'));
  await ask('basic token', q.basicToken('k1', 'webhook:authToken'));
  await ask('basic token, other key', q.basicToken('k2', 'webhook:authToken'));
  await ask(
    'fan out',
    q.storeTransaction(async () => {
      await q.insertDelivery('k1', 'msg_a', 'e1', 'https://hooks.test/e1', '{"body":1}', T + 300, T + 250);
      await q.insertDelivery('k1', 'msg_a', 'e5', 'https://hooks.test/e5', '{"body":1}', T + 300, T + 250);
      await q.insertDelivery('k1', 'msg_b', 'e3', 'https://hooks.test/e3', '{"body":2}', T + 290, T + 251);
      await q.insertDelivery('k1', 'msg_b', 'basic:raw', 'https://basic.test/raw', '{"basic":2}', T + 400, T + 251);
      // already there: nothing changes
      await q.insertDelivery('k1', 'msg_a', 'e1', 'https://other.test', '{"body":"other"}', T + 1, T + 1);
      await q.insertDelivery('k2', 'msg_g', 'e9', 'https://hooks.test/e9', '{"k":2}', T + 300, T + 250);
      return 'fanned';
    }),
  );
  await ask('delivery', q.delivery('msg_a', 'e1'));
  await ask('delivery, none', q.delivery('msg_a', 'e2'));
  await ask('due', q.dueDeliveries(T + 300, 10));
  await ask('due, first 2', q.dueDeliveries(T + 300, 2));
  await ask('due, none yet', q.dueDeliveries(T + 100, 10));
  await ask('next', q.nextDelivery());
  await ask(
    'record',
    q.storeTransaction(async () => {
      await q.insertAttempt(
        'atmpt_1',
        'k1',
        'msg_a',
        'e1',
        'https://hooks.test/e1',
        'scheduled',
        'succeeded',
        200,
        'ok',
        12,
        T + 301,
        '[["content-type","application/json"]]',
        '[["x-a","1"],["x-b","2"]]',
        3,
      );
      await q.insertAttempt('atmpt_2', 'k1', 'msg_b', 'e3', 'https://hooks.test/e3', 'scheduled', 'failed', null, 'ECONNREFUSED', 5, T + 301, '[]', null, 0);
      await q.insertAttempt('atmpt_3', 'k1', 'msg_a', 'e5', 'https://hooks.test/e5', 'scheduled', 'failed', 500, 'oops', 7, T + 302, '[]', '[]', 0);
      await q.setAttempted(1, T + 301, 200, 'msg_a', 'e1');
      await q.setSchedule('succeeded', null, 'scheduled', 'k1', 'msg_a', 'e1');
      await q.setAttempted(1, T + 301, null, 'msg_b', 'e3');
      await q.setSchedule('pending', T + 500, 'scheduled', 'k1', 'msg_b', 'e3');
      await q.setAttempted(1, T + 302, 500, 'msg_a', 'e5');
      await q.setSchedule('failed', null, 'scheduled', 'k1', 'msg_a', 'e5');
      // another key's scope does not reach this delivery
      await q.setSchedule('failed', null, 'scheduled', 'k2', 'msg_b', 'basic:raw');
    }),
  );
  await ask('after record', Promise.all([q.delivery('msg_a', 'e1'), q.delivery('msg_b', 'e3'), q.delivery('msg_a', 'e5'), q.delivery('msg_b', 'basic:raw')]));
  await ask('due after record', q.dueDeliveries(T + 1000, 10));
  await ask('postpone', q.postpone(T + 700, 'msg_b', 'e3'));
  await ask('next after postpone', q.nextDelivery());
  await ask('cancel', q.cancel('msg_b', 'basic:raw'));
  await ask('recover, since after', q.recover(T + 800, 'k1', 'e5', T + 260));
  await ask('recover', q.recover(T + 800, 'k1', 'e5', T + 250));
  await ask('recover again: none failed', q.recover(T + 800, 'k1', 'e5', T));
  await ask('cancel target', q.cancelTarget('k1', 'e5'));
  await ask('cancel target, other key', q.cancelTarget('k1', 'e9'));
  await ask(
    'rolled back',
    q.storeTransaction(async () => {
      await q.insertDelivery('k1', 'msg_f', 'e4', 'https://hooks.test/e4', '{}', T, T);
      await q.setSchedule('cancelled', null, 'scheduled', 'k1', 'msg_b', 'e3');
      throw new Error('the step failed');
    }),
  );
  await ask(
    'final',
    Promise.all([
      q.delivery('msg_a', 'e1'),
      q.delivery('msg_a', 'e5'),
      q.delivery('msg_b', 'e3'),
      q.delivery('msg_b', 'basic:raw'),
      q.delivery('msg_f', 'e4'),
      q.delivery('msg_g', 'e9'),
    ]),
  );
  await ask('due at last', q.dueDeliveries(T + 10_000, 10));
  return out;
}

type DeliveryInspection = ReturnType<typeof deliveryInspection>;

/** Delivery log rows by (event, target). */
const sortedDeliveries = (rows: unknown) =>
  (rows as Array<{ eventId: string; target: string }>).toSorted((x, y) => `${x.eventId}|${x.target}`.localeCompare(`${y.eventId}|${y.target}`));

/** The main thread's reads of the state the script left. */
async function reads(
  repo: ReturnType<typeof webhookDeliveriesRepo>,
  inspection: { [K in keyof DeliveryInspection]: (...args: Parameters<DeliveryInspection[K]>) => unknown },
): Promise<unknown[]> {
  const { k1, k2 } = both;
  const all = await repo.attempts(k1, {}, null, 10);
  return [
    all,
    await repo.attempts(k1, {}, null, 2),
    await repo.attempts(k1, {}, [T + 301, 'atmpt_2'], 10),
    await repo.attempts(k1, { endpointId: 'e3' }, null, 10),
    await repo.attempts(k1, { messageId: 'msg_a', status: 'failed' }, null, 10),
    await repo.attempts(k2, {}, null, 10),
    await repo.targetsOf(k1, 'msg_a'),
    await repo.targetsOf(k1, 'msg_b', 'e3'),
    await repo.targetsOf(k2, 'msg_a'),
    await inspection.withStatus('pending'),
    await inspection.withStatus('failed'),
    await inspection.delivery(k1, 'msg_a', 'e1'),
    await inspection.delivery(k2, 'msg_a', 'e1'),
    await inspection.attemptHeaders(k1, 'atmpt_1'),
    await inspection.attemptHeaders(k1, 'atmpt_2'),
    await inspection.attemptHeaders(k2, 'atmpt_1'),
    // the delivery log orders by creation alone: rows of one millisecond in either engine's order, compared as a set
    sortedDeliveries(await inspection.log([k1.apiKeyId, k2.apiKeyId], {}, 10)),
    await inspection.log([k1.apiKeyId], { endpointId: 'e3' }, 10),
    sortedDeliveries(await inspection.log([k1.apiKeyId], { messageId: 'msg_a', status: 'failed' }, 10)),
    await inspection.log([k2.apiKeyId], {}, 1),
    await inspection.log([], {}, 10),
    await inspection.counts([k1.apiKeyId, k2.apiKeyId]),
    await inspection.counts([k2.apiKeyId]),
    await inspection.counts([]),
  ];
}

describe('the delivery store on PostgreSQL', () => {
  it('answers every call as the SQLite store does', async () => {
    const sqlite = await script(sqliteWorker.queries);
    const pg = await script(deliveryQueriesPg(both.engine));
    expect(pg).toEqual(sqlite);
    const answers = new Map(pg.map((entry) => [(entry as unknown[])[0] as string, (entry as unknown[]).slice(1)]));
    const first = (label: string): unknown => answers.get(label)?.[0];
    const ids = (label: string) =>
      ((answers.get(label)?.[0] ?? []) as Array<{ id?: string; eventId?: string; target?: string }>).map((r) => r.id ?? `${r.eventId}|${r.target}`);
    // and they are what they should be
    expect(ids('ready')).toEqual(['msg_a', 'msg_g', 'msg_b', 'msg_f']);
    expect(ids('ready, first 2')).toEqual(['msg_a', 'msg_g']);
    expect((first('ready') as Array<{ payload: string; basicPayload: string | null }>)[2]).toMatchObject({
      payload: '{"z":1,"a":[2,{"y":3,"b":4}]}',
      basicPayload: '{"basic":true,"order":[3,1]}',
    });
    expect(answers.get('config')?.[0]).toEqual({ isEnabled: 1, encryptData: 0, encodeData: 1, publicKey: 'pk', enableDataProtection: 0 });
    expect(answers.get('endpoint')?.[0]).toMatchObject({ id: 'e6', disabled: 0, rateLimit: 5, filterTypes: '["document.updated", 3]', channels: 'null' });
    expect(answers.get('endpoint, another key')).toEqual([undefined]);
    expect(ids('takes comment in o1')).toEqual(['e1', 'e2', 'e3']);
    expect(ids('takes document in o2/d1')).toEqual(['e1', 'e5', 'e6']);
    expect(ids('takes comment, no channel')).toEqual(['e1', 'e2']);
    expect(ids('takes, other key')).toEqual(['e9']);
    expect(ids('due')).toEqual(['msg_b|e3', 'msg_a|e1', 'msg_a|e5', 'msg_g|e9']);
    expect(answers.get('next')).toEqual([{ at: T + 290 }]);
    expect(answers.get('recover, since after')).toEqual([0]);
    expect(answers.get('recover')).toEqual([1]);
    expect(answers.get('rolled back')).toEqual(['error', 'the step failed']);
    expect((first('final') as unknown[]).map((d) => (d as { status?: string } | undefined)?.status)).toEqual([
      'succeeded',
      'cancelled',
      'pending',
      'cancelled',
      undefined,
      'pending',
    ]);

    const sqliteReads = await reads(both.storage.deliveries, both.storage.deliveries);
    const pgReads = await reads(webhookDeliveriesRepo(deliveryEngine(both.pg)), deliveryInspection(deliveryEngine(both.pg)));
    expect(pgReads).toEqual(sqliteReads);
    expect((pgReads[0] as Array<{ id: string }>).map((a) => a.id)).toEqual(['atmpt_3', 'atmpt_2', 'atmpt_1']);
    expect((pgReads[2] as Array<{ id: string }>).map((a) => a.id)).toEqual(['atmpt_1']);
    expect(pgReads[6]).toEqual(['e1', 'e5']);
    expect(pgReads.slice(9, 11)).toEqual([2, 0]);
    expect((pgReads[16] as Array<{ eventId: string; target: string }>).map((d) => `${d.eventId}|${d.target}`)).toEqual([
      'msg_a|e1',
      'msg_a|e5',
      'msg_b|basic:raw',
      'msg_b|e3',
      'msg_g|e9',
    ]);
    expect(pgReads[16]).toContainEqual(
      expect.objectContaining({ eventId: 'msg_a', target: 'e1', status: 'succeeded', attempts: 1, lastAttemptAt: T + 301, createdAt: T + 250 }),
    );
    expect(pgReads.slice(21)).toEqual([
      { failed: 0, retrying: 1, pending: 1 },
      { failed: 0, retrying: 0, pending: 1 },
      { failed: 0, retrying: 0, pending: 0 },
    ]);
    expect(pgReads[13]).toEqual({
      eventId: 'msg_a',
      target: 'e1',
      timestamp: T + 301,
      requestHeaders: [['content-type', 'application/json']],
      responseHeaders: [
        ['x-a', '1'],
        ['x-b', '2'],
      ],
      responseHeadersOmitted: 3,
    });
  });
});

describe('the delivery engine on the PostgreSQL store', () => {
  it('delivers an event exactly once to a real receiver and records its attempt', async () => {
    const receiver = await startReceiver();
    const webhooks = webhooksRepo(both.pg);
    const now = Date.now();
    await both.insertBoth(
      `INSERT INTO webhook_endpoints (id, api_key_id, url, description, filter_types, channels, disabled, metadata, secret_enc, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ['e_live', 'k2', `${receiver.url}/hook`, '', null, null, false, '{}', secrets.encrypt(SIGNING_SECRET), now, now],
    );
    await both.insertBoth(
      'INSERT INTO webhook_configs (api_key_id, is_enabled, encrypt_data, encode_data, public_key, enable_data_protection, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ['k2', true, false, false, '', false, now, now],
    );
    // nothing else is left to send: what the parity script left pending goes to hosts that do not exist
    await both.engine.write(async (db) => {
      await db.$client.query("UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE status = 'pending'");
      await db.$client.query('UPDATE webhook_events SET dispatched_at = $1 WHERE dispatched_at IS NULL', [now]);
      await db.$client.query("UPDATE webhook_endpoints SET disabled = true WHERE id = 'e9'");
    });
    await both.insertBoth(
      'INSERT INTO webhook_events (id, api_key_id, type, organization_id, document_id, payload, available_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ['msg_live', 'k2', 'comment.added', 'o1', null, '{"event":"comment.added","data":{"z":1,"a":2}}', now, now],
    );
    const logged: string[] = [];
    const engine = createDeliveryEngine({
      queries: deliveryQueriesPg(both.engine),
      secrets,
      settings: { retryScheduleMs: [0, 100, 200], jitter: 0, timeoutMs: 5_000, disableAfterMs: 3_600_000, concurrency: 4, outboundPrivate: 'allow' },
      version: 'test',
      log: (level, message) => {
        if (level === 'error' || level === 'warn') logged.push(message);
      },
      writeMain: (writes) => webhooks.applyDeliveryState(writes.filter((w): w is DeliveryStateWrite => w.kind !== 'exhausted')),
    });
    try {
      await eventually(() => expect(receiver.received).toHaveLength(1));
      const request = receiver.received[0]!;
      expect(request.path).toBe('/hook');
      expect(request.headers['webhook-id']).toBe('msg_live');
      expect(JSON.parse(request.body)).toEqual({ event: 'comment.added', data: { z: 1, a: 2 }, webhookId: 'msg_live' });
      expect(() =>
        new Webhook(SIGNING_SECRET).verify(request.body, {
          'webhook-id': String(request.headers['webhook-id']),
          'webhook-timestamp': String(request.headers['webhook-timestamp']),
          'webhook-signature': String(request.headers['webhook-signature']),
        }),
      ).not.toThrow();
      const attempts = webhookDeliveriesRepo(deliveryEngine(both.pg));
      await eventually(async () => expect(await attempts.attempts(both.k2, { messageId: 'msg_live' }, null, 10)).toHaveLength(1));
      const [attempt] = await attempts.attempts(both.k2, { messageId: 'msg_live' }, null, 10);
      expect(attempt).toMatchObject({ target: 'e_live', status: 'succeeded', responseStatusCode: 200, trigger: 'scheduled', url: `${receiver.url}/hook` });
      expect(await deliveryInspection(deliveryEngine(both.pg)).delivery(both.k2, 'msg_live', 'e_live')).toMatchObject({ status: 'succeeded', attempts: 1 });
      await eventually(async () =>
        expect(
          (await both.engine.read(async (db) => db.$client.query("SELECT dispatched_at AS at FROM webhook_events WHERE id = 'msg_live'"))).rows[0]?.at,
        ).toBeTypeOf('number'),
      );
      // more passes find nothing more to send: still one request, one attempt
      engine.wake();
      await new Promise((resolve) => setTimeout(resolve, 500));
      engine.wake();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received).toHaveLength(1);
      expect(await attempts.attempts(both.k2, { messageId: 'msg_live' }, null, 10)).toHaveLength(1);
      expect(logged).toEqual([]);
    } finally {
      await engine.close();
      await receiver.close();
    }
  });
});

describe('leases on PostgreSQL', () => {
  it('takes a due delivery for one engine until its lease ends, then another engine may take it over', async () => {
    const q = deliveryQueriesPg(both.engine);
    const other = deliveryQueriesPg(both.engine);
    await q.storeTransaction(async () => {
      for (const target of ['l1', 'l2', 'l3']) await q.insertDelivery('k1', 'msg_lease', target, `https://hooks.test/${target}`, '{}', T + 1_000, T + 1_000);
    });
    const first = await q.takeDueDeliveries(T + 1_000, 2, T + 5_000, []);
    expect(first.map((d) => d.target)).toEqual(['l1', 'l2']);
    expect(first.map((d) => d.nextAttemptAt)).toEqual([T + 5_000, T + 5_000]);
    // the other engine gets what is left, not what the first holds
    expect((await other.takeDueDeliveries(T + 4_999, 10, T + 9_000, [])).map((d) => d.target)).toEqual(['l3']);
    expect(await other.takeDueDeliveries(T + 4_999, 10, T + 9_000, [])).toEqual([]);
    // the first engine died: once its lease is over, the other takes its deliveries over
    expect((await other.takeDueDeliveries(T + 5_000, 10, T + 9_000, [])).map((d) => d.target)).toEqual(['l1', 'l2']);
    // a delivery the engine has in flight is neither taken nor leased again
    await q.setSchedule('pending', T + 6_000, 'replay', 'k1', 'msg_lease', 'l1');
    expect(await q.takeDueDeliveries(T + 6_000, 10, T + 20_000, ['msg_lease|l1'])).toEqual([]);
    expect((await q.delivery('msg_lease', 'l1'))?.nextAttemptAt).toBe(T + 6_000);
    await q.cancelTarget('k1', 'l1');
    await q.cancelTarget('k1', 'l2');
    await q.cancelTarget('k1', 'l3');
  });

  it('two delivery engines on one PostgreSQL send every delivery once', async () => {
    const receiver = await startReceiver();
    const webhooks = webhooksRepo(both.pg);
    const now = Date.now();
    await both.engine.write(async (db) => {
      await db.$client.query("UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE status = 'pending'");
      await db.$client.query('UPDATE webhook_events SET dispatched_at = $1 WHERE dispatched_at IS NULL', [now]);
      await db.$client.query("UPDATE webhook_endpoints SET disabled = true WHERE api_key_id = 'k2'");
    });
    await both.insertBoth(
      `INSERT INTO webhook_configs (api_key_id, is_enabled, encrypt_data, encode_data, public_key, enable_data_protection, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (api_key_id) DO NOTHING`,
      ['k2', true, false, false, '', false, now, now],
    );
    for (const id of ['e_two_a', 'e_two_b'])
      await both.insertBoth(
        `INSERT INTO webhook_endpoints (id, api_key_id, url, description, filter_types, channels, disabled, metadata, secret_enc, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [id, 'k2', `${receiver.url}/${id}`, '', null, null, false, '{}', secrets.encrypt(SIGNING_SECRET), now, now],
      );
    const EVENTS = 60;
    for (let i = 0; i < EVENTS; i++)
      await both.insertBoth(
        'INSERT INTO webhook_events (id, api_key_id, type, organization_id, document_id, payload, available_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [`msg_two_${String(i).padStart(3, '0')}`, 'k2', 'comment.added', null, null, `{"n":${i}}`, now, now],
      );
    const logged: string[] = [];
    const start = () =>
      createDeliveryEngine({
        queries: deliveryQueriesPg(both.engine),
        secrets,
        settings: { retryScheduleMs: [0, 100, 200], jitter: 0, timeoutMs: 5_000, disableAfterMs: 3_600_000, concurrency: 8, outboundPrivate: 'allow' },
        version: 'test',
        log: (level, message, fields) => {
          if (level === 'error' || level === 'warn') logged.push(`${message} ${JSON.stringify(fields)}`);
        },
        writeMain: (writes) => webhooks.applyDeliveryState(writes.filter((w): w is DeliveryStateWrite => w.kind !== 'exhausted')),
      });
    const engines = [start(), start()];
    try {
      await eventually(() => expect(receiver.received.length).toBeGreaterThanOrEqual(EVENTS * 2), 20_000);
      for (const e of engines) e.wake();
      await new Promise((resolve) => setTimeout(resolve, 500));
      const sent = receiver.received.map((r) => `${r.headers['webhook-id']}|${r.path}`);
      expect(new Set(sent).size).toBe(EVENTS * 2);
      expect(sent).toHaveLength(EVENTS * 2);
      const recorded = await both.engine.read(
        async (db) =>
          (
            await db.$client.query<{ n: number; succeeded: number }>(
              "SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded FROM webhook_attempts WHERE event_id LIKE 'msg_two_%'",
            )
          ).rows[0],
      );
      expect(recorded).toEqual({ n: EVENTS * 2, succeeded: EVENTS * 2 });
      expect(logged).toEqual([]);
    } finally {
      await Promise.all(engines.map((e) => e.close()));
      await receiver.close();
    }
  });
});
