// The dashboard's metrics, the webhook test event, the mailbox relay state, data export/import/reset, and the
// contract of the operation answers the UI reads (shared/admin.ts's views parse the operations' real answers).
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  annotationView,
  apiKeyView,
  attemptView,
  endpointView,
  mailAnswer,
  metricsAnswer,
  overviewAnswer,
  recordingView,
  resetAnswer,
} from '../../shared/admin.ts';
import { adminCookie } from '../helpers/admin.ts';
import { addAnnotation } from '../helpers/comments.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { b64, WEBM } from '../helpers/media.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { enableWithEndpoint, FAST_WEBHOOKS } from '../helpers/webhooks.ts';
import { connectYjs } from '../helpers/yjs.ts';
import type { ApiKeyAnswer, AuthTokensAnswer, WorkspaceAnswer } from '../helpers/answers.ts';

/** advancedwebhook/attempts/list's data: the attempts, each parsed by attemptView. */
interface AttemptsAnswer {
  attempts: unknown[];
}
/** advancedwebhook/endpoints/get's data: the endpoints, each parsed by endpointView. */
interface EndpointsAnswer {
  endpoints: unknown[];
}
/** crdt/get's data: one item per editor, its content decoded by type. */
interface CrdtItem {
  data: unknown;
}

