// Issue 32's webhook gaps: each attempt keeps the headers of its request as they went out and of the receiver's
// answer as received (bounded: 50 headers, 4 KiB), an older webhooks.db gains the columns at start, and the admin
// UI's test event reaches the chosen endpoint alone, signed and recorded like any delivery.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptView, deliveryAnswer } from '../../shared/admin.ts';
import { openDeliveryFile } from '../../server/db/delivery-file.ts';
import { ATTEMPT_RESPONSE_HEADERS } from '../../server/webhooks/protocol.ts';
import { keptHeaders } from '../../server/webhooks/sender.ts';
import { adminCookie } from '../helpers/admin.ts';
import { addAnnotation } from '../helpers/comments.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { enableWithEndpoint, FAST_WEBHOOKS } from '../helpers/webhooks.ts';

/** advancedwebhook/attempts/list's data: the attempts, each parsed by attemptView. */
interface AttemptsAnswer {
  attempts: unknown[];
}

let t: TestServer;
let cookie: string;
const receivers: Receiver[] = [];
beforeAll(async () => {
  t = await startTestServer({ webhooks: FAST_WEBHOOKS });
  cookie = await adminCookie(t);
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
});
afterAll(async () => {
  await t.close();
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(options: Parameters<typeof startReceiver>[0] = {}) {
  const r = await startReceiver(options);
  receivers.push(r);
  return r;
}
const get = (path: string, params: Record<string, string>) => fetch(`${t.url}/admin/api${path}?${new URLSearchParams(params)}`, { headers: { cookie } });
const post = (path: string, body: unknown) =>
  fetch(`${t.url}/admin/api${path}`, { method: 'POST', headers: { cookie, 'x-hearth-ui': '1' }, body: JSON.stringify(body) });
const attemptsOf = async (endpointId: string) =>
  dataOf<AttemptsAnswer>(await t.callK('/v2/workspace/advancedwebhook/attempts/list', { endpointId })).attempts.map((a) => attemptView.parse(a));
const delivery = async (messageId: string, endpointId: string, attemptId?: string) => {
  const res = await get('/webhooks/delivery', { apiKey: t.credentials.apiKey, messageId, endpointId, ...(attemptId ? { attemptId } : {}) });
  return { status: res.status, body: (await res.json()) as unknown };
};
/** `name: value` lines as a map (header names are unique in these tests). */
const asMap = (lines: string[]) => Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)]));

