import { currentTime } from '../clock.ts';
import { randomBytes } from 'node:crypto';
import type { Secrets } from '../security/secrets.ts';
import { encodeBody, parsePublicKey, signatureHeader } from './crypto.ts';
import type { BasicSettings, DeliveryRow, DeliveryStoreQueries, EndpointRow, EventRow } from '../db/repos/webhook-delivery.ts';
import { ATTEMPT_RESPONSE_HEADERS, type Command, type MainWrite, type SentWebhook, type WorkerData } from './protocol.ts';
import { createSender, type KeptHeaders } from './sender.ts';

/** What an attempt keeps of the receiver's answer: enough to debug it, too little to read an internal service with. */
const RESPONSE_EXCERPT = 1024;
const PERSONAL_FIELDS = new Set(['name', 'email', 'photoUrl', 'displayName', 'name_lowercase', 'email_lowercase', 'phone']);
/** Events fanned out per query (and per store transaction). */
const EVENT_BATCH = 200;
/** How long dispatched marks and other `hearth.db` writes wait to be sent together to the main thread. */
const WRITE_BATCH_MS = 20;
/**
 * How long a delivery taken for an attempt stays taken beyond the attempt's timeout, where engines share the store
 * (takeDueDeliveries): room to record the attempt. An engine that died holding it lets another take it after that.
 */
const LEASE_MARGIN_MS = 60_000;

/** `enableDataProtection`: user objects keep their ids; names, e-mail addresses and photos are left out everywhere. */
export function withoutPersonalFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPersonalFields);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !PERSONAL_FIELDS.has(k))
      .map(([k, v]) => [k, withoutPersonalFields(v)]),
  );
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

export interface EngineDeps {
  /**
   * `hearth.db` read only (events, endpoints, configuration, secrets) and `webhooks.db`, this engine's own (deliveries
   * and attempts); or the same tables in PostgreSQL (pg/repos/webhook-delivery.ts). Every answer is awaited.
   */
  queries: DeliveryStoreQueries;
  secrets: Secrets;
  settings: WorkerData['settings'];
  version: string;
  log(level: 'error' | 'warn' | 'info' | 'debug', message: string, fields?: Record<string, unknown>): void;
  /** Asks the main thread to apply these writes to `hearth.db` in one transaction; resolves once committed. */
  writeMain(writes: MainWrite[]): Promise<void>;
  /** Testing mode: told of each attempt that went out (the worker posts it to the testing outbox). */
  onSent?(sent: SentWebhook): void;
}

/**
 * The delivery side of the outbox, run by the worker thread: fans each ready event out to its targets (advanced
 * endpoints, basic URLs), sends each delivery on the retry schedule and records every attempt. All delivery
 * state is in `webhooks.db`, so a restart or a `kill -9` resumes where it stopped (a request in flight at the
 * crash is sent again: at-least-once; an event fanned out but not yet marked dispatched is fanned out again,
 * which finds its deliveries already there).
 *
 * The store answers asynchronously (DeliveryStoreQueries), so the engine's store work runs as steps, one at a time
 * (`exclusive`): a pass, the recording of finished attempts, a command. One at a time keeps what one synchronous
 * step gave: a delivery is not picked while its attempt is being recorded, a replay does not interleave with the
 * fan-out, and SQLite's one connection never has two transactions to hold.
 */
