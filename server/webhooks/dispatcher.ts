import { randomBytes } from 'node:crypto';
import { and, asc, eq, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import type { Config } from '../config.ts';
import { transaction, type Db } from '../db/client.ts';
import { apiKeys, apiKeySecrets, webhookAttempts, webhookConfigs, webhookDeliveries, webhookEndpoints, webhookEvents } from '../db/schema.ts';
import type { Logger } from '../log.ts';
import type { Secrets } from '../security/secrets.ts';
import { encodeBody, parsePublicKey, signatureHeader } from './crypto.ts';
import { createTransport } from './transport.ts';
import { advancedPayload, basicPayload, emitEvent, newMessageId, onOutboxWrite, subscribers, type DomainEvent } from './outbox.ts';

type EventRow = typeof webhookEvents.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;
type EndpointRow = typeof webhookEndpoints.$inferSelect;

/**
 * A debounced event's resolution when it falls due: wait longer, send this (with `followUpAt` when the burst is
 * still going on and was cut by the maximum wait: a new pending event then covers the changes still to come), or
 * drop it (its subject is gone).
 */
export type Debounced = { postponeUntil: number } | { event: DomainEvent; followUpAt?: number } | null;
export type DebouncedResolver = (row: EventRow) => Debounced;

export interface WebhookDispatcher {
  /** Looks for due work after the current event-loop turn (the answer to the caller goes first). */
  wake(): void;
  /** Cuts in-flight requests to a deleted endpoint: it must not receive anything more. */
  abortTarget(target: string): void;
  close(): Promise<void>;
}

const RESPONSE_EXCERPT = 4096;
const PERSONAL_FIELDS = new Set(['name', 'email', 'photoUrl', 'displayName', 'name_lowercase', 'email_lowercase', 'phone']);

/** `enableDataProtection`: user objects keep their ids; names, e-mail addresses and photos are left out everywhere. */
export function withoutPersonalFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPersonalFields);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !PERSONAL_FIELDS.has(k)).map(([k, v]) => [k, withoutPersonalFields(v)]));
}

/** Where the basic service's `authToken` is kept (see services/apikeys.ts). */
export const BASIC_AUTH_SECRET = 'webhook:authToken';
const BASIC_RAW = 'basic:raw';
const BASIC_PROCESSED = 'basic:processed';

/** `retry-after` in seconds or as an HTTP date; milliseconds from now, or null. */
function retryAfterMs(header: string | null, now: number): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * The delivery side of the outbox: fans each due event out to its targets (advanced endpoints, basic URLs), then
 * sends each delivery on the retry schedule and records every attempt. All state is in SQLite, so a restart or
 * a `kill -9` resumes where it stopped (a request in flight at the crash is sent again: at-least-once).
 */