let t: TestServer;
let cookie: string;
let receiver: Receiver;
beforeAll(async () => {
  t = await startTestServer({ webhooks: FAST_WEBHOOKS });
  cookie = await adminCookie(t);
  receiver = await startReceiver();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const get = (path: string, params: Record<string, string> = {}, as = cookie) =>
  fetch(`${t.url}/admin/api${path}?${new URLSearchParams(params)}`, { headers: { cookie: as } });
const post = (path: string, body: unknown, headers: Record<string, string> = { 'x-hearth-ui': '1' }) =>
  fetch(`${t.url}/admin/api${path}`, { method: 'POST', headers: { cookie, ...headers }, body: JSON.stringify(body) });

describe('dashboard metrics', () => {
  it('counts every call (public and refused ones too), gives p50/p99 and the gauges, and a per-second series', async () => {
    const before = metricsAnswer.parse(await (await get('/metrics', { seconds: '60' })).json());
    const count = (m: typeof before, status: number) => m.byStatus.find((s) => s.status === status)?.count ?? 0;
    await t.callPublic('/v2/ping', {});
    await t.callK('/v2/agents/get', { agentId: 'missing' });
    await t.callK('/v2/organizations/get', {}, { 'x-svc-auth-token': 'wrong' });
    await t.callK('/v2/crdt/add', { organizationId: 'm', documentId: 'd', editorId: 'e', type: 'text', data: 'x' });
    const client = connectYjs(
      t.url,
      { organizationId: 'm', documentId: 'd', editorId: 'e' },
      { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken },
    );
    await client.synced;
    const after = metricsAnswer.parse(await (await get('/metrics', { seconds: '60' })).json());
    expect(count(after, 200) - count(before, 200)).toBe(2);
    expect(count(after, 404) - count(before, 404)).toBe(1);
    expect(count(after, 403) - count(before, 403)).toBe(1);
    expect(after.series).toHaveLength(60);
    expect(after.series.reduce((n, b) => n + b.requests, 0)).toBeGreaterThanOrEqual(4);
    expect(after.lastMinute.p50).not.toBeNull();
    expect(after.lastMinute.p99).toBeGreaterThanOrEqual(after.lastMinute.p50 as number);
    const gauge = (name: string) => after.gauges.find((g) => g.name === name)?.value;
    expect(gauge('hearth_websocket_connections')).toBe(1);
    expect(gauge('hearth_rooms_loaded')).toBeGreaterThanOrEqual(1);
    expect(gauge('hearth_webhook_queue_depth')).toBe(0);
    expect(gauge('hearth_database_bytes')).toBeGreaterThan(10_000);
    client.close();
    // the same figures in the Prometheus text format (what GET /metrics will serve)
    const text = t.server.app.monitor.metrics.prometheus();
    expect(text).toMatch(/hearth_requests_total\{path="\/v2\/agents\/get",status="404"\} 1\n/);
    expect(text).toContain('# TYPE hearth_websocket_connections gauge');
    // crdt/add stored the room's first update: a counter, as Prometheus takes rates of
    expect(text).toContain('# TYPE hearth_yjs_updates_stored_total counter');
    expect(Number(/\nhearth_yjs_updates_stored_total (\d+)\n/.exec(text)?.[1])).toBeGreaterThanOrEqual(1);
    expect((await get('/metrics', { seconds: '5' })).status).toBe(400);
    expect((await get('/metrics', {}, '')).status).toBe(401);
  });
});

describe('webhooks', () => {
  it('sends a test event through the outbox to the endpoint, signed, and says why it cannot when disabled', async () => {
    const { id, secret } = await enableWithEndpoint(t, receiver.url, { filterTypes: ['comment.add'] });
    const sent = await post('/webhooks/test', { apiKey: t.credentials.apiKey, endpointId: id });
    expect(sent.status).toBe(200);
    const { messageId, eventType } = await sent.json();
    expect(eventType).toBe('comment.add');
    await eventually(() => expect(receiver.received.filter((r) => r.headers['webhook-id'] === messageId)).toHaveLength(1));
    const got = receiver.received.find((r) => r.headers['webhook-id'] === messageId)!;
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toMatchObject({
      event: 'comment.add',
      actionType: 'test',
      data: { test: true, endpointId: id },
    });
    // the attempt's request with its header values
    const attempt = await eventually(async () => {
      const list = dataOf<AttemptsAnswer>(await t.callK('/v2/workspace/advancedwebhook/attempts/list', { endpointId: id })).attempts;
      expect(list).toHaveLength(1);
      return attemptView.parse(list[0]);
    });
    const delivery = await (
      await get('/webhooks/delivery', { apiKey: t.credentials.apiKey, messageId, endpointId: id, at: String(Date.parse(attempt.timestamp)) })
    ).json();
    expect(delivery.headers).toContain(`webhook-id: ${messageId}`);
    expect(delivery.headers).toContain(`webhook-timestamp: ${Math.floor(Date.parse(attempt.timestamp) / 1000)}`);
    if (got.headers['webhook-timestamp'] === String(Math.floor(Date.parse(attempt.timestamp) / 1000)))
      expect(delivery.headers).toContain(`webhook-signature: ${got.headers['webhook-signature']}`);
    await t.callK('/v2/workspace/advancedwebhook/endpoints/update', { endpointId: id, disabled: true });
    const refused = await post('/webhooks/test', { apiKey: t.credentials.apiKey, endpointId: id });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: { status: 'FAILED_PRECONDITION', message: 'This endpoint is disabled: enable it to send it a test event.' },
    });
    expect((await post('/webhooks/test', { apiKey: t.credentials.apiKey, endpointId: 'ep_nope' })).status).toBe(404);
    expect((await post('/webhooks/test', { apiKey: t.credentials.apiKey, endpointId: id }, {})).status).toBe(403);
    expect((await post('/webhooks/test', { apiKey: t.credentials.apiKey })).status).toBe(400);
  });
});

