// The dashboard's figures (server/metrics.ts, with the gauges of http/ops-endpoints.ts), the webhook test event, and the mailbox.
import type { H3 } from 'h3';
import { z } from 'zod';
import { mailQuery, webhookTestInput } from '../../shared/admin.ts';
import { emitEvent } from '../webhooks/outbox.ts';
import type { WebhookEventType } from '../../shared/schemas/webhooks.ts';
import type { Gauges } from '../http/ops-endpoints.ts';
import { bodyOf, fail, guard, keyGuard, pager, queryOf, type AdminKit } from './kit.ts';

export function registerOpsRoutes(h3: H3, kit: AdminKit, gauges: Gauges) {
  const { app } = kit;
  const q = app.storage.inspection;

  h3.get('/admin/api/metrics', async (event) => {
    const input = queryOf(event, z.object({ seconds: z.coerce.number<number>().int().min(10).max(300).default(120) }));
    if (!input.ok) return input.error;
    const g = guard(kit, event);
    if (!g.ok) return g.error;
    await gauges.refresh();
    return app.monitor.metrics.snapshot(input.value.seconds);
  });

  // A test event through the outbox, like any event: signed, retried, recorded as attempts. It is addressed to
  // the chosen endpoint alone (webhook_events.target_endpoint_id: the worker makes one delivery, to it, past its
  // type and channel filters); its type is the endpoint's first filter type (notification.add when it takes all).
  h3.post('/admin/api/webhooks/test', async (event) => {
    const g0 = guard(kit, event, { change: true });
    if (!g0.ok) return g0.error;
    const input = await bodyOf(event, app, webhookTestInput);
    if (!input.ok) return input.error;
    const { apiKey, endpointId } = input.value;
    const g = await keyGuard(kit, event, apiKey, { change: true });
    if (!g.ok) return g.error;
    const endpoint = await q.endpoint(g.scope, endpointId);
    if (!endpoint) return fail(event, 404, `No webhook endpoint ${endpointId} under this key.`);
    if (endpoint.disabled) return fail(event, 412, 'This endpoint is disabled: enable it to send it a test event.');
    const type = (endpoint.filterTypes[0] ?? 'notification.add') as WebhookEventType;
    const messageId = await emitEvent(app, g.scope, {
      type,
      actionType: 'test',
      source: 'platform',
      actionUser: { userId: 'hearth-admin', name: 'Hearth admin UI' },
      data: { test: true, endpointId, message: 'A test event sent from the Hearth admin UI.' },
      targetEndpointId: endpointId,
    });
    if (!messageId) return fail(event, 412, 'Nothing would receive it: turn advanced webhooks on for this key.');
    return { messageId, eventType: type };
  });

  // The delivery log (issue 44, point 5): the newest deliveries of one key (and endpoint), or of every key of the
  // workspace, with each one's event type, state, attempts and next retry time; and the counts the dashboard shows.
  const deliveryLogQuery = z.object({
    apiKey: z.string().trim().min(1).max(256).optional(),
    endpointId: z.string().trim().min(1).max(256).optional(),
    messageId: z.string().trim().min(1).max(256).optional(),
    status: z.enum(['pending', 'succeeded', 'failed', 'retrying']).optional(),
    limit: z.coerce.number<number>().int().min(1).max(200).default(100),
  });
  h3.get('/admin/api/webhooks/deliveries', async (event) => {
    const input = queryOf(event, deliveryLogQuery);
    if (!input.ok) return input.error;
    const g = guard(kit, event);
    if (!g.ok) return g.error;
    const { apiKey, endpointId, messageId, status, limit } = input.value;
    let keyIds: string[];
    if (apiKey) {
      const k = await keyGuard(kit, event, apiKey);
      if (!k.ok) return k.error;
      keyIds = [k.scope.apiKeyId];
    } else keyIds = (await q.keys(g.workspace)).map((k) => k.id);
    const deliveries = app.storage.deliveries;
    const rows = await deliveries.log(keyIds, { endpointId, messageId, status: status === 'retrying' ? 'pending' : status }, limit);
    const items = rows
      .filter((r) => status !== 'retrying' || r.attempts > 0)
      .filter((r) => status !== 'pending' || r.attempts === 0)
      .map(({ body, ...r }) => ({ ...r, eventType: eventTypeOf(body), state: r.status === 'pending' && r.attempts > 0 ? 'retrying' : r.status }));
    return { items, counts: await deliveries.counts(keyIds) };
  });

  // The mailbox, by time (newest first by default), keyset-paged like every list.
  const pages = pager(app.pageTokens);
  h3.get('/admin/api/mail', async (event) => {
    const input = queryOf(event, mailQuery);
    if (!input.ok) return input.error;
    const g = guard(kit, event);
    if (!g.ok) return g.error;
    const { cursor, dir, limit } = input.value;
    const scope = { list: 'mail', workspaceId: g.workspace.workspaceId };
    const args = pages.args(event, scope, { cursor, dir, limit });
    if (!args.ok) return args.error;
    const page = pages.page(
      await q.mailPage(g.workspace, args.page),
      args.page,
      scope,
      (r) => [r.createdAt, r.id],
      (r) => r,
    );
    return { ...page, relay: { smtp: Boolean(app.config.smtpUrl), from: app.config.mailFrom } };
  });

  h3.get('/admin/api/mail/:id', async (event) => {
    const g = guard(kit, event);
    if (!g.ok) return g.error;
    const row = await q.mailOne(g.workspace, event.context.params?.id ?? '');
    if (!row) return fail(event, 404, 'No such mail in this workspace.');
    const body = JSON.parse(app.secrets.decrypt(row.bodyEnc)) as { text: string; html: string };
    const { bodyEnc: _bodyEnc, ...rest } = row;
    return { ...rest, text: body.text, html: body.html };
  });
}

/**
 * A delivery body's event type: its `event` (every Hearth payload names it so, basic and advanced), also inside an
 * `encodedPayload` (base64); null for an encrypted body, which only its receiver can read.
 */
function eventTypeOf(body: string): string | null {
  try {
    let value = JSON.parse(body) as { event?: unknown; encodedPayload?: unknown };
    if (typeof value.encodedPayload === 'string') value = JSON.parse(Buffer.from(value.encodedPayload, 'base64').toString('utf8')) as typeof value;
    return typeof value.event === 'string' ? value.event : null;
  } catch {
    return null;
  }
}
