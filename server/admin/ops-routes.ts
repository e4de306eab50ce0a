// The dashboard's figures (server/metrics.ts, with gauges read here), the webhook test event, and the mailbox.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { H3 } from 'h3';
import { z } from 'zod';
import { mailQuery, webhookTestInput } from '../../shared/admin.ts';
import { transaction } from '../db/client.ts';
import { emitEvent } from '../webhooks/outbox.ts';
import type { WebhookEventType } from '../../shared/schemas/webhooks.ts';
import { bodyOf, fail, guard, pager, queryOf, type AdminKit } from './kit.ts';
import { deliveriesWithStatus } from './queries.ts';

/** The database files' size on disk (SQLite files and their write-ahead logs). */
function databaseBytes(dataDir: string): number {
  let total = 0;
  for (const name of readdirSync(dataDir)) {
    if (!/\.db(-wal|-shm)?$/.test(name)) continue;
    try {
      total += statSync(join(dataDir, name)).size;
    } catch {
      // removed meanwhile
    }
  }
  return total;
}

/** Registers the gauges every scrape and dashboard refresh reads. */
export function registerGauges(kit: AdminKit) {
  const { app, q } = kit;
  const deliveries = (status: 'pending' | 'failed') => {
    try {
      return deliveriesWithStatus(app.deliveries, status);
    } catch {
      return 0;
    }
  };
  app.monitor.metrics.gauge(() => [
    { name: 'hearth_websocket_connections', help: 'Open y-websocket connections.', value: app.crdt.totalConnections() },
    { name: 'hearth_rooms_loaded', help: 'Yjs documents held in memory.', value: app.crdt.liveCount() },
    { name: 'hearth_webhook_queue_depth', help: 'Webhook events not yet fanned out, and deliveries waiting for an attempt.', value: q.outboxDepth() + deliveries('pending') },
    { name: 'hearth_webhook_failed_deliveries', help: 'Webhook deliveries that failed every attempt (kept in webhooks.db).', value: deliveries('failed') },
    { name: 'hearth_database_bytes', help: 'Size of the SQLite files in the data dir, write-ahead logs included.', value: databaseBytes(app.config.dataDir) },
  ]);
}

export function registerOpsRoutes(h3: H3, kit: AdminKit) {
  const { app, q } = kit;

  h3.get('/admin/api/metrics', (event) => {
    const input = queryOf(event, z.object({ seconds: z.coerce.number<number>().int().min(10).max(300).default(120) }));
    if (!input.ok) return input.error;
    const g = guard(kit, event);
    if (!g.ok) return g.error;
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
    const g = guard(kit, event, { change: true, apiKey });
    if (!g.ok) return g.error;
    const endpoint = q.endpoint(apiKey, endpointId);
    if (!endpoint) return fail(event, 404, `No webhook endpoint ${endpointId} under this key.`);
    if (endpoint.disabled) return fail(event, 412, 'This endpoint is disabled: enable it to send it a test event.');
    const types = q.endpointTypes(apiKey, endpointId);
    const type = (types[0] ?? 'notification.add') as WebhookEventType;
    const messageId = transaction(app.db, (tx) =>
      emitEvent(tx, {
        apiKeyId: apiKey,
        type,
        actionType: 'test',
        source: 'platform',
        actionUser: { userId: 'hearth-admin', name: 'Hearth admin UI' },
        data: { test: true, endpointId, message: 'A test event sent from the Hearth admin UI.' },
        targetEndpointId: endpointId,
      }),
    );
    if (!messageId) return fail(event, 412, 'Nothing would receive it: turn advanced webhooks on for this key.');
    return { messageId, eventType: type };
  });

  // The mailbox, by time (newest first by default), keyset-paged like every list.
  const pages = pager(app.pageTokens);
  h3.get('/admin/api/mail', (event) => {
    const input = queryOf(event, mailQuery);
    if (!input.ok) return input.error;
    const g = guard(kit, event);
    if (!g.ok) return g.error;
    const { cursor, dir, limit } = input.value;
    const scope = { list: 'mail', workspaceId: g.workspaceId };
    const args = pages.args(event, scope, { cursor, dir, limit });
    if (!args.ok) return args.error;
    const page = pages.page(q.mailPage(g.workspaceId, args.page), args.page, scope, (r) => [r.createdAt, r.id], (r) => r);
    return { ...page, relay: { smtp: Boolean(app.config.smtpUrl), from: app.config.mailFrom } };
  });

  h3.get('/admin/api/mail/:id', (event) => {
    const g = guard(kit, event);
    if (!g.ok) return g.error;
    const row = q.mailOne(g.workspaceId, event.context.params?.id ?? '');
    if (!row) return fail(event, 404, 'No such mail in this workspace.');
    const body = JSON.parse(app.secrets.decrypt(row.bodyEnc)) as { text: string; html: string };
    const { bodyEnc: _bodyEnc, ...rest } = row;
    return { ...rest, text: body.text, html: body.html };
  });
}