export function createDeliveryEngine(deps: EngineDeps) {
  const { queries: q, settings } = deps;
  const inFlight = new Map<string, AbortController>();
  /** Deliveries whose attempt a shutdown cut: due again at once (on PostgreSQL their lease would hold them back). */
  const cut: DeliveryRow[] = [];
  const running = new Set<Promise<void>>();
  const nextSlot = new Map<string, number>();
  /** Events fanned out whose dispatched mark the main thread has not committed yet. */
  const awaitingMark = new Set<string>();
  /** Endpoints this engine reported failing (or recovered) until the main thread's commit shows it. */
  const failingSince = new Map<string, number | null>();
  const sender = createSender({ maxSockets: settings.concurrency, policy: settings.outboundPrivate });
  const storeTx = <T>(work: () => Promise<T>) => q.storeTransaction(work);
  const settingsOf = async (apiKeyId: string): Promise<BasicSettings | undefined> => {
    const row = await q.keySettings(apiKeyId);
    return row ? (JSON.parse(row.settings) as BasicSettings) : undefined;
  };

  /** The engine's store steps, run one after the other (see above). */
  let steps: Promise<unknown> = Promise.resolve();
  function exclusive<T>(step: () => Promise<T>): Promise<T> {
    const result = steps.then(step);
    steps = result.catch(() => undefined);
    return result;
  }

  /** Decrypted signing secrets by their ciphertext (a rotation makes a new ciphertext; old entries just go unused). */
  const secretCache = new Map<string, string>();
  const decrypt = (enc: string) => {
    let secret = secretCache.get(enc);
    if (secret === undefined) {
      if (secretCache.size > 10_000) secretCache.clear();
      secret = deps.secrets.decrypt(enc);
      secretCache.set(enc, secret);
    }
    return secret;
  };

  type Outcome = {
    statusCode: number | null;
    response: string;
    retryAfter: number | null;
    durationMs: number;
    timestamp: number;
    /** The request's headers as they went out (content-length included, as outbound.ts adds it). */
    requestHeaders: Array<[string, string]>;
    /** The answer's, bounded; null when no HTTP answer came. */
    responseHeaders: KeptHeaders | null;
  };
  const outcomes: Array<{ d: DeliveryRow; outcome: Outcome }> = [];
  let flushing = false;
  let timer: NodeJS.Timeout | undefined;
  let scheduled = false;
  let closed = false;

  // --- writes to hearth.db, batched through the main thread -----------------------------------------------
  let writes: MainWrite[] = [];
  let writeTimer: NodeJS.Timeout | undefined;
  const inFlightWrites = new Set<Promise<void>>();
  function queueWrite(write: MainWrite) {
    writes.push(write);
    writeTimer ??= setTimeout(sendWrites, WRITE_BATCH_MS);
  }
  function sendWrites() {
    if (writeTimer) clearTimeout(writeTimer);
    writeTimer = undefined;
    const batch = writes;
    writes = [];
    if (batch.length === 0) return;
    const done = deps
      .writeMain(batch)
      .catch((error: unknown) =>
        deps.log('error', 'webhook state not written to the database; retried', { error: error instanceof Error ? error.message : String(error) }),
      )
      .finally(() => {
        inFlightWrites.delete(done);
        // Marked (or not: then the event is fanned out again, which finds its deliveries already there). From now
        // on hearth.db tells an endpoint's health again (an operation may change it too: re-enabling resets it).
        for (const w of batch) {
          if (w.kind === 'dispatched') awaitingMark.delete(w.eventId);
          else if (w.kind === 'failing' || w.kind === 'recovered') failingSince.delete(w.endpointId);
        }
        wake();
      });
    inFlightWrites.add(done);
  }

  const deliveryKey = (d: Pick<DeliveryRow, 'eventId' | 'target'>) => `${d.eventId}|${d.target}`;
  const delayFor = (attempt: number) => {
    const base = settings.retryScheduleMs[attempt] ?? 0;
    return attempt === 0 ? base : Math.round(base * (1 + settings.jitter * (Math.random() * 2 - 1)));
  };

  /** The body for a target group, encoded/encrypted per its configuration; null when encryption is on without a usable key. */
  function body(
    payload: Record<string, unknown>,
    options: {
      encodeData?: boolean | undefined;
      encryptData?: boolean | undefined;
      publicKey?: string | undefined;
      enableDataProtection?: boolean | undefined;
    },
  ): string | null {
    const key = options.encryptData ? parsePublicKey(options.publicKey ?? '') : null;
    if (options.encryptData && !key) return null;
    return encodeBody(options.enableDataProtection ? withoutPersonalFields(payload) : payload, {
      encodeData: !!options.encodeData,
      encryptWith: key?.key ?? null,
    });
  }

  async function fanOut(event: EventRow, now: number) {
    const add = async (target: string, url: string, text: string | null) => {
      if (text === null) {
        deps.log('warn', 'webhook payload not sent: encryptData is on without a usable publicKey', { apiKeyId: event.apiKeyId, target });
        return;
      }
      await q.insertDelivery(event.apiKeyId, event.id, target, url, text, now + delayFor(0), now);
    };
    if (event.payload) {
      const config = await q.config(event.apiKeyId);
      if (config?.isEnabled) {
        // An event addressed to one endpoint goes to it alone (while it is enabled), past its filters.
        const target = event.targetEndpointId === null ? undefined : await q.endpoint(event.apiKeyId, event.targetEndpointId);
        const endpoints =
          event.targetEndpointId === null
            ? await q.takingEndpoints(event.apiKeyId, event.type, event.organizationId || null, event.documentId || null)
            : target && !target.disabled
              ? [target]
              : [];
        const options = {
          encodeData: !!config.encodeData,
          encryptData: !!config.encryptData,
          publicKey: config.publicKey,
          enableDataProtection: !!config.enableDataProtection,
        };
        const text = endpoints.length ? body({ ...(JSON.parse(event.payload) as Record<string, unknown>), webhookId: event.id }, options) : null;
        for (const ep of endpoints) await add(ep.id, ep.url, text);
      }
    }
    if (event.basicPayload && event.targetEndpointId === null) {
      const settings = await settingsOf(event.apiKeyId);
      const config = settings?.useWebhookService ? settings.webhookServiceConfig : undefined;
      // The raw URL gets the event as it happened; the processed URL the same event with the recipients' notification settings resolved.
      const withId: Record<string, unknown> = { webhookId: event.id, ...(JSON.parse(event.basicPayload) as Record<string, unknown>) };
      const { usersOrganizationNotificationsConfig: _o, usersDocumentNotificationsConfig: _d, ...raw } = withId;
      if (config?.rawNotificationUrl) await add(BASIC_RAW, config.rawNotificationUrl, body(raw, config));
      if (config?.processedNotificationUrl) await add(BASIC_PROCESSED, config.processedNotificationUrl, body(withId, config));
    }
  }

  async function dispatchReadyEvents(now: number) {
    for (;;) {
      const ready = (await q.readyEvents(now, EVENT_BATCH + awaitingMark.size)).filter((e) => !awaitingMark.has(e.id));
      if (ready.length === 0) return;
      await storeTx(async () => {
        for (const event of ready) await fanOut(event, now);
      });
      for (const event of ready) {
        awaitingMark.add(event.id);
        queueWrite({ kind: 'dispatched', eventId: event.id, at: now });
      }
      if (ready.length < EVENT_BATCH) return;
    }
  }

  /** Secrets that sign a delivery to this endpoint now: the current one, and the previous one during a rotation overlap. */
  function signingSecrets(ep: EndpointRow, now: number): string[] {
    const secrets = [decrypt(ep.secretEnc)];
    if (ep.previousSecretEnc && (ep.previousSecretExpiresAt ?? 0) > now) secrets.push(decrypt(ep.previousSecretEnc));
    return secrets;
  }

  async function startDueDeliveries(now: number) {
    const free = settings.concurrency - inFlight.size;
    if (free <= 0) return;
    const due = await q.takeDueDeliveries(now, free, now + settings.timeoutMs + LEASE_MARGIN_MS, [...inFlight.keys()]);
    for (const d of due) {
      // when this attempt starts, as recorded; a rate limit's slot is taken at the same instant (not the pass's
      // `now`, which earlier sends of the pass make stale), so recorded starts are never closer than it allows
      const startedAt = currentTime();
      // the real time, not Hearth's clock (server/clock.ts): receivers check it against theirs (Standard Webhooks'
      // five-minute tolerance), and a test that advanced Hearth's clock must still verify the signature
      const timestamp = Math.floor(Date.now() / 1000);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': `Hearth-Webhooks/${deps.version}`,
        'webhook-id': d.eventId,
        'webhook-timestamp': String(timestamp),
      };
      if (d.target.startsWith('basic:')) {
        if (!(await settingsOf(d.apiKeyId))?.useWebhookService) {
          await q.cancel(d.eventId, d.target);
          continue;
        }
        const token = await q.basicToken(d.apiKeyId, BASIC_AUTH_SECRET);
        if (token) headers.authorization = `Basic ${deps.secrets.decrypt(token.valueEnc)}`;
      } else {
        const endpoint = await q.endpoint(d.apiKeyId, d.target);
        if (!endpoint || endpoint.disabled || !(await q.config(d.apiKeyId))?.isEnabled) {
          await q.cancel(d.eventId, d.target);
          continue;
        }
        if (endpoint.rateLimit) {
          const slot = nextSlot.get(endpoint.id) ?? 0;
          if (slot > startedAt) {
            await q.postpone(slot, d.eventId, d.target);
            continue;
          }
          nextSlot.set(endpoint.id, startedAt + 1000 / endpoint.rateLimit);
        }
        headers['webhook-signature'] = signatureHeader(signingSecrets(endpoint, now), d.eventId, timestamp, d.body);
      }
      const controller = new AbortController();
      inFlight.set(deliveryKey(d), controller);
      const attempt = send(d, headers, controller, startedAt).finally(() => running.delete(attempt));
      running.add(attempt);
    }
  }

  async function send(d: DeliveryRow, headers: Record<string, string>, controller: AbortController, started: number) {
    let statusCode: number | null = null;
    let response = '';
    let retryAfter: number | null = null;
    let responseHeaders: KeptHeaders | null = null;
    const timeout = setTimeout(() => controller.abort(new Error(`timed out after ${settings.timeoutMs} ms`)), settings.timeoutMs);
    try {
      const answer = await sender.post(d.url, headers, d.body, controller.signal, RESPONSE_EXCERPT, ATTEMPT_RESPONSE_HEADERS);
      statusCode = answer.status;
      response = answer.excerpt;
      responseHeaders = answer.headers;
      retryAfter = answer.status === 429 || answer.status === 503 ? retryAfterMs(answer.retryAfter, currentTime()) : null;
    } catch (error) {
      const reason = controller.signal.reason instanceof Error ? controller.signal.reason.message : error instanceof Error ? error.message : String(error);
      response = reason;
    } finally {
      clearTimeout(timeout);
    }
    // Cut (the grace of a shutdown ran out, or the endpoint was deleted): the attempt does not count; a pending
    // delivery goes out after restart. An attempt that finished within a shutdown's grace counts as any other.
    if (controller.signal.reason === 'aborted') {
      inFlight.delete(deliveryKey(d));
      if (closed) cut.push(d);
      return;
    }
    const requestHeaders: Array<[string, string]> = [...Object.entries(headers), ['content-length', String(Buffer.byteLength(d.body))]];
    deps.onSent?.({
      apiKeyId: d.apiKeyId,
      eventId: d.eventId,
      target: d.target,
      url: d.url,
      sentAt: started,
      requestHeaders: Object.fromEntries(requestHeaders),
      body: d.body,
      statusCode,
      response,
    });
    outcomes.push({
      d,
      outcome: { statusCode, response, retryAfter, durationMs: currentTime() - started, timestamp: started, requestHeaders, responseHeaders },
    });
    if (!flushing) {
      flushing = true;
      setImmediate(() => void exclusive(flushOutcomes));
    }
  }

  /**
   * Records the attempts that completed while the store was busy or during one event-loop turn in one transaction
   * (one commit, not one each). A step: run through `exclusive`.
   */
  async function flushOutcomes() {
    flushing = false;
    const batch = outcomes.splice(0);
    if (batch.length === 0) return;
    try {
      await storeTx(async () => {
        for (const { d, outcome } of batch) await record(d, outcome);
      });
    } catch (error) {
      // Not recorded: the deliveries stay pending and are attempted again (at-least-once).
      deps.log('error', 'webhook attempts not recorded', { error: error instanceof Error ? error.message : String(error) });
    } finally {
      // Only now may a delivery be picked again: before its attempt is stored it still looks due.
      for (const { d } of batch) inFlight.delete(deliveryKey(d));
      wake();
    }
  }

  async function record(d: DeliveryRow, outcome: Outcome) {
    const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
    const now = currentTime();
    const current = await q.delivery(d.eventId, d.target);
    if (!current) return;
    const attemptId = `atmpt_${randomBytes(20).toString('base64url').slice(0, 27)}`;
    await q.insertAttempt(
      attemptId,
      d.apiKeyId,
      d.eventId,
      d.target,
      d.url,
      d.nextTrigger,
      ok ? 'succeeded' : 'failed',
      outcome.statusCode,
      outcome.response,
      outcome.durationMs,
      outcome.timestamp,
      JSON.stringify(outcome.requestHeaders),
      outcome.responseHeaders ? JSON.stringify(outcome.responseHeaders.headers) : null,
      outcome.responseHeaders?.omitted ?? 0,
    );
    const attempts = current.attempts + 1;
    await q.setAttempted(attempts, outcome.timestamp, outcome.statusCode, d.eventId, d.target);
    const schedule = (status: string, nextAttemptAt: number | null) => q.setSchedule(status, nextAttemptAt, 'scheduled', d.apiKeyId, d.eventId, d.target);
    // A replay, recover or cancel asked for while this attempt was in flight changed the row: it stands (a replay
    // goes out again); this attempt is recorded without touching the new schedule.
    if (current.status !== 'pending' || current.nextAttemptAt !== d.nextAttemptAt || current.nextTrigger !== d.nextTrigger) return;
    const isEndpoint = !d.target.startsWith('basic:');
    const endpoint = isEndpoint ? await q.endpoint(d.apiKeyId, d.target) : undefined;
    const since = endpoint ? (failingSince.has(endpoint.id) ? (failingSince.get(endpoint.id) ?? null) : endpoint.failingSince) : null;
    if (ok) {
      await schedule('succeeded', null);
      if (endpoint && since !== null) {
        failingSince.set(endpoint.id, null);
        queueWrite({ kind: 'recovered', endpointId: endpoint.id });
      }
      return;
    }
    let disable: string | null = null;
    if (endpoint) {
      const start = since ?? outcome.timestamp;
      if (since === null) {
        failingSince.set(endpoint.id, start);
        queueWrite({ kind: 'failing', endpointId: endpoint.id, since: start });
      }
      if (outcome.statusCode === 410) disable = 'The endpoint answered 410 Gone.';
      else if (now - start >= settings.disableAfterMs) disable = `Every attempt failed for ${Math.round(settings.disableAfterMs / 3_600_000)} hours.`;
      if (disable) {
        queueWrite({ kind: 'disable', endpointId: endpoint.id, reason: disable, at: now });
        await q.cancelTarget(d.apiKeyId, endpoint.id);
      }
    }
    if (disable || attempts >= settings.retryScheduleMs.length) {
      await schedule('failed', null);
      const event = await q.eventType(d.eventId);
      if (isEndpoint && event && event.type !== 'message.attempt.exhausted') {
        queueWrite({
          kind: 'exhausted',
          apiKeyId: d.apiKeyId,
          messageId: d.eventId,
          eventType: event.type,
          endpointId: d.target,
          attemptId,
          timestamp: outcome.timestamp,
          statusCode: outcome.statusCode,
        });
      }
      return;
    }
    const delay = Math.max(delayFor(attempts), outcome.retryAfter ?? 0);
    await schedule('pending', now + delay);
  }

  /** One pass: fans out ready events, starts due deliveries, and sets the timer for the next. A step. */
  async function pass() {
    scheduled = false;
    if (closed) return;
    try {
      const now = currentTime();
      await dispatchReadyEvents(now);
      await startDueDeliveries(now);
      if (timer) clearTimeout(timer);
      timer = undefined;
      const next = (await q.nextDelivery())?.at;
      // A full set of requests in flight: their completion wakes the engine again. New events wake it too.
      if (typeof next === 'number' && inFlight.size < settings.concurrency && !closed && !scheduled) {
        timer = setTimeout(runPass, Math.min(Math.max(0, next - currentTime()), 2 ** 31 - 1));
      }
    } catch (error) {
      deps.log('error', 'webhook delivery pass failed', { error: error instanceof Error ? error.message : String(error) });
      if (!closed) timer = setTimeout(runPass, 1000);
    }
  }
  function runPass() {
    void exclusive(pass);
  }

  function wake() {
    if (scheduled || closed) return;
    scheduled = true;
    setImmediate(runPass);
  }

  function abortTarget(target: string) {
    for (const [key, controller] of inFlight) if (key.endsWith(`|${target}`)) controller.abort('aborted');
  }

  /** Requests from the main thread's operations; each changes `webhooks.db` only here, its one writer. A step. */
  async function runCommand(c: Command): Promise<unknown> {
    if (c.type === 'cancelTarget') {
      await q.cancelTarget(c.apiKeyId, c.target);
      abortTarget(c.target);
      return null;
    }
    if (c.type === 'replay') {
      const now = currentTime();
      await storeTx(async () => {
        for (const target of c.targets) await q.setSchedule('pending', now, 'replay', c.apiKeyId, c.messageId, target);
      });
      wake();
      return null;
    }
    const count = await q.recover(currentTime(), c.apiKeyId, c.target, c.since);
    wake();
    return count;
  }
  /** Resolves with the command's answer once its change is committed (the worker replies then). */
  const command = (c: Command): Promise<unknown> => exclusive(() => runCommand(c));

  wake();

  return {
    wake,
    command,
    /**
     * Stops sending; requests in flight get `graceMs` to finish (an answered attempt is recorded, so a receiver is
     * not sent it again), then are cut and go out again after restart. Records what finished, and hands the last
     * writes to the main thread.
     */
    async close(graceMs = 0) {
      closed = true;
      if (timer) clearTimeout(timer);
      if (running.size > 0 && graceMs > 0) {
        let grace: NodeJS.Timeout | undefined;
        await Promise.race([Promise.allSettled([...running]), new Promise<void>((resolve) => (grace = setTimeout(resolve, graceMs)))]);
        clearTimeout(grace);
      }
      for (const controller of inFlight.values()) controller.abort('aborted');
      await Promise.allSettled([...running]);
      await exclusive(flushOutcomes);
      // the lease taken for a cut attempt is given back, so that the next start (or another instance) sends it now
      await exclusive(async () => {
        const now = currentTime();
        for (const d of cut) await q.postpone(now, d.eventId, d.target);
      }).catch((error: unknown) => deps.log('warn', 'cut deliveries not released; they are due when their lease ends', { error: String(error) }));
      sendWrites();
      await Promise.allSettled([...inFlightWrites]);
      sender.close();
    },
  };
}
