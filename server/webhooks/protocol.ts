/**
 * Messages between the main thread (the HTTP server, the only writer of `hearth.db`) and the delivery worker
 * (the only writer of `webhooks.db`). The worker reads `hearth.db` for events, endpoints and configuration; what it
 * must change there (dispatched marks, endpoint health, `message.attempt.exhausted` events) it asks the main thread
 * to write, in batches, and waits for the acknowledgement.
 */

/** How much of a receiver's answer's headers an attempt keeps: the first 50, and 4 KiB of names and values in all. */
export const ATTEMPT_RESPONSE_HEADERS = { count: 50, bytes: 4096 } as const;

/** A change to `hearth.db` that the worker asks for. */
export type MainWrite =
  | { kind: 'dispatched'; eventId: string; at: number }
  | { kind: 'failing'; endpointId: string; since: number }
  | { kind: 'recovered'; endpointId: string }
  | { kind: 'disable'; endpointId: string; reason: string; at: number }
  | {
      kind: 'exhausted';
      apiKeyId: string;
      messageId: string;
      eventType: string;
      endpointId: string;
      attemptId: string;
      timestamp: number;
      statusCode: number | null;
    };

export type Command =
  | { type: 'cancelTarget'; apiKeyId: string; target: string }
  | { type: 'replay'; apiKeyId: string; messageId: string; targets: string[] }
  | { type: 'recover'; apiKeyId: string; target: string; since: number };

export type ToWorker =
  | { type: 'wake' }
  | { type: 'command'; id: number; command: Command }
  | { type: 'written'; id: number; error?: string }
  /** Hearth's clock moved (testing mode: server/clock.ts): the worker takes the offset and recomputes what is due. */
  | { type: 'clock'; offsetMs: number }
  /** Stop: requests in flight get `graceMs` to finish before they are cut. */
  | { type: 'close'; graceMs: number };

export type FromWorker =
  | { type: 'write'; id: number; writes: MainWrite[] }
  | { type: 'reply'; id: number; result?: unknown; error?: string }
  | { type: 'log'; level: 'error' | 'warn' | 'info' | 'debug'; message: string; fields?: Record<string, unknown> }
  | { type: 'ready' }
  /** An attempt that went out, in testing mode only (WorkerData.capture): the testing outbox records it. */
  | { type: 'sent'; delivery: SentWebhook }
  | { type: 'closed' };

/** A webhook request as it went out and what came back (testing mode's outbox: server/testing/state.ts). */
export interface SentWebhook {
  apiKeyId: string;
  eventId: string;
  /** The endpoint id, or `basic:…` for the basic service's URLs. */
  target: string;
  url: string;
  /** When the attempt started, in Hearth's time (server/clock.ts), ms since the epoch. */
  sentAt: number;
  requestHeaders: Record<string, string>;
  body: string;
  /** The receiver's status, or null when no HTTP answer came (refused, timed out). */
  statusCode: number | null;
  /** An excerpt of the answer, or why none came. */
  response: string;
}

export interface WorkerData {
  dataDir: string;
  /** The master key's file (DATA_DIR/master.key or MASTER_KEY_FILE), already checked against hearth.db by the server. */
  masterKeyFile: string;
  databaseFile: string;
  /** PostgreSQL's URL when the server runs on it (DATABASE_URL): the delivery state is in its tables then. */
  databaseUrl?: string | undefined;
  version: string;
  /** Hearth's clock offset at the worker's start (server/clock.ts); later changes come as `clock` messages. */
  clockOffsetMs: number;
  /** Testing mode: each attempt is also posted back as a `sent` message. */
  capture: boolean;
  settings: {
    retryScheduleMs: number[];
    jitter: number;
    timeoutMs: number;
    disableAfterMs: number;
    concurrency: number;
    /** OUTBOUND_PRIVATE: whether deliveries may go to loopback, private and link-local addresses. */
    outboundPrivate: 'allow' | 'deny';
  };
}
