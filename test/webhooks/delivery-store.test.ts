import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import type { AttemptView } from '../../shared/admin.ts';
import { addAnnotation } from '../helpers/comments.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { enableWithEndpoint, FAST_WEBHOOKS } from '../helpers/webhooks.ts';

/** advancedwebhook/attempts/list's data. */
interface AttemptsAnswer {
  attempts: AttemptView[];
}

// Delivery state lives in DATA_DIR/webhooks.db, written by the delivery worker; hearth.db keeps the outbox.
const receivers: Receiver[] = [];
const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(receivers.map((r) => r.close()));
});

async function setUp() {
  const r = await startReceiver();
  receivers.push(r);
  const t = await startTestServer({ webhooks: FAST_WEBHOOKS });
  servers.push(t);
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  const endpoint = await enableWithEndpoint(t, r.url);
  return { r, t, endpoint, dataDir: t.server.config.dataDir };
}

describe('the delivery store', () => {
  it('keeps deliveries and attempts in webhooks.db, not in hearth.db, and marks the event dispatched in hearth.db', async () => {
    const { r, t, endpoint, dataDir } = await setUp();
    await addAnnotation(t, { commentData: [{ commentText: 'hello', from: { userId: 'ann' } }] });
    await eventually(() => expect(r.received).toHaveLength(1));
    const messageId = r.received[0]!.headers['webhook-id'] as string;
    await eventually(async () =>
      expect(dataOf<AttemptsAnswer>(await t.callK('/v2/workspace/advancedwebhook/attempts/list', { messageId })).attempts).toHaveLength(1),
    );

    const main = new Database(join(dataDir, 'hearth.db'), { readonly: true });
    const store = new Database(join(dataDir, 'webhooks.db'), { readonly: true });
    try {
      const tables = (db: Database.Database) =>
        (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((x) => x.name);
      expect(tables(main)).not.toContain('webhook_deliveries');
      expect(tables(main)).not.toContain('webhook_deliveries_legacy');
      expect(store.prepare('SELECT target, status, attempts FROM webhook_deliveries WHERE event_id = ?').get(messageId)).toEqual({
        target: endpoint.id,
        status: 'succeeded',
        attempts: 1,
      });
      expect(store.prepare('SELECT count(*) AS n FROM webhook_attempts WHERE event_id = ?').get(messageId)).toEqual({ n: 1 });
      // the dispatched mark is the main thread's write, batched after the fan-out
      await eventually(() =>
        expect(
          (main.prepare('SELECT dispatched_at FROM webhook_events WHERE id = ?').get(messageId) as { dispatched_at: number | null }).dispatched_at,
        ).toEqual(expect.any(Number)),
      );
    } finally {
      main.close();
      store.close();
    }
  });

  it("moves an older Hearth's delivery state out of hearth.db at start, and sends what was pending", async () => {
    const { r, t, endpoint, dataDir } = await setUp();
    await t.server.close(); // stopped, data dir kept (restart below starts it again)
    // An older Hearth kept deliveries in hearth.db (migration 0007 renames its tables to *_legacy): one delivered
    // message with its attempt, and one still pending when it stopped.
    const main = new Database(join(dataDir, 'hearth.db'));
    const now = Date.now();
    try {
      main.exec(`CREATE TABLE webhook_deliveries_legacy (api_key_id text NOT NULL, event_id text NOT NULL, target text NOT NULL, url text NOT NULL, body text NOT NULL, status text NOT NULL, attempts integer DEFAULT 0 NOT NULL, next_attempt_at integer, next_trigger text DEFAULT 'scheduled' NOT NULL, last_attempt_at integer, last_status_code integer, created_at integer NOT NULL, PRIMARY KEY(event_id, target));
        CREATE TABLE webhook_attempts_legacy (id text PRIMARY KEY NOT NULL, api_key_id text NOT NULL, event_id text NOT NULL, target text NOT NULL, url text NOT NULL, trigger text NOT NULL, status text NOT NULL, response_status_code integer, response text NOT NULL, duration_ms integer NOT NULL, timestamp integer NOT NULL);`);
      const apiKeyId = (main.prepare('SELECT api_key_id AS id FROM webhook_endpoints WHERE id = ?').get(endpoint.id) as { id: string }).id;
      const event = main.prepare(
        "INSERT INTO webhook_events (id, api_key_id, type, payload, available_at, dispatched_at, created_at) VALUES (?, ?, 'comment_annotation.add', '{}', ?, ?, ?)",
      );
      event.run('msg_old_delivered', apiKeyId, now, now, now);
      event.run('msg_old_pending', apiKeyId, now, now, now);
      const delivery = main.prepare(
        'INSERT INTO webhook_deliveries_legacy (api_key_id, event_id, target, url, body, status, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      delivery.run(apiKeyId, 'msg_old_delivered', endpoint.id, `${r.url}/`, '{"old":"delivered"}', 'succeeded', 1, null, now - 1000);
      delivery.run(apiKeyId, 'msg_old_pending', endpoint.id, `${r.url}/`, '{"old":"pending"}', 'pending', 0, now, now);
      main
        .prepare(
          "INSERT INTO webhook_attempts_legacy (id, api_key_id, event_id, target, url, trigger, status, response_status_code, response, duration_ms, timestamp) VALUES ('atmpt_old', ?, 'msg_old_delivered', ?, ?, 'scheduled', 'succeeded', 204, '', 3, ?)",
        )
        .run(apiKeyId, endpoint.id, `${r.url}/`, now - 1000);
    } finally {
      main.close();
    }

    await t.restart();
    // the pending one goes out, signed with the endpoint's secret, with its stored body
    await eventually(() => expect(r.received.map((x) => x.body)).toContain('{"old":"pending"}'));
    const sent = r.received.find((x) => x.body === '{"old":"pending"}')!;
    expect(new Webhook(endpoint.secret).verify(sent.body, sent.headers as Record<string, string>)).toEqual({ old: 'pending' });
    expect(r.received.map((x) => x.body)).not.toContain('{"old":"delivered"}');
    // the old attempt is listed with the new one
    await eventually(async () => {
      const attempts = dataOf<AttemptsAnswer>(await t.callK('/v2/workspace/advancedwebhook/attempts/list', { endpointId: endpoint.id })).attempts;
      expect(attempts.map((a) => a.messageId).sort()).toEqual(['msg_old_delivered', 'msg_old_pending']);
      expect(attempts.map((a) => a.id)).toContain('atmpt_old');
    });
    const check = new Database(join(dataDir, 'hearth.db'), { readonly: true });
    try {
      expect(check.prepare("SELECT name FROM sqlite_master WHERE name LIKE '%_legacy'").all()).toEqual([]);
    } finally {
      check.close();
    }
    expect(existsSync(join(dataDir, 'webhooks.db'))).toBe(true);
  });

  it('answers a replay through the worker while the attempts list reads webhooks.db', async () => {
    const { r, t } = await setUp();
    await addAnnotation(t, { commentData: [{ commentText: 'hello', from: { userId: 'ann' } }] });
    await eventually(() => expect(r.received).toHaveLength(1));
    const messageId = r.received[0]!.headers['webhook-id'] as string;
    await eventually(async () =>
      expect(dataOf<AttemptsAnswer>(await t.callK('/v2/workspace/advancedwebhook/attempts/list', { messageId })).attempts).toHaveLength(1),
    );
    const replay = await t.callK('/v2/workspace/advancedwebhook/messages/replay', { messageId });
    expect(replay.status).toBe(200);
    await eventually(() => expect(r.received).toHaveLength(2));
    expect(r.received[1]!.headers['webhook-id']).toBe(messageId);
    await eventually(async () => {
      const attempts = dataOf<AttemptsAnswer>(await t.callK('/v2/workspace/advancedwebhook/attempts/list', { messageId })).attempts;
      expect(attempts.map((a) => a.trigger).sort()).toEqual(['replay', 'scheduled']);
    });
  });

  it('delivers an event larger than the delivery worker starts with (a 6 MB document in crdt.update_data)', async () => {
    const r = await startReceiver();
    receivers.push(r);
    const t = await startTestServer({ webhooks: FAST_WEBHOOKS });
    servers.push(t);
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'big' }] });
    await enableWithEndpoint(t, r.url, { filterTypes: ['crdt.update_data'] });
    const text = 'lorem ipsum '.repeat(500_000);
    expect((await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'big', editorId: 'e1', type: 'text', data: text })).status).toBe(200);
    // the worker's heap may be outgrown on the way: it is then restarted with a larger one and sends it
    await eventually(() => expect(r.received).toHaveLength(1), 60_000);
    expect(JSON.parse(r.received[0]!.body).data.crdtData.data).toHaveLength(text.length);
  }, 90_000);
});
