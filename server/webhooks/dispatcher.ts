import { clock, currentTime } from '../clock.ts';
import { Worker } from 'node:worker_threads';
import type { Config } from '../config.ts';
import type { Storage } from '../db/repos/index.ts';
import type { DeliveryStateWrite, WebhookEventRow } from '../db/repos/webhooks.ts';
import type { TenantScope } from '../db/scope.ts';
import { ApiError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { DATABASE_FILE } from '../data-files.ts';
import { masterKeyPath } from '../security/secrets.ts';
import { WORKER_ENTRY } from '../paths.ts';
import { emitEvent, onOutboxWrite, releaseDebouncedEvent, type DomainEvent } from './outbox.ts';
import type { Command, FromWorker, MainWrite, SentWebhook, ToWorker, WorkerData } from './protocol.ts';

/**
 * A debounced event's resolution when it falls due: wait longer, send this (with `followUpAt` when the burst is
 * still going on and was cut by the maximum wait: a new pending event then covers the changes still to come), or
 * drop it (its subject is gone).
 */
export type Debounced = { postponeUntil: number } | { event: DomainEvent; followUpAt?: number } | null;
/** Resolves a debounced event of the key `scope` is of, reading what it needs through `storage` (in the dispatcher's unit of work). */
export type DebouncedResolver = (row: WebhookEventRow, scope: TenantScope, storage: Storage) => Promise<Debounced>;

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
  /** Stops delivering; requests in flight get `graceMs` (default 0) to finish, then are cut and go out after restart. */
  close(graceMs?: number): Promise<void>;
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

/** Tries of a debounced event's resolution that failed for a reason other than its content, before it is quarantined. */
const QUARANTINE_AFTER = 5;

/**
 * The main thread's side of webhook delivery. Requests write events to the outbox in their own transaction; the
 * delivery worker (worker.ts) fans them out, sends them and records attempts in its own `webhooks.db`, so a
 * request never waits on delivery work or its writes. This side applies the few writes the worker asks for in
 * `hearth.db` (this thread stays its only writer), resolves debounced events (their payload is the state when
 * they fall due, read in the same transaction that releases them), and passes operations' commands to the worker.
 */
export function createWebhookDispatcher(
  app: { storage: Storage; log: Logger; config: Config; version: string },
  options: { debounced?: Record<string, DebouncedResolver>; onSent?: (sent: SentWebhook) => void } = {},
): WebhookDispatcher {
  const { storage } = app;
  const data: WorkerData = {
    dataDir: app.config.dataDir,
    masterKeyFile: masterKeyPath(app.config),
    databaseFile: DATABASE_FILE,
    databaseUrl: app.config.databaseUrl,
    version: app.version,
    clockOffsetMs: clock.offsetMs(),
    capture: options.onSent !== undefined,
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

  /** The worker's writes to hearth.db, in one unit of work (the exhausted events go to the outbox in it). */
  async function applyWrites(writes: MainWrite[]) {
    const state: DeliveryStateWrite[] = [];
    const exhausted: Array<Extract<MainWrite, { kind: 'exhausted' }>> = [];
    for (const w of writes) {
      if (w.kind === 'exhausted') exhausted.push(w);
      else state.push(w);
    }
    await storage.transaction(async () => {
      if (state.length) await storage.webhooks.applyDeliveryState(state);
      if (exhausted.length === 0) return;
      const scopes = await storage.webhooks.scopesOf(exhausted.map((w) => w.apiKeyId));
      for (const w of exhausted) {
        const scope = scopes.get(w.apiKeyId);
        if (!scope) continue;
        await emitEvent(app, scope, {
          type: 'message.attempt.exhausted',
          actionType: 'attemptExhausted',
          source: 'platform',
          data: {
            messageId: w.messageId,
            eventType: w.eventType,
            endpointId: w.endpointId,
            lastAttempt: { id: w.attemptId, timestamp: new Date(w.timestamp).toISOString(), responseStatusCode: w.statusCode },
          },
        });
      }
    });
  }

  function onMessage(message: FromWorker) {
    switch (message.type) {
      case 'write': {
        const from = worker;
        applyWrites(message.writes).then(
          () => from?.postMessage({ type: 'written', id: message.id } satisfies ToWorker),
          (e: unknown) => {
            const error = e instanceof Error ? e.message : String(e);
            app.log.error('webhook state not written', { error });
            from?.postMessage({ type: 'written', id: message.id, error } satisfies ToWorker);
          },
        );
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
        storage.webhooks.workerCheckpoints(true);
        markReady();
        return;
      case 'sent':
        options.onSent?.(message.delivery);
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
      storage.webhooks.workerCheckpoints(false);
      for (const pending of commands.values())
        pending.reject(new ApiError('UNAVAILABLE', 'Webhook delivery stopped before answering; try again in a few seconds.'));
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

  /** A pass is running: a pass asked for meanwhile runs after it (two at once would release an event twice). */
  let resolving = false;
  let resolveAgain = false;

  /**
   * Failed resolutions of a pending debounced event, by event id (this process's count: a restart starts it again,
   * bounded all the same). Cleared when it grows past any real backlog.
   */
  const failures = new Map<string, number>();

  /**
   * One debounced event whose resolution failed. A failure of its content (an ApiError, such as a document too deep
   * to render, or a RangeError from a recursion) fails the same way each time: the event is quarantined at once,
   * closed with its reason logged. Any other failure (the database) is tried again later, 1 s doubling, and
   * quarantined after QUARANTINE_AFTER tries. Either way the other events go on, and none is tried every second for ever.
   */
  async function failed(row: WebhookEventRow, error: unknown, now: number) {
    const reason = error instanceof Error ? error.message : String(error);
    const attempts = (failures.get(row.id) ?? 0) + 1;
    const poisoned = error instanceof ApiError || error instanceof RangeError || attempts >= QUARANTINE_AFTER;
    const fields = {
      eventId: row.id,
      apiKeyId: row.apiKeyId,
      type: row.type,
      organizationId: row.organizationId,
      documentId: row.documentId,
      attempts,
      reason,
    };
    // a write that fails here fails the pass, which is tried again (resolveDebounced's catch)
    if (poisoned) {
      await storage.webhooks.dropDebounced(row.id, now);
      failures.delete(row.id);
      app.log.error('debounced webhook event quarantined: its resolution failed; it is closed without a delivery', fields);
    } else {
      if (failures.size >= 10_000) failures.clear();
      failures.set(row.id, attempts);
      await storage.webhooks.postponeDebounced(row.id, now + 1000 * 2 ** (attempts - 1));
      app.log.warn('debounced webhook event not resolved; trying it again later', fields);
    }
  }

  /**
   * Turns the debounced events that fell due into ready ones (or postpones or drops them), each in a unit of work of
   * its own: one event that cannot be resolved (a poisoned document) is quarantined alone and holds up no other.
   */
  async function resolveDebounced() {
    debounceScheduled = false;
    if (closed) return;
    if (resolving) {
      resolveAgain = true;
      return;
    }
    resolving = true;
    let released = false;
    try {
      const now = currentTime();
      const due = await storage.webhooks.dueDebounced(now);
      for (const { row, scope } of due) {
        if (closed) return;
        try {
          released = (await storage.transaction(() => release(row, scope, now))) || released;
          failures.delete(row.id);
        } catch (error) {
          await failed(row, error, now);
        }
      }
      if (released) wake();
      if (debounceTimer) clearTimeout(debounceTimer);
      debounceTimer = undefined;
      const next = due.length === 100 ? now : await storage.webhooks.nextDebounced();
      if (typeof next === 'number' && !closed) {
        debounceTimer = setTimeout(() => void resolveDebounced(), Math.min(Math.max(0, next - currentTime()), 2 ** 31 - 1));
        debounceTimer.unref();
      }
    } catch (error) {
      app.log.error('debounced webhook events not resolved', { error: error instanceof Error ? error.message : String(error) });
      if (!closed) {
        debounceTimer = setTimeout(() => void resolveDebounced(), 1000);
        debounceTimer.unref();
      }
    } finally {
      resolving = false;
      if (resolveAgain) {
        resolveAgain = false;
        scheduleDebounced();
      }
    }
  }

  async function release(row: WebhookEventRow, scope: TenantScope | undefined, now: number): Promise<boolean> {
    const resolver = options.debounced?.[row.type];
    const resolved = resolver && scope ? await resolver(row, scope, storage) : null;
    if (resolved && 'postponeUntil' in resolved) {
      await storage.webhooks.postponeDebounced(row.id, resolved.postponeUntil);
      return false;
    }
    if (!resolved || !scope) {
      await storage.webhooks.dropDebounced(row.id, now);
      return false;
    }
    // Released: a ready event like any other (no dedupe key), so the next change opens a new pending one.
    return releaseDebouncedEvent(app, scope, row, resolved.event, now, resolved.followUpAt);
  }

  function scheduleDebounced() {
    if (debounceScheduled || closed) return;
    debounceScheduled = true;
    setImmediate(() => void resolveDebounced());
  }

  void storage.webhooks.inUse().then(
    (used) => {
      if (used && !closed) workerNow();
    },
    (error: unknown) => app.log.error('webhook delivery not started', { error: error instanceof Error ? error.message : String(error) }),
  );
  const unsubscribeOutbox = onOutboxWrite((kind) => (kind === 'debounced' ? scheduleDebounced() : wake()));
  // Hearth's clock moved (testing mode): debounced events and deliveries that became due go now
  const unsubscribeClock = clock.onChange((offsetMs) => {
    data.clockOffsetMs = offsetMs;
    if (closed) return;
    scheduleDebounced();
    if (running) worker?.postMessage({ type: 'clock', offsetMs } satisfies ToWorker);
  });
  const unsubscribe = () => {
    unsubscribeOutbox();
    unsubscribeClock();
  };
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
    async close(graceMs = 0) {
      if (closed) return;
      closed = true;
      unsubscribe();
      if (debounceTimer) clearTimeout(debounceTimer);
      const current = worker;
      if (current === undefined) return;
      // The worker records what finished and hands over its last writes (answered by onMessage meanwhile).
      const stopped = new Promise<void>((resolve) => (onClosed = resolve));
      current.postMessage({ type: 'close', graceMs } satisfies ToWorker);
      const timeout = setTimeout(() => void current.terminate(), graceMs + app.config.webhooks.timeoutMs + 5_000);
      await stopped;
      clearTimeout(timeout);
      await current.terminate();
    },
  };
}