export function createWebhookDispatcher(
  app: { db: Db; secrets: Secrets; log: Logger; config: Config; version: string },
  options: { debounced?: Record<string, DebouncedResolver> } = {},
): WebhookDispatcher {
  const settings = app.config.webhooks;
  const inFlight = new Map<string, AbortController>();
  const running = new Set<Promise<void>>();
  const nextSlot = new Map<string, number>();
  const transport = createTransport({ maxSockets: settings.concurrency });
  const P = <T>(name: string) => sql.placeholder(name) as unknown as T;
  const byDelivery = and(eq(webhookDeliveries.eventId, P<string>('eventId')), eq(webhookDeliveries.target, P<string>('target')));
  // The per-delivery path runs hundreds of times a second: statements built and compiled once.
  const q = {
    endpoint: app.db.select().from(webhookEndpoints).where(and(eq(webhookEndpoints.apiKeyId, P<string>('apiKeyId')), eq(webhookEndpoints.id, P<string>('id')))).prepare(),
    enabled: app.db.select({ isEnabled: webhookConfigs.isEnabled }).from(webhookConfigs).where(eq(webhookConfigs.apiKeyId, P<string>('apiKeyId'))).prepare(),
    delivery: app.db.select().from(webhookDeliveries).where(byDelivery).prepare(),
    insertAttempt: app.db
      .insert(webhookAttempts)
      .values({
        id: P('id'),
        apiKeyId: P('apiKeyId'),
        eventId: P('eventId'),
        target: P('target'),
        url: P('url'),
        trigger: P('trigger'),
        status: P('status'),
        responseStatusCode: P('responseStatusCode'),
        response: P('response'),
        durationMs: P('durationMs'),
        timestamp: P('timestamp'),
      })
      .prepare(),
    succeeded: app.db
      .update(webhookDeliveries)
      .set({ status: 'succeeded', nextAttemptAt: null, nextTrigger: 'scheduled', attempts: P('attempts'), lastAttemptAt: P('lastAttemptAt'), lastStatusCode: P('lastStatusCode') })
      .where(byDelivery)
      .prepare(),
    recovered: app.db.update(webhookEndpoints).set({ failingSince: null }).where(and(eq(webhookEndpoints.id, P<string>('id')), isNotNull(webhookEndpoints.failingSince))).prepare(),
    config: app.db.select().from(webhookConfigs).where(eq(webhookConfigs.apiKeyId, P<string>('apiKeyId'))).prepare(),
    liveEndpoints: app.db
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.apiKeyId, P<string>('apiKeyId')), eq(webhookEndpoints.disabled, false)))
      .orderBy(asc(webhookEndpoints.createdAt))
      .prepare(),
    insertDelivery: app.db
      .insert(webhookDeliveries)
      .values({ apiKeyId: P('apiKeyId'), eventId: P('eventId'), target: P('target'), url: P('url'), body: P('body'), status: 'pending', nextAttemptAt: P('nextAttemptAt'), createdAt: P('createdAt') })
      .prepare(),
    dispatched: app.db.update(webhookEvents).set({ dispatchedAt: P('now') }).where(eq(webhookEvents.id, P<string>('id'))).prepare(),
    dueEvents: app.db
      .select()
      .from(webhookEvents)
      .where(and(isNull(webhookEvents.dispatchedAt), lte(webhookEvents.availableAt, P<number>('now'))))
      .orderBy(asc(webhookEvents.availableAt))
      .limit(100)
      .prepare(),
    dueDeliveries: app.db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.status, 'pending'), lte(webhookDeliveries.nextAttemptAt, P<number>('now'))))
      .orderBy(asc(webhookDeliveries.nextAttemptAt))
      .limit(P<number>('limit'))
      .prepare(),
    nextEvent: app.db.select({ at: webhookEvents.availableAt }).from(webhookEvents).where(isNull(webhookEvents.dispatchedAt)).orderBy(asc(webhookEvents.availableAt)).limit(1).prepare(),
    nextDelivery: app.db.select({ at: webhookDeliveries.nextAttemptAt }).from(webhookDeliveries).where(eq(webhookDeliveries.status, 'pending')).orderBy(asc(webhookDeliveries.nextAttemptAt)).limit(1).prepare(),
  };
  /** Decrypted signing secrets by their ciphertext (a rotation makes a new ciphertext; old entries just go unused). */
  const secretCache = new Map<string, string>();
  const decryptSecret = (enc: string) => {
    let secret = secretCache.get(enc);
    if (secret === undefined) {
      if (secretCache.size > 10_000) secretCache.clear();
      secret = app.secrets.decrypt(enc);
      secretCache.set(enc, secret);
    }
    return secret;
  };
  type Outcome = { statusCode: number | null; response: string; retryAfter: number | null; durationMs: number; timestamp: number };
  const outcomes: Array<{ d: DeliveryRow; outcome: Outcome }> = [];
  let flushing = false;
  let timer: NodeJS.Timeout | undefined;
  let scheduled = false;
  let closed = false;

  const deliveryKey = (d: Pick<DeliveryRow, 'eventId' | 'target'>) => `${d.eventId}|${d.target}`;
  const delayFor = (attempt: number) => {
    const base = settings.retryScheduleMs[attempt] ?? 0;
    return attempt === 0 ? base : Math.round(base * (1 + settings.jitter * (Math.random() * 2 - 1)));
  };

  function endpointsFor(event: EventRow): EndpointRow[] {
    const channels = [event.organizationId, event.documentId].filter((c): c is string => !!c);
    return q.liveEndpoints
      .all({ apiKeyId: event.apiKeyId })
      .filter((ep) => (!ep.filterTypes || ep.filterTypes.includes(event.type)) && (!ep.channels || ep.channels.some((c) => channels.includes(c))));
  }

  /** The body for a target group, encoded/encrypted per its configuration; null when encryption is on without a usable key. */
  function body(payload: Record<string, unknown>, options: { encodeData?: boolean | undefined; encryptData?: boolean | undefined; publicKey?: string | undefined; enableDataProtection?: boolean | undefined }): string | null {
    const key = options.encryptData ? parsePublicKey(options.publicKey ?? '') : null;
    if (options.encryptData && !key) return null;
    return encodeBody(options.enableDataProtection ? withoutPersonalFields(payload) : payload, { encodeData: !!options.encodeData, encryptWith: key?.key ?? null });
  }

  function fanOut(tx: Db, event: EventRow, now: number) {
    let payload = event.payload;
    let basic = event.basicPayload;
    let followUpAt: number | undefined;
    if (event.dedupeKey) {
      const resolver = options.debounced?.[event.type];
      const resolved = resolver ? resolver(event) : null;
      if (resolved && 'postponeUntil' in resolved) {
        tx.update(webhookEvents).set({ availableAt: resolved.postponeUntil }).where(eq(webhookEvents.id, event.id)).run();
        return;
      }
      if (!resolved) {
        tx.update(webhookEvents).set({ dispatchedAt: now }).where(eq(webhookEvents.id, event.id)).run();
        return;
      }
      followUpAt = resolved.followUpAt;
      const who = subscribers(tx, event.apiKeyId, resolved.event.type, resolved.event.basic !== undefined);
      payload = who.advanced ? advancedPayload(resolved.event) : null;
      basic = who.basic ? basicPayload(resolved.event) : null;
    }
    const rows: Array<{ apiKeyId: string; eventId: string; target: string; url: string; body: string; nextAttemptAt: number; createdAt: number }> = [];
    const add = (target: string, url: string, text: string | null) => {
      if (text === null) {
        app.log.warn('webhook payload not sent: encryptData is on without a usable publicKey', { apiKeyId: event.apiKeyId, target });
        return;
      }
      rows.push({ apiKeyId: event.apiKeyId, eventId: event.id, target, url, body: text, nextAttemptAt: now + delayFor(0), createdAt: now });
    };
    if (payload) {
      const config = q.config.get({ apiKeyId: event.apiKeyId });
      if (config?.isEnabled) {
        const endpoints = endpointsFor(event);
        const text = endpoints.length ? body({ ...payload, webhookId: event.id }, config) : null;
        for (const ep of endpoints) add(ep.id, ep.url, text);
      }
    }
    if (basic) {
      const key = tx.select({ settings: apiKeys.settings }).from(apiKeys).where(eq(apiKeys.id, event.apiKeyId)).get();
      const config = key?.settings.useWebhookService ? key.settings.webhookServiceConfig : undefined;
      // The raw URL gets the event as it happened; the processed URL the same event with the recipients' notification settings resolved.
      const withId: Record<string, unknown> = { webhookId: event.id, ...basic };
      const { usersOrganizationNotificationsConfig: _o, usersDocumentNotificationsConfig: _d, ...raw } = withId;
      if (config?.rawNotificationUrl) add(BASIC_RAW, config.rawNotificationUrl, body(raw, config));
      if (config?.processedNotificationUrl) add(BASIC_PROCESSED, config.processedNotificationUrl, body(withId, config));
    }
    for (const row of rows) q.insertDelivery.run(row);
    q.dispatched.run({ id: event.id, now });
    if (followUpAt !== undefined && event.dedupeKey) {
      tx.insert(webhookEvents)
        .values({ id: newMessageId(), apiKeyId: event.apiKeyId, type: event.type, organizationId: event.organizationId, documentId: event.documentId, payload: null, basicPayload: null, dedupeKey: event.dedupeKey, availableAt: followUpAt, createdAt: now })
        .run();
    }
  }

  function dispatchDueEvents(now: number) {
    for (;;) {
      const due = q.dueEvents.all({ now });
      if (due.length === 0) return;
      transaction(app.db, (tx) => {
        for (const event of due) fanOut(tx, event, now);
      });
      if (due.length < 100) return;
    }
  }

  /** Secrets that sign a delivery to this endpoint now: the current one, and the previous one during a rotation overlap. */
  function signingSecrets(ep: EndpointRow, now: number): string[] {
    const secrets = [decryptSecret(ep.secretEnc)];
    if (ep.previousSecretEnc && (ep.previousSecretExpiresAt ?? 0) > now) secrets.push(decryptSecret(ep.previousSecretEnc));
    return secrets;
  }

  function cancel(d: DeliveryRow) {
    app.db.update(webhookDeliveries).set({ status: 'cancelled', nextAttemptAt: null }).where(and(eq(webhookDeliveries.eventId, d.eventId), eq(webhookDeliveries.target, d.target))).run();
  }

  function startDueDeliveries(now: number) {
    const free = settings.concurrency - inFlight.size;
    if (free <= 0) return;
    const due = q.dueDeliveries
      .all({ now, limit: free + inFlight.size })
      .filter((d) => !inFlight.has(deliveryKey(d)))
      .slice(0, free);
    for (const d of due) {
      const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': `Hearth-Webhooks/${app.version}` };
      const timestamp = Math.floor(now / 1000);
      headers['webhook-id'] = d.eventId;
      headers['webhook-timestamp'] = String(timestamp);
      let endpoint: EndpointRow | undefined;
      if (d.target.startsWith('basic:')) {
        const key = app.db.select({ id: apiKeys.id, settings: apiKeys.settings }).from(apiKeys).where(eq(apiKeys.id, d.apiKeyId)).get();
        if (!key?.settings.useWebhookService) {
          cancel(d);
          continue;
        }
        const token = basicAuthToken(d.apiKeyId);
        if (token) headers.authorization = `Basic ${token}`;
      } else {
        endpoint = q.endpoint.get({ apiKeyId: d.apiKeyId, id: d.target });
        const config = q.enabled.get({ apiKeyId: d.apiKeyId });
        if (!endpoint || endpoint.disabled || !config?.isEnabled) {
          cancel(d);
          continue;
        }
        if (endpoint.rateLimit) {
          const slot = nextSlot.get(endpoint.id) ?? 0;
          if (slot > now) {
            app.db.update(webhookDeliveries).set({ nextAttemptAt: slot }).where(and(eq(webhookDeliveries.eventId, d.eventId), eq(webhookDeliveries.target, d.target))).run();
            continue;
          }
          nextSlot.set(endpoint.id, Math.max(now, slot) + 1000 / endpoint.rateLimit);
        }
        headers['webhook-signature'] = signatureHeader(signingSecrets(endpoint, now), d.eventId, timestamp, d.body);
      }
      const controller = new AbortController();
      inFlight.set(deliveryKey(d), controller);
      const attempt = send(d, headers, controller).finally(() => running.delete(attempt));
      running.add(attempt);
    }
  }

  function basicAuthToken(apiKeyId: string): string | undefined {
    const row = app.db.select({ valueEnc: apiKeySecrets.valueEnc }).from(apiKeySecrets).where(and(eq(apiKeySecrets.apiKeyId, apiKeyId), eq(apiKeySecrets.name, BASIC_AUTH_SECRET))).get();
    return row ? app.secrets.decrypt(row.valueEnc) : undefined;
  }

  async function send(d: DeliveryRow, headers: Record<string, string>, controller: AbortController) {
    const started = Date.now();
    let statusCode: number | null = null;
    let response = '';
    let retryAfter: number | null = null;
    const timeout = setTimeout(() => controller.abort(new Error(`timed out after ${settings.timeoutMs} ms`)), settings.timeoutMs);
    try {
      const answer = await transport.post(d.url, headers, d.body, controller.signal, RESPONSE_EXCERPT);
      statusCode = answer.status;
      response = answer.excerpt;
      retryAfter = answer.status === 429 || answer.status === 503 ? retryAfterMs(answer.retryAfter, Date.now()) : null;
    } catch (error) {
      const reason = controller.signal.reason instanceof Error ? controller.signal.reason.message : error instanceof Error ? error.message : String(error);
      response = reason;
    } finally {
      clearTimeout(timeout);
    }
    // Shutting down, or the endpoint was deleted: the attempt does not count; a pending delivery goes out after restart.
    if (closed || controller.signal.reason === 'aborted') {
      inFlight.delete(deliveryKey(d));
      return;
    }
    outcomes.push({ d, outcome: { statusCode, response, retryAfter, durationMs: Date.now() - started, timestamp: started } });
    if (!flushing) {
      flushing = true;
      setImmediate(flushOutcomes);
    }
  }

  /** Records the attempts that completed during one event-loop turn in one transaction (one commit, not one each). */
  function flushOutcomes() {
    flushing = false;
    const batch = outcomes.splice(0);
    if (batch.length === 0) return;
    try {
      transaction(app.db, (tx) => {
        for (const { d, outcome } of batch) record(tx, d, outcome);
      });
    } catch (error) {
      // Not recorded: the deliveries stay pending and are attempted again (at-least-once).
      app.log.error('webhook attempts not recorded', { error: error instanceof Error ? error.message : String(error) });
    } finally {
      // Only now may a delivery be picked again: before its attempt is stored it still looks due.
      for (const { d } of batch) inFlight.delete(deliveryKey(d));
      wake();
    }
  }

  function record(tx: Db, d: DeliveryRow, outcome: Outcome) {
    const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
    const now = Date.now();
    {
      const current = q.delivery.get({ eventId: d.eventId, target: d.target });
      if (!current) return;
      const attemptId = `atmpt_${randomBytes(20).toString('base64url').slice(0, 27)}`;
      q.insertAttempt.run({ id: attemptId, apiKeyId: d.apiKeyId, eventId: d.eventId, target: d.target, url: d.url, trigger: d.nextTrigger, status: ok ? 'succeeded' : 'failed', responseStatusCode: outcome.statusCode, response: outcome.response, durationMs: outcome.durationMs, timestamp: outcome.timestamp });
      const attempts = current.attempts + 1;
      const where = and(eq(webhookDeliveries.eventId, d.eventId), eq(webhookDeliveries.target, d.target));
      // A replay or recover asked for while this attempt was in flight rescheduled the row: it stands (the
      // delivery goes out again); this attempt is recorded without touching the new schedule.
      if (current.status === 'pending' && (current.nextAttemptAt !== d.nextAttemptAt || current.nextTrigger !== d.nextTrigger)) {
        tx.update(webhookDeliveries).set({ attempts, lastAttemptAt: outcome.timestamp, lastStatusCode: outcome.statusCode }).where(where).run();
        return;
      }
      const base = { attempts, lastAttemptAt: outcome.timestamp, lastStatusCode: outcome.statusCode, nextTrigger: 'scheduled' };
      const isEndpoint = !d.target.startsWith('basic:');
      if (ok) {
        q.succeeded.run({ eventId: d.eventId, target: d.target, attempts, lastAttemptAt: outcome.timestamp, lastStatusCode: outcome.statusCode });
        if (isEndpoint) q.recovered.run({ id: d.target });
        return;
      }
      let disable: string | null = null;
      if (isEndpoint) {
        const ep = tx.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, d.target)).get();
        const failingSince = ep?.failingSince ?? outcome.timestamp;
        if (ep && ep.failingSince === null) tx.update(webhookEndpoints).set({ failingSince }).where(eq(webhookEndpoints.id, ep.id)).run();
        if (outcome.statusCode === 410) disable = 'The endpoint answered 410 Gone.';
        else if (now - failingSince >= settings.disableAfterMs) disable = `Every attempt failed for ${Math.round(settings.disableAfterMs / 3_600_000)} hours.`;
        if (ep && disable) {
          tx.update(webhookEndpoints).set({ disabled: true, disabledReason: disable, updatedAt: now }).where(eq(webhookEndpoints.id, ep.id)).run();
          tx.update(webhookDeliveries).set({ status: 'cancelled', nextAttemptAt: null }).where(and(eq(webhookDeliveries.target, ep.id), eq(webhookDeliveries.status, 'pending'))).run();
        }
      }
      if (disable || attempts >= settings.retryScheduleMs.length) {
        tx.update(webhookDeliveries).set({ ...base, status: 'failed', nextAttemptAt: null }).where(where).run();
        const event = tx.select({ type: webhookEvents.type }).from(webhookEvents).where(eq(webhookEvents.id, d.eventId)).get();
        if (isEndpoint && event && event.type !== 'message.attempt.exhausted') {
          emitEvent(tx, {
            apiKeyId: d.apiKeyId,
            type: 'message.attempt.exhausted',
            actionType: 'attemptExhausted',
            source: 'platform',
            data: { messageId: d.eventId, eventType: event.type, endpointId: d.target, lastAttempt: { id: attemptId, timestamp: new Date(outcome.timestamp).toISOString(), responseStatusCode: outcome.statusCode } },
          });
        }
        return;
      }
      const delay = Math.max(delayFor(attempts), outcome.retryAfter ?? 0);
      tx.update(webhookDeliveries).set({ ...base, status: 'pending', nextAttemptAt: now + delay }).where(where).run();
    }
  }

  function nextDueAt(): number | null {
    const event = q.nextEvent.get();
    const delivery = q.nextDelivery.get();
    const times = [event?.at, delivery?.at].filter((t): t is number => typeof t === 'number');
    return times.length ? Math.min(...times) : null;
  }

  function pass() {
    scheduled = false;
    if (closed) return;
    try {
      const now = Date.now();
      dispatchDueEvents(now);
      startDueDeliveries(now);
      if (timer) clearTimeout(timer);
      timer = undefined;
      const next = nextDueAt();
      // A full set of requests in flight: their completion wakes the dispatcher again.
      if (next !== null && inFlight.size < settings.concurrency) {
        timer = setTimeout(pass, Math.min(Math.max(0, next - Date.now()), 2 ** 31 - 1));
        timer.unref();
      }
    } catch (error) {
      app.log.error('webhook dispatcher pass failed', { error: error instanceof Error ? error.message : String(error) });
      timer = setTimeout(pass, 1000);
      timer.unref();
    }
  }

  function wake() {
    if (scheduled || closed) return;
    scheduled = true;
    setImmediate(pass);
  }

  const unsubscribe = onOutboxWrite(wake);
  wake();

  return {
    wake,
    abortTarget(target) {
      for (const [key, controller] of inFlight) if (key.endsWith(`|${target}`)) controller.abort('aborted');
    },
    async close() {
      closed = true;
      unsubscribe();
      if (timer) clearTimeout(timer);
      for (const controller of inFlight.values()) controller.abort('aborted');
      await Promise.allSettled([...running]);
      flushOutcomes();
      transport.close();
    },
  };
}
