// The main thread's reads of delivery state on PostgreSQL: ../../repos/webhook-deliveries.ts (the attempts list,
// replay targets) and the delivery part of inspection (../../repos/inspection.ts's deliveryInspection: the gauges, what
// a delivery sent, an attempt's headers). On SQLite they read webhooks.db through a read-only connection; here the
// delivery tables are in the one database, written by the delivery engine's store (webhook-delivery.ts).
// test/pg/webhook-delivery.test.ts asks both engines the same and compares every answer.
import { and, count, desc, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Cursor } from '../../pagination.ts';
import { deliveryCounts, type DeliveryLogRow, type deliveryInspection } from '../../repos/inspection.ts';
import type { AttemptFilters, AttemptRow, webhookDeliveriesRepo } from '../../repos/webhook-deliveries.ts';
import type { TenantScope } from '../../scope.ts';
import type { PgEngine } from '../engine.ts';
import { keysetAfterPg } from '../pagination.ts';
import { pgTables } from '../schema.ts';

type WebhookDeliveriesRepo = ReturnType<typeof webhookDeliveriesRepo>;
type DeliveryInspection = ReturnType<typeof deliveryInspection>;
/** deliveryInspection's reads: the same type as SQLite's. */
export type DeliveryInspectionPg = DeliveryInspection;

const tableOf = (key: 'webhookDeliveries' | 'webhookAttempts') => {
  const table = pgTables[key] as PgTable;
  return { table, c: getTableColumns(table) as Record<string, PgColumn> };
};
const { table: webhookDeliveries, c: d } = tableOf('webhookDeliveries');
const { table: webhookAttempts, c: a } = tableOf('webhookAttempts');
const col = (columns: Record<string, PgColumn>, name: string): PgColumn => {
  const column = columns[name];
  if (!column) throw new Error(`pg webhook deliveries: no column ${name}`);
  return column;
};

/** The key's delivery state: ../../repos/webhook-deliveries.ts's webhookDeliveriesRepo. */
export function webhookDeliveriesRepoPg(engine: PgEngine): WebhookDeliveriesRepo {
  return {
    attempts: (scope: TenantScope, filters: AttemptFilters, after: Cursor | null, limit: number) =>
      engine.read(async (db) => {
        const conditions: (SQL | undefined)[] = [eq(col(a, 'apiKeyId'), scope.apiKeyId), keysetAfterPg(col(a, 'timestamp'), col(a, 'id'), after, true)];
        if (filters.endpointId) conditions.push(eq(col(a, 'target'), filters.endpointId));
        if (filters.messageId) conditions.push(eq(col(a, 'eventId'), filters.messageId));
        if (filters.status) conditions.push(eq(col(a, 'status'), filters.status));
        const rows = await db
          .select()
          .from(webhookAttempts)
          .where(and(...conditions))
          .orderBy(desc(col(a, 'timestamp')), desc(col(a, 'id')))
          .limit(limit);
        return rows as AttemptRow[];
      }),

    targetsOf: (scope: TenantScope, messageId: string, target?: string) =>
      engine.read(async (db) => {
        const conditions = [eq(col(d, 'apiKeyId'), scope.apiKeyId), eq(col(d, 'eventId'), messageId)];
        if (target) conditions.push(eq(col(d, 'target'), target));
        // SQLite answers in its primary key's order (event_id, target), the index this reads
        const rows = await db
          .select({ target: col(d, 'target') })
          .from(webhookDeliveries)
          .where(and(...conditions))
          .orderBy(col(d, 'target'));
        return rows.map((r) => r.target as string);
      }),
  };
}