describe("an attempt's headers", () => {
  it('keeps the request headers as they went out and the answer headers as received, shown by the delivery endpoint', async () => {
    const r = await receiver({
      fallback: { status: 202, headers: { 'x-receiver': 'kept', 'retry-after': '5', 'content-type': 'text/plain' }, body: 'accepted' },
    });
    const { id: endpointId, secret } = await enableWithEndpoint(t, `${r.url}/in`, { filterTypes: ['comment_annotation.add'] });
    await addAnnotation(t, { commentData: [{ commentText: 'headers', from: { userId: 'ann' } }] });
    await eventually(() => expect(r.received).toHaveLength(1));
    const got = r.received[0]!;
    const messageId = String(got.headers['webhook-id']);
    const [attempt] = await eventually(async () => {
      const list = await attemptsOf(endpointId);
      expect(list).toHaveLength(1);
      return list;
    });
    const answer = await delivery(messageId, endpointId, attempt!.id);
    expect(answer.status).toBe(200);
    const d = deliveryAnswer.parse(answer.body);
    expect(d.headersFrom).toBe('sent');
    // every header Hearth sent, with the value the receiver got; Node's own transport headers are all that is not listed
    const sent = asMap(d.headers);
    expect(Object.keys(sent).sort()).toEqual(['content-length', 'content-type', 'user-agent', 'webhook-id', 'webhook-signature', 'webhook-timestamp']);
    for (const [name, value] of Object.entries(sent)) expect(got.headers[name]).toBe(value);
    expect(
      Object.keys(got.headers)
        .filter((n) => !(n in sent))
        .sort(),
    ).toEqual(['connection', 'host']);
    // the signature shown is the one that went out, and it verifies
    expect(new Webhook(secret).verify(got.body, sent)).toMatchObject({ event: 'comment_annotation.add' });
    // the answer's headers, as the receiver sent them (Node adds date, connection, keep-alive and the length)
    const received = asMap(d.responseHeaders ?? []);
    expect(received).toMatchObject({ 'x-receiver': 'kept', 'retry-after': '5', 'content-type': 'text/plain' });
    expect(Object.keys(received)).toContain('date');
    expect(d.responseHeadersOmitted).toBe(0);
    // an attempt of another delivery, or an unknown one, is not this delivery's
    expect((await delivery(messageId, endpointId, 'atmpt_nope')).status).toBe(404);
    expect((await delivery(messageId, 'ep_other', attempt!.id)).status).toBe(404);
    // no attempt named: the template, no response headers
    expect(deliveryAnswer.parse((await delivery(messageId, endpointId)).body)).toMatchObject({ headersFrom: 'template', responseHeaders: null });
    // bad input is an error envelope
    const bad = await get('/webhooks/delivery', { apiKey: t.credentials.apiKey, messageId, endpointId, at: 'soon' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { status: string } }).error.status).toBe('INVALID_ARGUMENT');
  });

  it('keeps at most 50 answer headers and 4 KiB of them, and counts those left out', async () => {
    const many = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`x-many-${String(i).padStart(2, '0')}`, `v${i}`]));
    const r = await receiver({ fallback: { status: 200, headers: many, body: 'ok' } });
    const { id: endpointId } = await enableWithEndpoint(t, r.url);
    const sent = await post('/webhooks/test', { apiKey: t.credentials.apiKey, endpointId });
    const { messageId } = (await sent.json()) as { messageId: string };
    const attempt = await eventually(async () => {
      const list = (await attemptsOf(endpointId)).filter((a) => a.messageId === messageId);
      expect(list).toHaveLength(1);
      return list[0]!;
    });
    const d = deliveryAnswer.parse((await delivery(messageId, endpointId, attempt.id)).body);
    expect(d.responseHeaders).toHaveLength(ATTEMPT_RESPONSE_HEADERS.count);
    // a prefix of what came, in order
    expect(d.responseHeaders?.slice(0, 3)).toEqual(['x-many-00: v0', 'x-many-01: v1', 'x-many-02: v2']);
    expect(d.responseHeadersOmitted).toBe(70 + 4 - ATTEMPT_RESPONSE_HEADERS.count); // date, connection, keep-alive, content-length
  });

  it('bounds the bytes: what is kept is a prefix within 4 KiB, never a header cut in the middle', () => {
    const big = { 'x-a': 'a'.repeat(1500), 'x-b': 'b'.repeat(1500), 'x-c': 'c'.repeat(1500), 'x-d': 'd' };
    const kept = keptHeaders(big, ATTEMPT_RESPONSE_HEADERS);
    expect(kept.headers.map(([n]) => n)).toEqual(['x-a', 'x-b']);
    expect(kept.omitted).toBe(2);
    expect(kept.headers.reduce((n, [k, v]) => n + k.length + v.length, 0)).toBeLessThanOrEqual(ATTEMPT_RESPONSE_HEADERS.bytes);
    // repeated set-cookie values are one pair each
    expect(keptHeaders({ 'set-cookie': ['a=1', 'b=2'], 'x-none': undefined }, ATTEMPT_RESPONSE_HEADERS)).toEqual({
      headers: [
        ['set-cookie', 'a=1'],
        ['set-cookie', 'b=2'],
      ],
      omitted: 0,
    });
  });

  it('records no answer headers when no HTTP answer came (the attempt view says so)', async () => {
    const r = await receiver();
    const { id: endpointId } = await enableWithEndpoint(t, r.url);
    await r.close(); // nothing listens there now: connection refused
    const sent = await post('/webhooks/test', { apiKey: t.credentials.apiKey, endpointId });
    const { messageId } = (await sent.json()) as { messageId: string };
    const attempt = await eventually(async () => {
      const list = (await attemptsOf(endpointId)).filter((a) => a.messageId === messageId);
      expect(list.length).toBeGreaterThan(0);
      return list[0]!;
    });
    expect(attempt.responseStatusCode).toBeNull();
    const d = deliveryAnswer.parse((await delivery(messageId, endpointId, attempt.id)).body);
    expect(d).toMatchObject({ headersFrom: 'sent', responseHeaders: null, responseHeadersOmitted: 0 });
    expect(asMap(d.headers)['webhook-id']).toBe(messageId);
  });
});

