// Webhooks on PostgreSQL: the same repository as ../../repos/webhooks.ts (its type is the contract;
// test/pg/webhooks.test.ts runs both on the same calls and compares every answer): a key's advanced configuration
// and endpoints, the outbox (webhook_events) that changes write their events to in their own unit of work, and the
// dispatcher's side of the outbox, which spans every key. Not ported: `workerCheckpoints` (see WebhooksRepoPg).
//
// The outbox's hot statements are SQL text run as named statements (prepared once per connection, as SQLite's
// are). SQLite's `json_each`/`json_type`/`json_extract` have their PostgreSQL forms here; the partial indexes
// (webhook_events_pending, webhook_events_dedupe) exist as such in PostgreSQL (pg/schema.ts converts them), and
// opening a debounced event leans on the dedupe one: `ON CONFLICT … DO NOTHING` instead of SQLite's "is one
// pending? else insert", which at READ COMMITTED two units of work could both pass.
import { and, asc, eq, inArray, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import type {
  BasicTriggers,
  DeliveryStateWrite,
  OutboxEvent,
  Subscribers,
  WebhookConfigRow,
  WebhookEndpointRow,
  WebhookEventRow,
  WebhooksRepo,
} from '../../repos/webhooks.ts';
import { tenantScope, type TenantScope } from '../../scope.ts';
import type { PgDb, PgEngine } from '../engine.ts';
import { keysetAfterPg } from '../pagination.ts';
import { pgTableFor } from '../schema.ts';

const { table: webhookConfigs, c: cfg } = pgTableFor('webhookConfigs');
const { table: webhookEndpoints, c: e } = pgTableFor('webhookEndpoints');
const { table: webhookEvents, c: ev } = pgTableFor('webhookEvents');
const { table: apiKeys, c: k } = pgTableFor('apiKeys');

/**
 * The port's contract: the SQLite repository's, without `workerCheckpoints`. On SQLite it tells this process's two
 * connections to hearth.db (engine.main, engine.writer) that the delivery worker's checkpointer (db/checkpointer.ts)
 * now checkpoints the WAL, so that their own automatic checkpoints become the rarer backstop. PostgreSQL has no
 * per-connection WAL checkpoints for the application to coordinate (the server checkpoints its own WAL), and the
 * engine has no SQLite connections to tune: there is nothing it could do that would be the same behaviour.
 */
export type WebhooksRepoPg = Omit<WebhooksRepo, 'workerCheckpoints'>;

/**
 * Whether a JSON array column (`filter_types`, `channels`) names the value `cond` matches: SQLite's
 * `EXISTS(SELECT 1 FROM json_each(col) WHERE value …)`. json_each walks an array's elements, an object's values, or
 * a scalar itself, and a JSON string's value is its text: the same here (only strings can match a text parameter,
 * as in SQLite, where a number's value is an integer, which never equals text).
 */
const names = (column: string, cond: string) =>
  `(${column} IS NULL OR json_typeof(${column}) = 'null' OR EXISTS(SELECT 1 FROM json_array_elements(CASE json_typeof(${column})` +
  ` WHEN 'array' THEN ${column} WHEN 'object' THEN (SELECT coalesce(json_agg(o.value), '[]'::json) FROM json_each(${column}) o) ELSE json_build_array(${column}) END) v` +
  ` WHERE json_typeof(v) = 'string' AND (v #>> '{}') ${cond}))`;

/**
 * webhook-delivery.ts's ENDPOINT_TAKES_EVENT for endpoint `e`, with the parameters that hold the event's type, its
 * organization and its document: the one rule for the outbox's check here and the delivery store's fan-out
 * (webhook-delivery.ts).
 */
export const endpointTakesEvent = (type: string, organization: string, document: string) =>
  `${names('e.filter_types', `= ${type}`)} AND ${names('e.channels', `IN (${organization}, ${document})`)}`;

const ENDPOINT_TAKES_EVENT = endpointTakesEvent('$2', '$3', '$4');

const ADVANCED_SUBSCRIBED = `SELECT EXISTS(SELECT 1 FROM webhook_configs c JOIN webhook_endpoints e ON e.api_key_id = c.api_key_id
  WHERE c.api_key_id = $1 AND c.is_enabled AND NOT e.disabled AND ${ENDPOINT_TAKES_EVENT}) AS advanced`;
const TARGET_LIVE = `SELECT EXISTS(SELECT 1 FROM webhook_configs c JOIN webhook_endpoints e ON e.api_key_id = c.api_key_id
  WHERE c.api_key_id = $1 AND c.is_enabled AND e.id = $2 AND NOT e.disabled) AS live`;
/** The settings as their text (JSON.parse'd as SQLite's repository does). */
const KEY_SETTINGS = 'SELECT settings::text AS settings FROM api_keys WHERE id = $1';
/** The payloads are JSON text, cast to json as written (`json` keeps the text, key order and all). */
const INSERT_EVENT =
  'INSERT INTO webhook_events (id, api_key_id, type, organization_id, document_id, payload, basic_payload, dedupe_key, available_at, created_at, target_endpoint_id)' +
  ' VALUES ($1, $2, $3, $4, $5, $6::text::json, $7::text::json, $8, $9, $10, $11)';
/** A debounced event, unless one of its key and dedupe key is pending already (the webhook_events_dedupe index). */
const OPEN_DEBOUNCED = `${INSERT_EVENT} ON CONFLICT (api_key_id, dedupe_key) WHERE dispatched_at IS NULL AND dedupe_key IS NOT NULL DO NOTHING`;
/** SQLite's json_extract(settings, '$.useWebhookService') = 1: JSON true, or a number equal to 1. */
const IN_USE =
  'SELECT (EXISTS (SELECT 1 FROM webhook_configs WHERE is_enabled)' +
  " OR EXISTS (SELECT 1 FROM api_keys WHERE CASE json_typeof(settings -> 'useWebhookService')" +
  " WHEN 'boolean' THEN (settings ->> 'useWebhookService')::boolean WHEN 'number' THEN (settings ->> 'useWebhookService')::numeric = 1 ELSE false END)" +
  ' OR EXISTS (SELECT 1 FROM webhook_events WHERE dispatched_at IS NULL)) AS n';

/** The basic service's settings as the outbox reads them (the rest of a key's settings does not matter here). */
interface BasicSettings {
  useWebhookService?: boolean;
  webhookServiceConfig?: { rawNotificationUrl?: string; processedNotificationUrl?: string; triggers?: Record<string, boolean> };
}

type EventValues = [string, string, string, string | null, string | null, string | null, string | null, string | null, number, number, string | null];

async function insertEvent(db: PgDb, values: EventValues): Promise<void> {
  await db.$client.query({ name: 'hearth-webhook-event-insert', text: INSERT_EVENT, values });
}

/** Who would receive an event of this type now (../../repos/webhooks.ts's subscribersIn). */
async function subscribersIn(db: PgDb, apiKeyId: string, event: OutboxEvent, basicTakes: BasicTriggers): Promise<Subscribers> {
  if (event.targetEndpointId !== undefined) {
    const { rows } = await db.$client.query<{ live: boolean }>({
      name: 'hearth-webhook-target-live',
      text: TARGET_LIVE,
      values: [apiKeyId, event.targetEndpointId],
    });
    return { advanced: rows[0]?.live === true, basic: false };
  }
  const { rows } = await db.$client.query<{ advanced: boolean }>({
    name: 'hearth-webhook-advanced',
    text: ADVANCED_SUBSCRIBED,
    values: [apiKeyId, event.type, event.organizationId || null, event.documentId || null],
  });
  const advanced = rows[0]?.advanced === true;
  let basic = false;
  if (event.hasBasicForm) {
    const { rows: keys } = await db.$client.query<{ settings: string }>({ name: 'hearth-webhook-key-settings', text: KEY_SETTINGS, values: [apiKeyId] });
    const row = keys[0];
    const settings = row ? (JSON.parse(row.settings) as BasicSettings) : undefined;
    const config = settings?.webhookServiceConfig;
    basic = !!settings?.useWebhookService && !!(config?.rawNotificationUrl || config?.processedNotificationUrl) && basicTakes(event.type, config?.triggers);
  }
  return { advanced, basic };
}

const endpointWhere = (scope: TenantScope, endpointId: string) => and(eq(e.apiKeyId, scope.apiKeyId), eq(e.id, endpointId));
const pendingDebounced = and(isNull(ev.dispatchedAt), isNotNull(ev.dedupeKey));

async function markDispatched(db: PgDb, eventId: string, at: number): Promise<void> {
  await db
    .update(webhookEvents)
    .set({ dispatchedAt: at } as never)
    .where(eq(ev.id, eventId));
}

export function webhooksRepoPg(engine: PgEngine): WebhooksRepoPg {
  return {
    // --- the advanced configuration and endpoints ------------------------------------------------------------

    config: (scope) =>
      engine.read(async (db) => (await db.select().from(webhookConfigs).where(eq(cfg.apiKeyId, scope.apiKeyId)).limit(1))[0] as WebhookConfigRow | undefined),

    saveConfig: (scope, fields, now) =>
      engine.write(async (db) => {
        await db
          .insert(webhookConfigs)
          .values({ apiKeyId: scope.apiKeyId, ...fields, createdAt: now, updatedAt: now } as never)
          .onConflictDoUpdate({ target: cfg.apiKeyId, set: { ...fields, updatedAt: now } as never });
      }),

    endpoint: (scope, endpointId) =>
      engine.read(
        async (db) => (await db.select().from(webhookEndpoints).where(endpointWhere(scope, endpointId)).limit(1))[0] as WebhookEndpointRow | undefined,
      ),

    // one statement for all the ids (SQLite asks one by one, within one step); the Set in the order of the ids asked
    existingEndpoints: (scope, endpointIds) =>
      engine.read(async (db) => {
        if (endpointIds.length === 0) return new Set<string>();
        const found = (await db
          .select({ id: e.id })
          .from(webhookEndpoints)
          .where(and(eq(e.apiKeyId, scope.apiKeyId), inArray(e.id, [...new Set(endpointIds)])))) as Array<{ id: string }>;
        const ids = new Set(found.map((row) => row.id));
        return new Set(endpointIds.filter((id) => ids.has(id)));
      }),

    // SQLite answers false on a unique violation, which only the (api_key_id, uid) index can raise (a taken id is a
    // primary key violation, SQLITE_CONSTRAINT_PRIMARYKEY, and throws): the conflict target is that index alone.
    // ON CONFLICT rather than catching the error, which would abort the caller's unit of work in PostgreSQL.
    insertEndpoint: (scope, row) =>
      engine.write(
        async (db) =>
          ((
            await db
              .insert(webhookEndpoints)
              .values({ ...row, apiKeyId: scope.apiKeyId } as never)
              .onConflictDoNothing({ target: [e.apiKeyId, e.uid] })
          ).rowCount ?? 0) > 0,
      ),

    endpointsPage: (scope, after, limit) =>
      engine.read(
        async (db) =>
          (await db
            .select()
            .from(webhookEndpoints)
            .where(and(eq(e.apiKeyId, scope.apiKeyId), keysetAfterPg(e.createdAt, e.id, after, false)))
            .orderBy(asc(e.createdAt), asc(e.id))
            .limit(limit)) as WebhookEndpointRow[],
      ),

    updateEndpoint: (scope, endpointId, change) =>
      engine.write(
        async (db) =>
          ((
            await db
              .update(webhookEndpoints)
              .set(change as never)
              .where(endpointWhere(scope, endpointId))
          ).rowCount ?? 0) > 0,
      ),

    deleteEndpoint: (scope, endpointId) =>
      engine.write(async (db) => ((await db.delete(webhookEndpoints).where(endpointWhere(scope, endpointId))).rowCount ?? 0) > 0),

    // --- the outbox -------------------------------------------------------------------------------------------

    subscribers: (scope, event, basicTakes) => engine.read((db) => subscribersIn(db, scope.apiKeyId, event, basicTakes)),

    emit: (scope, event, basicTakes, build, who) =>
      engine.write(async (db) => {
        const to = who && event.targetEndpointId === undefined ? who : await subscribersIn(db, scope.apiKeyId, event, basicTakes);
        if (!to.advanced && !to.basic) return null;
        const { id, payload, basic } = build(to);
        const now = Date.now();
        await insertEvent(db, [
          id,
          scope.apiKeyId,
          event.type,
          event.organizationId ?? null,
          event.documentId ?? null,
          payload,
          basic,
          null,
          now,
          now,
          event.targetEndpointId ?? null,
        ]);
        return id;
      }),

    openDebounced: (scope, event, basicTakes) =>
      engine.write(async (db): Promise<'opened' | 'pending' | 'none'> => {
        const who = await subscribersIn(db, scope.apiKeyId, event, basicTakes);
        if (!who.advanced && !who.basic) return 'none';
        const { rowCount } = await db.$client.query({
          name: 'hearth-webhook-open-debounced',
          text: OPEN_DEBOUNCED,
          values: [
            event.id,
            scope.apiKeyId,
            event.type,
            event.organizationId ?? null,
            event.documentId ?? null,
            null,
            null,
            event.dedupeKey,
            event.availableAt,
            event.createdAt,
            null,
          ] satisfies EventValues,
        });
        return rowCount ? 'opened' : 'pending';
      }),

    // --- the dispatcher (every key) ---------------------------------------------------------------------------

    inUse: () => engine.read(async (db) => (await db.$client.query<{ n: boolean }>({ name: 'hearth-webhooks-in-use', text: IN_USE })).rows[0]?.n === true),

    applyDeliveryState: (writes: readonly DeliveryStateWrite[]) =>
      engine.write(async (db) => {
        for (const w of writes) {
          if (w.kind === 'dispatched') await markDispatched(db, w.eventId, w.at);
          else if (w.kind === 'failing')
            await db
              .update(webhookEndpoints)
              .set({ failingSince: w.since } as never)
              .where(and(eq(e.id, w.endpointId), isNull(e.failingSince)));
          else if (w.kind === 'recovered')
            await db
              .update(webhookEndpoints)
              .set({ failingSince: null } as never)
              .where(and(eq(e.id, w.endpointId), isNotNull(e.failingSince)));
          else
            await db
              .update(webhookEndpoints)
              .set({ disabled: true, disabledReason: w.reason, updatedAt: w.at } as never)
              .where(eq(e.id, w.endpointId));
        }
      }),

    // one statement for all the keys; the Map in the order of the ids asked (as SQLite's one-by-one lookups make it)
    scopesOf: (apiKeyIds) =>
      engine.read(async (db) => {
        const scopes = new Map<string, TenantScope>();
        const ids = [...new Set(apiKeyIds)];
        if (ids.length === 0) return scopes;
        const rows = (await db.select({ id: k.id, workspaceId: k.workspaceId }).from(apiKeys).where(inArray(k.id, ids))) as Array<{
          id: string;
          workspaceId: string;
        }>;
        const workspaces = new Map(rows.map((row) => [row.id, row.workspaceId]));
        for (const id of ids) {
          const workspaceId = workspaces.get(id);
          if (workspaceId !== undefined) scopes.set(id, tenantScope(id, workspaceId));
        }
        return scopes;
      }),

    // ties of available_at go by id: SQLite answers them in its index's order (rowid, insertion order), which
    // PostgreSQL has no counterpart of
    dueDebounced: (now) =>
      engine.read(async (db) => {
        const rows = (await db
          .select({ row: webhookEvents, workspaceId: k.workspaceId })
          .from(webhookEvents)
          .leftJoin(apiKeys, eq(k.id, ev.apiKeyId))
          .where(and(pendingDebounced, lte(ev.availableAt, now)))
          .orderBy(asc(ev.availableAt), asc(ev.id))
          .limit(100)) as Array<{ row: WebhookEventRow; workspaceId: string | null }>;
        return rows.map(({ row, workspaceId }) => ({ row, scope: workspaceId === null ? undefined : tenantScope(row.apiKeyId, workspaceId) }));
      }),

    nextDebounced: () =>
      engine.read(
        async (db) =>
          (
            (await db.select({ at: ev.availableAt }).from(webhookEvents).where(pendingDebounced).orderBy(asc(ev.availableAt)).limit(1)) as Array<{ at: number }>
          )[0]?.at,
      ),

    postponeDebounced: (eventId, until) =>
      engine.write(async (db) => {
        await db
          .update(webhookEvents)
          .set({ availableAt: until } as never)
          .where(eq(ev.id, eventId));
        return undefined;
      }),

    dropDebounced: (eventId, now) =>
      engine.write(async (db) => {
        await markDispatched(db, eventId, now);
        return undefined;
      }),

    releaseDebounced: (scope, row, event, basicTakes, build, now, followUp) =>
      engine.write(async (db) => {
        const who = await subscribersIn(db, scope.apiKeyId, event, basicTakes);
        if (!who.advanced && !who.basic) {
          await markDispatched(db, row.id, now);
          return false;
        }
        const { payload, basic } = build(who);
        // the payloads are JSON text: written as built
        await db
          .update(webhookEvents)
          .set({ payload: sql`${payload}::text::json`, basicPayload: sql`${basic}::text::json`, dedupeKey: null, availableAt: now } as never)
          .where(and(eq(ev.apiKeyId, scope.apiKeyId), eq(ev.id, row.id)));
        if (followUp) {
          await insertEvent(db, [
            followUp.id,
            scope.apiKeyId,
            row.type,
            row.organizationId,
            row.documentId,
            null,
            null,
            row.dedupeKey,
            followUp.availableAt,
            now,
            null,
          ]);
        }
        return true;
      }),
  };
}
