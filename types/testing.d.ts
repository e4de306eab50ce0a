// The types of `hearth/testing` (package.json "exports"), written by hand so that a project's TypeScript reads these
// few declarations and not Hearth's sources; server/testing/index.ts is checked against them by `npm run typecheck`.

/** The default workspace's credentials (as in DATA_DIR/credentials.json and the HEARTH_* variables of `hearth exec`). */
export interface HearthCredentials {
  workspaceId: string;
  workspaceAuthToken: string;
  apiKey: string;
  authToken: string;
}

export interface StartHearthOptions {
  /** Port on 127.0.0.1; default 0: a free one. */
  port?: number;
  /** The data dir; default: a new temporary directory, removed by stop() (unless `keep`). */
  dataDir?: string;
  /** PostgreSQL instead of the data dir's SQLite (postgres://…); default: DATABASE_URL is not read. */
  databaseUrl?: string;
  /** A fixtures file (README, "Fixtures") loaded before Hearth starts; its keys and tokens are the file's own. */
  fixtures?: string;
  /** Keep a temporary data dir after stop() (its path is `dataDir`). */
  keep?: boolean;
  /** Hearth's log level; default `warn`. */
  logLevel?: 'silent' | 'error' | 'warn' | 'info' | 'debug';
  /** The header brand (x-<brand>-api-key …); default `svc`. */
  headerBrand?: string;
}

export interface HearthClock {
  /** Hearth's now, in ms since the epoch. */
  now(): number;
  /** Moves Hearth's time forward by `ms`; resolves to the new now. */
  advance(ms: number): Promise<number>;
  /** Sets Hearth's time to `ms` since the epoch (not before the real time); resolves to it. */
  set(ms: number): Promise<number>;
  /** Back to the real time. */
  reset(): Promise<void>;
}

export interface CapturedMail {
  id: string;
  kind: string;
  to: string;
  from: { name: string; address: string };
  replyTo: string | null;
  subject: string;
  text: string;
  html: string;
  workspaceId?: string | null;
  apiKeyId?: string | null;
  /** `kept` without SMTP_URL; `queued`, `sent` or `failed` when relayed. */
  status: string;
  attempts: number;
  lastError: string | null;
  createdAt: number;
  sentAt: number | null;
}

export interface CapturedWebhook {
  apiKeyId: string;
  eventId: string;
  target: string;
  url: string;
  sentAt: number;
  requestHeaders: Record<string, string>;
  body: string;
  statusCode: number | null;
  response: string;
}

export interface HearthOutbox {
  /** Mail written since the last clear, oldest first. */
  mail(filter?: { apiKeyId?: string; workspaceId?: string }): Promise<CapturedMail[]>;
  /** Webhook requests sent since the last clear, oldest first. */
  webhooks(filter?: { apiKeyId?: string }): CapturedWebhook[];
  clear(filter?: { apiKeyId?: string }): Promise<void>;
}

export interface ResetResult {
  workspaces: number;
  apiKeys: number;
  removed: Record<string, number>;
  /** Whether the fixtures Hearth was started with were loaded again (the whole file, or the reset workspace's part). */
  fixturesReloaded: boolean;
}

export interface TestHearth {
  /** http://127.0.0.1:PORT: POST ${url}/v2/… */
  url: string;
  /** ws://127.0.0.1:PORT/yjs: y-websocket's serverUrl; the room is `${organizationId}/${documentId}/${editorId}`. */
  wsUrl: string;
  credentials: HearthCredentials;
  dataDir: string;
  /**
   * Deletes all data (or one workspace's), keeping workspaces, API keys and tokens; a whole reset also empties the
   * outbox and sets the clock back to the real time.
   */
  reset(options?: { workspaceId?: string }): Promise<ResetResult>;
  /** Stops the server and removes a temporary data dir (unless `keep`). */
  stop(): Promise<void>;
  clock: HearthClock;
  outbox: HearthOutbox;
}

/** Starts Hearth in this process, in testing mode, on a free 127.0.0.1 port with a temporary data dir. */
export declare function startHearth(options?: StartHearthOptions): Promise<TestHearth>;
