import { Worker } from 'node:worker_threads';
import { and, asc, eq, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import type { Config } from '../config.ts';
import { setCheckpointerRunning } from '../db/checkpointer.ts';
import { transaction, type Db } from '../db/client.ts';
import { connectionOf } from '../db/prepared.ts';
import { webhookEndpoints, webhookEvents } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { WebhookEventType } from '../../shared/schemas/webhooks.ts';
import { DATABASE_FILE } from '../data-files.ts';
import { WORKER_ENTRY } from '../paths.ts';
import { advancedPayload, basicPayload, emitEvent, newMessageId, onOutboxWrite, subscribers, type DomainEvent } from './outbox.ts';
import type { Command, FromWorker, MainWrite, ToWorker, WorkerData } from './protocol.ts';

type EventRow = typeof webhookEvents.$inferSelect;

/**
 * A debounced event's resolution when it falls due: wait longer, send this (with `followUpAt` when the burst is
 * still going on and was cut by the maximum wait: a new pending event then covers the changes still to come), or
 * drop it (its subject is gone).
 */
export type Debounced = { postponeUntil: number } | { event: DomainEvent; followUpAt?: number } | null;
export type DebouncedResolver = (row: EventRow) => Debounced;

export interface WebhookDispatcher {
  /** Tells the delivery worker that ready events or due deliveries may be waiting. */
  wake(): void;
  /**
   * Resolves once the delivery worker runs, starting it if it still waits for work (it starts beside the listening
   * server when any key uses webhooks, else at the first event; events wait in the outbox meanwhile).
   */
  ready(): Promise<void>;
  /** Cancels the pending deliveries to a target and cuts its requests in flight (a deleted endpoint receives nothing more). */
  cancelTarget(apiKeyId: string, target: string): Promise<void>;
  /** Sends a message again now to these targets, with the same `webhook-id`. */
  replay(apiKeyId: string, messageId: string, targets: string[]): Promise<void>;
  /** Every failed delivery to a target created since `since` goes out again on a fresh schedule; resolves to their number. */
  recover(apiKeyId: string, target: string, since: number): Promise<number>;
  close(): Promise<void>;
}

/** For a data dir opened without a server (CLI commands): the outbox waits for a server to deliver it. */
export const offlineDispatcher: WebhookDispatcher = {
  wake: () => undefined,
  ready: async () => undefined,
  cancelTarget: async () => undefined,
  replay: async () => {
    throw new Error('Deliveries are sent by a running server.');
  },
  recover: async () => {
    throw new Error('Deliveries are sent by a running server.');
  },
  close: async () => undefined,
};

/**
 * The delivery worker's heap (old generation) starts small: it holds nothing beyond one pass (its state is in the
 * two databases), and an isolate otherwise grows its heap lazily for minutes, which reads as a leak in RSS. An
 * event too large for it (a multi-megabyte document in `crdt.update_data`) makes the worker run out of memory:
 * it is restarted with twice the heap, up to 1 GiB, and resumes from the databases like after any crash.
 */
const WORKER_HEAP_MB = 24;
const WORKER_HEAP_MAX_MB = 1024;

/**
 * Whether the delivery worker has anything to do from the start: a key with advanced webhooks or the basic
 * service on, or outbox events not yet handed over (a delivery still due in webhooks.db has its key's webhooks on,
 * or was cut off by turning them off).
 */
function webhooksInUse(db: Db): boolean {
  const row = db.get<{ n: number }>(
    sql`SELECT (EXISTS (SELECT 1 FROM webhook_configs WHERE is_enabled = 1) OR EXISTS (SELECT 1 FROM api_keys WHERE json_extract(settings, '$.useWebhookService') = 1) OR EXISTS (SELECT 1 FROM webhook_events WHERE dispatched_at IS NULL)) AS n`,
  );
  return row?.n === 1;
}


/**
 * The main thread's side of webhook delivery. Requests write events to the outbox in their own transaction; the
 * delivery worker (worker.ts) fans them out, sends them and records attempts in its own `webhooks.db`, so a
 * request never waits on delivery work or its writes. This side applies the few writes the worker asks for in
 * `hearth.db` (this thread stays its only writer), resolves debounced events (their payload is the state when
 * they fall due, read in the same transaction that releases them), and passes operations' commands to the worker.
 */
export function createWebhookDispatcher(
  app: { db: Db; log: Logger; config: Config; version: string },
  options: { debounced?: Record<string, DebouncedResolver> } = {},
): WebhookDispatcher {
  const P = <T>(name: string) => sql.placeholder(name) as unknown as T;
  const pendingDebounced = and(isNull(webhookEvents.dispatchedAt), isNotNull(webhookEvents.dedupeKey));
  const q = {
    dispatched: app.db.update(webhookEvents).set({ dispatchedAt: P('at') }).where(eq(webhookEvents.id, P<string>('id'))).prepare(),
    dueDebounced: app.db.select().from(webhookEvents).where(and(pendingDebounced, lte(webhookEvents.availableAt, P<number>('now')))).orderBy(asc(webhookEvents.availableAt)).limit(100).prepare(),
    nextDebounced: app.db.select({ at: webhookEvents.availableAt }).from(webhookEvents).where(pendingDebounced).orderBy(asc(webhookEvents.availableAt)).limit(1).prepare(),
  };
  const data: WorkerData = {
    dataDir: app.config.dataDir,
    databaseFile: DATABASE_FILE,
    version: app.version,
    settings: {
      retryScheduleMs: app.config.webhooks.retryScheduleMs,
      jitter: app.config.webhooks.jitter,
      timeoutMs: app.config.webhooks.timeoutMs,
      disableAfterMs: app.config.webhooks.disableAfterMs,
      concurrency: app.config.webhooks.concurrency,
      outboundPrivate: app.config.outboundPrivate,
    },
  };
  let worker: Worker | undefined;
  /** Between a worker's start and its exit (messages sent before it listens are queued for it). */
  let running = false;
  let heapMb = WORKER_HEAP_MB;
  let closed = false;
  let nextCommand = 0;
  const commands = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let onClosed: (() => void) | undefined;
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  function applyWrites(writes: MainWrite[]) {
    transaction(app.db, (tx) => {
      const e = webhookEndpoints;
      for (const w of writes) {
        if (w.kind === 'dispatched') q.dispatched.run({ id: w.eventId, at: w.at });
        else if (w.kind === 'failing') tx.update(e).set({ failingSince: w.since }).where(and(eq(e.id, w.endpointId), isNull(e.failingSince))).run();
        else if (w.kind === 'recovered') tx.update(e).set({ failingSince: null }).where(and(eq(e.id, w.endpointId), isNotNull(e.failingSince))).run();
        else if (w.kind === 'disable') tx.update(e).set({ disabled: true, disabledReason: w.reason, updatedAt: w.at }).where(eq(e.id, w.endpointId)).run();
        else {
          emitEvent(tx, {
            apiKeyId: w.apiKeyId,
            type: 'message.attempt.exhausted',
            actionType: 'attemptExhausted',
            source: 'platform',
            data: { messageId: w.messageId, eventType: w.eventType, endpointId: w.endpointId, lastAttempt: { id: w.attemptId, timestamp: new Date(w.timestamp).toISOString(), responseStatusCode: w.statusCode } },
          });
        }
      }
    });
  }

  function onMessage(message: FromWorker) {
    switch (message.type) {
      case 'write': {
        let error: string | undefined;
        try {
          applyWrites(message.writes);
        } catch (e) {
          error = e instanceof Error ? e.message : String(e);
          app.log.error('webhook state not written', { error });
        }
        worker?.postMessage({ type: 'written', id: message.id, ...(error === undefined ? {} : { error }) } satisfies ToWorker);
        return;
      }
      case 'reply': {
        const pending = commands.get(message.id);
        commands.delete(message.id);
        if (message.error === undefined) pending?.resolve(message.result);
        else pending?.reject(new Error(`webhook delivery worker: ${message.error}`));
        return;
      }
      case 'log':
        app.log[message.level](message.message, message.fields);
        return;
      case 'ready':
        // The worker's checkpointer runs: the request thread's own checkpoint becomes the rarer backstop.
        setCheckpointerRunning(connectionOf(app.db), true);
        markReady();
        return;
      case 'closed':
        onClosed?.();
        return;
    }
  }

  function start(): Worker {
    const started = new Worker(WORKER_ENTRY, { workerData: data, resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 4 } });
    worker = started;
    running = true;
    // The server's lifetime is the HTTP server's; the worker must not keep a stopping process alive.
    started.unref();
    started.on('message', onMessage);
    started.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY' && heapMb < WORKER_HEAP_MAX_MB) {
        heapMb = Math.min(heapMb * 2, WORKER_HEAP_MAX_MB);
        app.log.warn('webhook delivery worker ran out of memory; restarting it with a larger heap', { heapMb });
        return;
      }
      app.log.error('webhook delivery worker failed', { error: error.message });
    });
    started.on('exit', (code) => {
      running = false;
      setCheckpointerRunning(connectionOf(app.db), false);
      for (const pending of commands.values()) pending.reject(new ApiError('UNAVAILABLE', 'Webhook delivery stopped before answering; try again in a few seconds.'));
      commands.clear();
      if (closed) {
        onClosed?.();
        return;
      }
      // Everything it was doing is in the two databases: a new worker resumes from there.
      app.log.error('webhook delivery worker exited; restarting it', { code });
      setTimeout(() => {
        if (!closed) start();
      }, 1000).unref();
    });
    return started;
  }

  /**
   * The worker, started on first need: a server whose keys use no webhooks runs no delivery thread (about 10 MB of
   * a fresh server's memory); until one runs, this thread checkpoints hearth.db itself.
   */
  const workerNow = () => worker ?? start();

  let wakePending = false;
  function wake() {
    if (wakePending || closed) return;
    wakePending = true;
    // After the current turn: the request's answer goes first, and a burst of events sends one message.
    setImmediate(() => {
      wakePending = false;
      if (!closed) workerNow().postMessage({ type: 'wake' } satisfies ToWorker);
    });
  }

  function send(command: Command): Promise<unknown> {
    if (closed) return Promise.reject(new ApiError('UNAVAILABLE', 'The server is stopping.'));
    if (worker !== undefined && !running) return Promise.reject(new ApiError('UNAVAILABLE', 'Webhook delivery is restarting; try again in a few seconds.'));
    const target = workerNow();
    return new Promise((resolve, reject) => {
      const id = nextCommand++;
      commands.set(id, { resolve, reject });
      target.postMessage({ type: 'command', id, command } satisfies ToWorker);
    });
  }

  // --- debounced events ---------------------------------------------------------------------------------------
  let debounceTimer: NodeJS.Timeout | undefined;
  let debounceScheduled = false;

  /** Turns the debounced events that fell due into ready ones (or postpones or drops them), in one transaction. */
  function resolveDebounced() {
    debounceScheduled = false;
    if (closed) return;
    let released = false;
    try {
      const now = Date.now();
      const due = q.dueDebounced.all({ now });
      if (due.length) {
        transaction(app.db, (tx) => {
          for (const row of due) released = release(tx, row, now) || released;
        });
      }
      if (released) wake();
      if (debounceTimer) clearTimeout(debounceTimer);
      debounceTimer = undefined;
      const next = due.length === 100 ? now : q.nextDebounced.get()?.at;
      if (typeof next === 'number') {
        debounceTimer = setTimeout(resolveDebounced, Math.min(Math.max(0, next - Date.now()), 2 ** 31 - 1));
        debounceTimer.unref();
      }
    } catch (error) {
      app.log.error('debounced webhook events not resolved', { error: error instanceof Error ? error.message : String(error) });
      debounceTimer = setTimeout(resolveDebounced, 1000);
      debounceTimer.unref();
    }
  }

  function release(tx: Db, row: EventRow, now: number): boolean {
    const where = eq(webhookEvents.id, row.id);
    const resolver = options.debounced?.[row.type];
    const resolved = resolver ? resolver(row) : null;
    if (resolved && 'postponeUntil' in resolved) {
      tx.update(webhookEvents).set({ availableAt: resolved.postponeUntil }).where(where).run();
      return false;
    }
    const who = resolved ? subscribers(tx, row.apiKeyId, resolved.event.type, resolved.event.basic !== undefined, resolved.event) : { advanced: false, basic: false };
    if (!resolved || (!who.advanced && !who.basic)) {
      tx.update(webhookEvents).set({ dispatchedAt: now }).where(where).run();
      return false;
    }
    // Released: a ready event like any other (no dedupe key), so the next change opens a new pending one.
    tx.update(webhookEvents)
      .set({ payload: who.advanced ? advancedPayload(resolved.event) : null, basicPayload: who.basic ? basicPayload(resolved.event) : null, dedupeKey: null, availableAt: now })
      .where(where)
      .run();
    if (resolved.followUpAt !== undefined) {
      tx.insert(webhookEvents)
        .values({ id: newMessageId(), apiKeyId: row.apiKeyId, type: row.type as WebhookEventType, organizationId: row.organizationId, documentId: row.documentId, payload: null, basicPayload: null, dedupeKey: row.dedupeKey, availableAt: resolved.followUpAt, createdAt: now })
        .run();
    }
    return true;
  }

  function scheduleDebounced() {
    if (debounceScheduled || closed) return;
    debounceScheduled = true;
    setImmediate(resolveDebounced);
  }

  if (webhooksInUse(app.db)) start();
  const unsubscribe = onOutboxWrite((kind) => (kind === 'debounced' ? scheduleDebounced() : wake()));
  scheduleDebounced();

  return {
    wake,
    ready: () => {
      workerNow();
      return ready;
    },
    async cancelTarget(apiKeyId, target) {
      await send({ type: 'cancelTarget', apiKeyId, target });
    },
    async replay(apiKeyId, messageId, targets) {
      await send({ type: 'replay', apiKeyId, messageId, targets });
    },
    async recover(apiKeyId, target, since) {
      return (await send({ type: 'recover', apiKeyId, target, since })) as number;
    },
    async close() {
      if (closed) return;
      closed = true;
      unsubscribe();
      if (debounceTimer) clearTimeout(debounceTimer);
      const current = worker;
      if (current === undefined) return;
      // The worker records what finished and hands over its last writes (answered by onMessage meanwhile).
      const stopped = new Promise<void>((resolve) => (onClosed = resolve));
      current.postMessage({ type: 'close' } satisfies ToWorker);
      const timeout = setTimeout(() => void current.terminate(), app.config.webhooks.timeoutMs + 5_000);
      await stopped;
      clearTimeout(timeout);
      await current.terminate();
    },
  };
}