/** The delivery part of inspection: ../../repos/inspection.ts's deliveryInspection, answering promises. */
export function deliveryInspectionPg(engine: PgEngine): DeliveryInspectionPg {
  return {
    withStatus: (status) =>
      engine.read(
        async (db) =>
          (
            await db
              .select({ n: count() })
              .from(webhookDeliveries)
              .where(eq(col(d, 'status'), status))
          )[0]?.n ?? 0,
      ),

    log: (apiKeyIds, filters, limit) =>
      engine.read(async (db) => {
        if (apiKeyIds.length === 0) return [];
        const conditions: SQL[] = [inArray(col(d, 'apiKeyId'), [...apiKeyIds])];
        if (filters.endpointId) conditions.push(eq(col(d, 'target'), filters.endpointId));
        if (filters.messageId) conditions.push(eq(col(d, 'eventId'), filters.messageId));
        if (filters.status) conditions.push(eq(col(d, 'status'), filters.status));
        const names = ['apiKeyId', 'eventId', 'target', 'url', 'body', 'status', 'attempts', 'nextAttemptAt', 'lastAttemptAt', 'lastStatusCode', 'createdAt'];
        const rows = await db
          .select(Object.fromEntries(names.map((n) => [n, col(d, n)])))
          .from(webhookDeliveries)
          .where(and(...conditions))
          .orderBy(desc(col(d, 'createdAt')))
          .limit(limit);
        return rows.map((r) => ({
          ...r,
          nextAttemptAt: r.nextAttemptAt === null ? null : Number(r.nextAttemptAt),
          lastAttemptAt: r.lastAttemptAt === null ? null : Number(r.lastAttemptAt),
          createdAt: Number(r.createdAt),
        })) as DeliveryLogRow[];
      }),

    counts: (apiKeyIds) =>
      engine.read(async (db) => {
        if (apiKeyIds.length === 0) return { failed: 0, retrying: 0, pending: 0 };
        const tried = sql<boolean>`${col(d, 'attempts')} > 0`;
        const rows = await db
          .select({ status: col(d, 'status'), retrying: tried, n: count() })
          .from(webhookDeliveries)
          .where(inArray(col(d, 'apiKeyId'), [...apiKeyIds]))
          .groupBy(col(d, 'status'), tried);
        return deliveryCounts(rows as Array<{ status: string; retrying: boolean; n: number }>);
      }),

    delivery: (scope, messageId, endpointId) =>
      engine.read(async (db) => {
        const rows = await db
          .select({ url: col(d, 'url'), body: col(d, 'body'), status: col(d, 'status'), attempts: col(d, 'attempts') })
          .from(webhookDeliveries)
          .where(and(eq(col(d, 'apiKeyId'), scope.apiKeyId), eq(col(d, 'eventId'), messageId), eq(col(d, 'target'), endpointId)));
        return rows[0] as Awaited<ReturnType<DeliveryInspection['delivery']>>;
      }),

    attemptHeaders: (scope, attemptId) =>
      engine.read(async (db) => {
        const { rows } = await db.$client.query<{
          eventId: string;
          target: string;
          timestamp: number;
          requestHeaders: string | null;
          responseHeaders: string | null;
          omitted: number;
        }>({
          name: 'hearth-delivery-attempt-headers',
          text: `SELECT event_id AS "eventId", target, timestamp, request_headers AS "requestHeaders", response_headers AS "responseHeaders",
            response_headers_omitted AS omitted FROM webhook_attempts WHERE api_key_id = $1 AND id = $2`,
          values: [scope.apiKeyId, attemptId],
        });
        const row = rows[0];
        if (!row) return undefined;
        return {
          eventId: row.eventId,
          target: row.target,
          timestamp: row.timestamp,
          requestHeaders: headerPairs(row.requestHeaders),
          responseHeaders: headerPairs(row.responseHeaders),
          responseHeadersOmitted: row.omitted,
        };
      }),
  };
}

/** A stored headers column (JSON `[name, value]` pairs) as pairs, as inspection.ts reads it. */
function headerPairs(text: string | null): Array<[string, string]> | null {
  if (text === null) return null;
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.filter((p): p is [string, string] => Array.isArray(p) && typeof p[0] === 'string' && typeof p[1] === 'string') : null;
}