describe('the operation answers the UI reads', () => {
  it('parse with the views in shared/admin.ts', async () => {
    const { id } = await enableWithEndpoint(t, `${receiver.url}/views`);
    endpointView.parse(dataOf<EndpointsAnswer>(await t.callK('/v2/workspace/advancedwebhook/endpoints/get', { endpointId: id })).endpoints[0]);
    for (const k of dataOf<unknown[]>(await t.callW('/v2/workspace/apikeys/get', {}))) apiKeyView.parse(k);
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
    await addAnnotation(t, { commentData: [{ commentText: 'hi', from: { userId: 'ann', name: 'Ann' } }] });
    for (const a of dataOf<unknown[]>(await t.callK('/v2/commentannotations/get', { organizationId: 'acme', documentId: 'doc' }))) annotationView.parse(a);
    await t.callK('/v2/recordings/add', {
      organizationId: 'acme',
      documentId: 'doc',
      recording: {
        recordingId: 'r1',
        recordingType: 'video',
        displayName: 'Walk',
        from: { userId: 'ann' },
        recordedTime: { duration: 1000 },
        attachments: [{ name: 'w.webm', mimeType: 'video/webm', data: b64(WEBM) }],
      },
    });
    const recordings = dataOf<unknown[]>(await t.callK('/v2/recordings/get', { organizationId: 'acme', documentId: 'doc' }));
    expect(recordings).toHaveLength(1);
    for (const r of recordings) recordingView.parse(r);
    overviewAnswer.parse(await (await get('/overview')).json());
    mailAnswer.parse(await (await get('/mail')).json());
    expect((await (await get('/mail')).json()).relay).toEqual({ smtp: false, from: 'Hearth <no-reply@hearth.local>' });
  });
});

describe('data: export, import, reset while the server runs', () => {
  it('resets a key to the seeded set, exports it, imports it into another key of the workspace, and refuses bad input', async () => {
    const reset = await post('/data/reset', { apiKey: t.credentials.apiKey, confirm: 'reset' });
    expect(reset.status).toBe(200);
    const summary = resetAnswer.parse(await reset.json());
    expect(summary.seeded).toMatchObject({ organizations: 3, documents: 36, crdtDocuments: 36 });
    const orgs = dataOf<unknown[]>(await t.callK('/v2/organizations/get', {}));
    expect(orgs).toHaveLength(3);
    const exported = await get('/data/export', { apiKey: t.credentials.apiKey });
    expect(exported.headers.get('content-disposition')).toMatch(/^attachment; filename="hearth-/);
    const archive = await exported.json();
    expect(archive.tables.documents).toHaveLength(36);
    expect(archive.tables.crdt_documents).toHaveLength(36);
    // into a second key of the same workspace
    const ownerEmail = dataOf<WorkspaceAnswer>(await t.callW('/v2/workspace/get', {})).owner.email;
    const second = dataOf<ApiKeyAnswer>(await t.callW('/v2/workspace/apikey/create', { ownerEmail, type: 'testing', createAuthToken: true })).apiKey;
    const imported = await post('/data/import', { apiKey: second, archive });
    expect(imported.status).toBe(200);
    expect((await imported.json()).imported).toMatchObject({ organizations: 3, documents: 36, crdt_documents: 36 });
    const token = dataOf<AuthTokensAnswer>(await t.callW('/v2/workspace/authtokens/get', { apiKey: second })).authTokens[0]!.token;
    const headers = { 'x-svc-api-key': second, 'x-svc-auth-token': token };
    expect(dataOf<unknown[]>(await t.callK('/v2/organizations/get', {}, headers))).toHaveLength(3);
    const doc = archive.tables.crdt_documents[0];
    const content = dataOf<CrdtItem[]>(
      await t.callK('/v2/crdt/get', { organizationId: doc.organization_id, documentId: doc.document_id, editorId: doc.editor_id }, headers),
    )[0]!.data;
    const original = dataOf<CrdtItem[]>(
      await t.callK('/v2/crdt/get', { organizationId: doc.organization_id, documentId: doc.document_id, editorId: doc.editor_id }),
    )[0]!.data;
    expect(content).toEqual(original);
    // refusals
    expect((await post('/data/reset', { apiKey: t.credentials.apiKey })).status).toBe(400);
    expect((await post('/data/import', { apiKey: second, archive: { format: 'zip' } })).status).toBe(400);
    const other = await createWorkspace(t);
    expect((await post('/data/import', { apiKey: other.apiKey, archive })).status).toBe(404);
    expect((await get('/data/export', { apiKey: other.apiKey })).status).toBe(404);
    expect((await post('/data/reset', { apiKey: t.credentials.apiKey, confirm: 'reset' }, {})).status).toBe(403);
  });
});