describe('webhooks.db from before attempts kept headers', () => {
  it('gains the columns once (the worker and the main thread both open it), keeps its rows, and the UI recomputes their headers', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-deliveries-'));
    try {
      const old = new Database(join(dir, 'webhooks.db'));
      old.exec(`CREATE TABLE webhook_deliveries (api_key_id text NOT NULL, event_id text NOT NULL, target text NOT NULL, url text NOT NULL, body text NOT NULL, status text NOT NULL, attempts integer DEFAULT 0 NOT NULL, next_attempt_at integer, next_trigger text DEFAULT 'scheduled' NOT NULL, last_attempt_at integer, last_status_code integer, created_at integer NOT NULL, PRIMARY KEY (event_id, target));
        CREATE TABLE webhook_attempts (id text PRIMARY KEY NOT NULL, api_key_id text NOT NULL, event_id text NOT NULL, target text NOT NULL, url text NOT NULL, trigger text NOT NULL, status text NOT NULL, response_status_code integer, response text NOT NULL, duration_ms integer NOT NULL, timestamp integer NOT NULL);
        INSERT INTO webhook_attempts VALUES ('atmpt_old', 'key', 'msg_old', 'ep_old', 'http://127.0.0.1:9/', 'scheduled', 'succeeded', 200, 'ok', 3, 1700000000000);
        PRAGMA user_version = 1;`);
      old.close();
      const a = openDeliveryFile(dir, { readOnly: true });
      const b = openDeliveryFile(dir, { readOnly: false });
      try {
        expect(b.pragma('user_version', { simple: true })).toBe(2);
        const columns = (b.prepare('PRAGMA table_info(webhook_attempts)').all() as Array<{ name: string }>).map((c) => c.name);
        expect(columns).toEqual(expect.arrayContaining(['request_headers', 'response_headers', 'response_headers_omitted']));
        expect(
          a.prepare('SELECT id, request_headers AS req, response_headers AS res, response_headers_omitted AS omitted FROM webhook_attempts').all(),
        ).toEqual([{ id: 'atmpt_old', req: null, res: null, omitted: 0 }]);
      } finally {
        a.close();
        b.close();
      }
      // a file from a newer Hearth is refused, unchanged
      const newer = new Database(join(dir, 'webhooks.db'));
      newer.pragma('user_version = 9');
      newer.close();
      expect(() => openDeliveryFile(dir, { readOnly: false })).toThrow(/newer Hearth \(schema 9/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('shows an attempt recorded without headers with its headers worked out again, marked recomputed', async () => {
    const r = await receiver();
    const { id: endpointId } = await enableWithEndpoint(t, r.url);
    const { messageId } = (await (await post('/webhooks/test', { apiKey: t.credentials.apiKey, endpointId })).json()) as { messageId: string };
    const attempt = await eventually(async () => {
      const list = (await attemptsOf(endpointId)).filter((a) => a.messageId === messageId);
      expect(list).toHaveLength(1);
      return list[0]!;
    });
    // the attempt as an older Hearth wrote it: without headers (the server is stopped: the worker is the file's writer)
    await t.server.close();
    await t.query('UPDATE webhook_attempts SET request_headers = NULL, response_headers = NULL WHERE id = ?', [attempt.id], { sqliteFile: 'webhooks.db' });
    await t.restart();
    cookie = await adminCookie(t);
    const d = deliveryAnswer.parse((await delivery(messageId, endpointId, attempt.id)).body);
    expect(d.headersFrom).toBe('recomputed');
    expect(d.headers).toContain(`webhook-timestamp: ${Math.floor(Date.parse(attempt.timestamp) / 1000)}`);
    expect(d.headers).toContain(`webhook-signature: ${String(r.received.find((x) => x.headers['webhook-id'] === messageId)!.headers['webhook-signature'])}`);
    expect(d.responseHeaders).toBeNull();
  });
});

describe('the admin test event', () => {
  it('reaches the chosen endpoint alone, past its filters, signed and recorded like any delivery', async () => {
    const chosen = await receiver();
    const other = await receiver();
    const { id: chosenId, secret } = await enableWithEndpoint(t, chosen.url, { filterTypes: ['notification.add'], channels: ['somewhere-else'] });
    const { id: otherId } = await enableWithEndpoint(t, other.url, { filterTypes: ['notification.add'] });
    const sent = await post('/webhooks/test', { apiKey: t.credentials.apiKey, endpointId: chosenId });
    expect(sent.status).toBe(200);
    const { messageId, eventType } = (await sent.json()) as { messageId: string; eventType: string };
    expect(eventType).toBe('notification.add');
    await eventually(() => expect(chosen.received.filter((x) => x.headers['webhook-id'] === messageId)).toHaveLength(1));
    const got = chosen.received.find((x) => x.headers['webhook-id'] === messageId)!;
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toMatchObject({
      event: 'notification.add',
      data: { test: true, endpointId: chosenId },
    });
    // one delivery in all (the fan-out writes every delivery of an event at once): to the chosen endpoint
    expect(await t.query('SELECT target FROM webhook_deliveries WHERE event_id = ?', [messageId], { sqliteFile: 'webhooks.db' })).toEqual([
      { target: chosenId },
    ]);
    expect(other.received.filter((x) => x.headers['webhook-id'] === messageId)).toEqual([]);
    expect((await attemptsOf(otherId)).filter((a) => a.messageId === messageId)).toEqual([]);
    await eventually(async () => expect((await attemptsOf(chosenId)).map((a) => [a.messageId, a.status])).toContainEqual([messageId, 'succeeded']));
    // the other endpoint still receives ordinary events of that type
    const note = await t.callK('/v2/notifications/add', {
      organizationId: 'acme',
      documentId: 'doc',
      actionUser: { userId: 'ann' },
      displayHeadlineMessageTemplate: 'hi',
      displayBodyMessage: 'body',
      notifyUsers: [{ userId: 'bob' }],
    });
    expect(note.body).toMatchObject({ result: { status: 'success' } });
    await eventually(() => expect(other.events('notification.add')).toHaveLength(1));
  });

  it('is refused while advanced webhooks are off for the key', async () => {
    const r = await receiver();
    const { id } = await enableWithEndpoint(t, r.url);
    await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: false });
    try {
      const refused = await post('/webhooks/test', { apiKey: t.credentials.apiKey, endpointId: id });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({
        error: { status: 'FAILED_PRECONDITION', message: 'Nothing would receive it: turn advanced webhooks on for this key.' },
      });
    } finally {
      await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
    }
  });
});
