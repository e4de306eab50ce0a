// The dashboard's figures (server/metrics.ts, with gauges read here), the webhook test event, and the mailbox.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { H3 } from 'h3';
import { z } from 'zod';
import { mailQuery, webhookTestInput } from '../../shared/admin.ts';
import { emitEvent } from '../webhooks/outbox.ts';
import type { WebhookEventType } from '../../shared/schemas/webhooks.ts';
import { bodyOf, fail, guard, keyGuard, pager, queryOf, type AdminKit } from './kit.ts';

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

/**
 * Registers the gauges every scrape and dashboard refresh reads. The gauges are read synchronously; the outbox's
 * depth is in hearth.db, behind the asynchronous storage, so it is read by `refresh` (the dashboard's endpoint
 * awaits it before each snapshot) and the gauge gives the last reading.
 */
export function registerGauges(kit: AdminKit): { refresh(): Promise<void> } {
  const { app } = kit;
  const deliveryFile = app.storage.deliveries;
  const deliveries = (status: 'pending' | 'failed') => {
    try {
      return deliveryFile.withStatus(status);
    } catch {
      return 0;
    }
  };
  let outboxDepth = 0;
  app.monitor.metrics.gauge(() => [
    { name: 'hearth_websocket_connections', help: 'Open y-websocket connections.', value: app.crdt.totalConnections() },
    { name: 'hearth_rooms_loaded', help: 'Yjs documents held in memory.', value: app.crdt.liveCount() },
    {
      name: 'hearth_webhook_queue_depth',
      help: 'Webhook events not yet fanned out, and deliveries waiting for an attempt.',
      value: outboxDepth + deliveries('pending'),
    },
    { name: 'hearth_webhook_failed_deliveries', help: 'Webhook deliveries that failed every attempt (kept in webhooks.db).', value: deliveries('failed') },
    { name: 'hearth_database_bytes', help: 'Size of the SQLite files in the data dir, write-ahead logs included.', value: databaseBytes(app.config.dataDir) },
  ]);
  return {
    async refresh() {
      outboxDepth = await app.storage.inspection.outboxDepth();
    },
  };
}

export function registerOpsRoutes(h3: H3, kit: AdminKit, gauges: { refresh(): Promise<void> }) {
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
