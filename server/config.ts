import { resolve } from 'node:path';
import { z } from 'zod';

export const LOG_LEVELS = ['silent', 'error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** A fixed-window limit: at most `max` hits per `windowMs` for one key. */
export const rateLimitSchema = z.object({
  max: z.number().int().positive(),
  windowMs: z.number().int().positive(),
});
export type RateLimit = z.infer<typeof rateLimitSchema>;

export const configSchema = z.object({
  port: z.number().int().min(0).max(65535),
  host: z.string().min(1),
  dataDir: z.string().min(1),
  /**
   * The master key's file when it is not DATA_DIR/master.key: the one key every instance of a cluster shares (a
   * mounted secret), never stored in the database. Hearth reads it and never creates it.
   */
  masterKeyFile: z.string().min(1).optional(),
  /**
   * `postgres://…`: PostgreSQL as the system of record instead of the embedded SQLite (DESIGN §1; db/pg/), and
   * `REDIS_URL` between the instances sharing it (cluster/bus.ts; docs/cluster.md). Without REDIS_URL a server holds
   * its database alone; REDIS_URL without DATABASE_URL is refused (openApp).
   */
  databaseUrl: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a PostgreSQL URL: postgres://user:password@host:port/database')
    .optional(),
  redisUrl: z.string().min(1).optional(),
  headerBrand: z.string().regex(/^[a-z0-9-]+$/, 'HEADER_BRAND may contain only a-z, 0-9 and -'),
  logLevel: z.enum(LOG_LEVELS),
  /** `text`: `time LEVEL message key=value…` lines; `json`: one JSON object a line, for log collectors. */
  logFormat: z.enum(LOG_FORMATS),
  /** Largest accepted request body in bytes. */
  maxBodyBytes: z.number().int().positive(),
  /**
   * Largest body read before its caller is identified (public operations, the admin sign-in), and the size past
   * which an operation's credentials (headers) are verified before its body is read at all (issue 42): a client
   * nobody knows cannot make the server read or parse megabytes.
   */
  preAuthBodyBytes: z.number().int().positive(),
  /** Limits on connections (http/connections.ts); docs/decisions.md has the reasons for the defaults. */
  connections: z.object({
    /** A connection that sends nothing at all for this long is closed (node closes none by itself). */
    firstByteTimeoutMs: z.number().int().positive(),
    /** A request's headers must be complete within this long of its first byte (node's `headersTimeout`). */
    headersTimeoutMs: z.number().int().positive(),
    /** A whole request, body included, must arrive within this long (node's `requestTimeout`). */
    requestTimeoutMs: z.number().int().positive(),
    /** Open connections (websockets included) from one client address; more are closed at once. */
    maxPerAddress: z.number().int().positive(),
    /** Open websockets from one client address; more are refused at the upgrade (503). */
    maxWebsocketsPerAddress: z.number().int().positive(),
  }),
  /** Memory for answers of read operations kept while the database is unchanged (http/response-cache.ts); 0 turns it off. */
  responseCacheMb: z.number().min(0).max(4096),
  /**
   * Stored updates of each collaborative document kept as history through compaction (the admin UI's document
   * history, diff and restore; server/crdt/store.ts); 0 keeps none.
   */
  crdtHistoryUpdates: z.number().int().min(0).max(100_000),
  /** Outgoing mail: an SMTP URL (smtp://user:pass@host:port); mail is always kept in the local outbox too. */
  smtpUrl: z.string().optional(),
  mailFrom: z.string(),
  /**
   * The base URL of the links Hearth hands out (login links, recording attachments), when clients reach it at
   * another address than the one it listens on (HOST=0.0.0.0 on a LAN, a reverse proxy); unset: the listen address.
   */
  publicUrl: z
    .string()
    .refine(isPublicUrl, 'must be an http(s) URL without credentials, query or fragment, like http://hearth.lan:8787')
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
  /** Extra hosts allowed as login-link continueUrl besides the server's own host and localhost. */
  loginLinkAllowedHosts: z.array(z.string()),
  /**
   * Host names (the `Host` header) Hearth answers to besides loopback names, IP literals and PUBLIC_URL's host
   * (http/host-check.ts): `hearth.lan`, `.example.com` for a domain and its subdomains, `*` for any (behind a
   * proxy that checks it). Anything else is refused, so that a page whose name rebinds to this machine cannot
   * drive it (DNS rebinding).
   */
  allowedHosts: z.array(z.string().min(1)),
  /**
   * Webhook endpoints and AI base URLs on loopback, private or link-local addresses: `allow` (local development,
   * the default) or `deny` (a server other people's workspaces use: Hearth must not become their way into the
   * machine's or the network's internal services). Checked on the address actually connected to.
   */
  outboundPrivate: z.enum(['allow', 'deny']),
  /** Owner of the default workspace created at first start. */
  defaultOwnerEmail: z.string(),
  rateLimits: z.object({
    workspaceCreatePerIp: rateLimitSchema,
    workspaceCreatePerEmail: rateLimitSchema,
    loginLinkPerEmail: rateLimitSchema,
    loginLinkPerIp: rateLimitSchema,
    workspaceOperations: rateLimitSchema,
    /** E-mail recipients an API key's calls may name in a window (server/mail/limits.ts). */
    mailRecipientsPerKey: rateLimitSchema,
  }),
  /** E-mail recipients one call may name (notifications/add, comment mentions); past it the call is refused. */
  mailRecipientsPerCall: z.number().int().positive(),
  /** Print the startup banner (the CLI does; tests and Electron do not). */
  banner: z.boolean(),
  /**
   * Testing mode (`serve --testing`, `hearth exec`, `startHearth`): the /testing/ routes (reset, clock, captured
   * outbound traffic) answer; off, they refuse (server/testing/routes.ts).
   */
  testing: z.boolean(),
  /**
   * The admin UI's request monitor (admin/monitor.ts): MB kept across all workspaces (MONITOR_MB) and per workspace,
   * how long a workspace's bodies outlive its last watcher, and how old a kept call may get.
   */
  monitor: z.object({
    totalMb: z.number().positive().max(4096),
    workspaceMb: z.number().positive().max(4096),
    closeGraceMs: z.number().int().nonnegative(),
    maxAgeMs: z.number().int().positive(),
  }),
  /** A Yjs document with no connection and no activity for this long is stored and unloaded from memory. */
  crdtIdleMs: z.number().int().positive(),
  /** Milliseconds that in-flight requests get to finish on shutdown before connections are cut. */
  shutdownGraceMs: z.number().int().nonnegative(),
  /** How long a call to an AI provider (ask-AI, agent runs) may take before it fails with a timeout. */
  aiTimeoutMs: z.number().int().positive(),
  /**
   * The permission provider mode (services/permission-provider.ts): how long a provider may take to answer before
   * the access it was asked about is denied (PERMISSION_PROVIDER_TIMEOUT_MS), and how long a decision without its own
   * `expiresAt` is kept (PERMISSION_PROVIDER_CACHE_MS).
   */
  permissionProviderTimeoutMs: z.number().int().positive().max(120_000),
  permissionProviderCacheMs: z.number().int().nonnegative(),
  webhooks: z.object({
    /** Delay before each attempt, the first included (reference.md 4.5); tests shrink it to milliseconds. */
    retryScheduleMs: z.array(z.number().int().nonnegative()).min(1).max(20),
    /** Random spread of each retry delay, as a fraction of it (0.1 = plus or minus 10 %). */
    jitter: z.number().min(0).max(1),
    timeoutMs: z.number().int().positive(),
    /** An endpoint failing without a single success for this long is disabled. */
    disableAfterMs: z.number().int().positive(),
    /** CRDT changes are reported once per document after this much quiet... */
    crdtDebounceMs: z.number().int().nonnegative(),
    /** ...or after this long under continuous editing. */
    crdtMaxWaitMs: z.number().int().positive(),
    /** After a secret rotation the previous secret also signs for this long. */
    rotationOverlapMs: z.number().int().nonnegative(),
    /** Deliveries in flight at once. */
    concurrency: z.number().int().positive().max(256),
  }),
  /**
   * Leases on queued work (docs/storage.md), and how often an instance of a cluster looks for leases that ran out.
   * Not settings an operator needs (no environment variable): tests shorten them so as not to wait minutes.
   */
  leases: z.object({
    /**
     * A document migration's or user-data erasure's: longer than any job runs (seconds); a job that outlives it is
     * taken over, and its holder's completion is then refused (each job's unit of work may run again).
     */
    jobMs: z.number().int().positive(),
    /** A mail being relayed: longer than an SMTP exchange may take (a relay that outlives it may send it twice). */
    mailMs: z.number().int().positive(),
    /** An agent execution's, renewed every third of it while it runs: past it, its instance is gone. */
    agentMs: z.number().int().positive(),
    /** In a cluster: the mean time between two looks for expired leases of every kind (each look jittered). */
    lookMs: z.number().int().positive(),
  }),
});
export type Config = z.infer<typeof configSchema>;

function isPublicUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      !url.username &&
      !url.password &&
      !url.search &&
      !url.hash &&
      !text.includes('#') &&
      !text.includes('?')
    );
  } catch {
    return false;
  }
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export function defaultConfig(): Config {
  return {
    port: 8787,
    host: '127.0.0.1',
    dataDir: resolve('data'),
    headerBrand: 'svc',
    logLevel: 'info',
    logFormat: 'text',
    maxBodyBytes: 10 * 1024 * 1024,
    preAuthBodyBytes: 64 * 1024,
    connections: {
      firstByteTimeoutMs: 10_000,
      headersTimeoutMs: 15_000,
      requestTimeoutMs: 60_000,
      maxPerAddress: 4096,
      maxWebsocketsPerAddress: 4096,
    },
    responseCacheMb: 16,
    crdtHistoryUpdates: 1000,
    mailFrom: 'Hearth <no-reply@hearth.local>',
    loginLinkAllowedHosts: [],
    allowedHosts: [],
    outboundPrivate: 'allow',
    defaultOwnerEmail: 'owner@hearth.local',
    rateLimits: {
      workspaceCreatePerIp: { max: 20, windowMs: MINUTE },
      workspaceCreatePerEmail: { max: 5, windowMs: MINUTE },
      loginLinkPerEmail: { max: 5, windowMs: 10 * MINUTE },
      loginLinkPerIp: { max: 30, windowMs: 10 * MINUTE },
      workspaceOperations: { max: 600, windowMs: MINUTE },
      mailRecipientsPerKey: { max: 500, windowMs: MINUTE },
    },
    mailRecipientsPerCall: 100,
    banner: false,
    testing: false,
    monitor: { totalMb: 64, workspaceMb: 8, closeGraceMs: MINUTE, maxAgeMs: HOUR },
    crdtIdleMs: 30_000,
    shutdownGraceMs: 5_000,
    aiTimeoutMs: 60_000,
    permissionProviderTimeoutMs: 5_000,
    permissionProviderCacheMs: 60_000,
    webhooks: {
      retryScheduleMs: [0, 5_000, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR],
      jitter: 0.1,
      timeoutMs: 15_000,
      disableAfterMs: 5 * 24 * HOUR,
      crdtDebounceMs: 5_000,
      crdtMaxWaitMs: MINUTE,
      rotationOverlapMs: 24 * HOUR,
      concurrency: 16,
    },
    // the look: half the shortest lease, so that work an instance left behind waits at most about 1.5 leases
    leases: { jobMs: 5 * MINUTE, mailMs: 15 * MINUTE, agentMs: MINUTE, lookMs: 30_000 },
  };
}

export type ConfigOverrides = Partial<Omit<Config, 'rateLimits' | 'webhooks' | 'leases' | 'monitor' | 'connections'>> & {
  connections?: Partial<Config['connections']>;
  rateLimits?: Partial<Config['rateLimits']>;
  monitor?: Partial<Config['monitor']>;
  webhooks?: Partial<Config['webhooks']>;
  leases?: Partial<Config['leases']>;
};

/** Defaults, then overrides; validated so that a bad value fails at start with a clear message. */
export function resolveConfig(overrides: ConfigOverrides = {}): Config {
  const base = defaultConfig();
  const merged = {
    ...base,
    ...stripUndefined(overrides),
    connections: { ...base.connections, ...stripUndefined(overrides.connections ?? {}) },
    rateLimits: { ...base.rateLimits, ...stripUndefined(overrides.rateLimits ?? {}) },
    webhooks: { ...base.webhooks, ...stripUndefined(overrides.webhooks ?? {}) },
    leases: { ...base.leases, ...stripUndefined(overrides.leases ?? {}) },
    monitor: { ...base.monitor, ...stripUndefined(overrides.monitor ?? {}) },
  };
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Invalid configuration: ${issue?.path.join('.') || 'config'}: ${issue?.message}`);
  }
  const { masterKeyFile } = parsed.data;
  return { ...parsed.data, dataDir: resolve(parsed.data.dataDir), ...(masterKeyFile === undefined ? {} : { masterKeyFile: resolve(masterKeyFile) }) };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Reads the runtime contract's environment variables (DESIGN §1) and the CLI flags; flags win. */
export function configFromEnvAndArgs(
  env: NodeJS.ProcessEnv,
  args: { port?: string | undefined; host?: string | undefined; 'data-dir'?: string | undefined },
): ConfigOverrides {
  const port = args.port ?? env.PORT;
  const portNumber = port === undefined || port === '' ? undefined : Number(port);
  if (portNumber !== undefined && !Number.isInteger(portNumber)) throw new Error(`Invalid configuration: port: "${port}" is not a whole number`);
  const logLevel = env.LOG_LEVEL?.toLowerCase();
  const aiTimeout = env.AI_TIMEOUT_MS ? Number(env.AI_TIMEOUT_MS) : undefined;
  const mailPerCall = env.MAIL_RECIPIENTS_PER_CALL ? Number(env.MAIL_RECIPIENTS_PER_CALL) : undefined;
  const mailPerMinute = env.MAIL_RECIPIENTS_PER_MINUTE ? Number(env.MAIL_RECIPIENTS_PER_MINUTE) : undefined;
  const monitorMb = env.MONITOR_MB ? Number(env.MONITOR_MB) : undefined;
  const responseCacheMb = env.RESPONSE_CACHE_MB ? Number(env.RESPONSE_CACHE_MB) : undefined;
  const crdtHistoryUpdates = env.CRDT_HISTORY_UPDATES ? Number(env.CRDT_HISTORY_UPDATES) : undefined;
  const outboundPrivate = env.OUTBOUND_PRIVATE?.toLowerCase();
  if (outboundPrivate && outboundPrivate !== 'allow' && outboundPrivate !== 'deny')
    throw new Error('Invalid configuration: OUTBOUND_PRIVATE must be allow or deny');
  if (logLevel && !(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new Error(`Invalid configuration: LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const logFormat = env.LOG_FORMAT?.toLowerCase();
  if (logFormat && !(LOG_FORMATS as readonly string[]).includes(logFormat)) {
    throw new Error(`Invalid configuration: LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')}`);
  }
  return {
    port: portNumber,
    host: args.host ?? (env.HOST || undefined),
    dataDir: args['data-dir'] ?? (env.DATA_DIR || undefined),
    masterKeyFile: env.MASTER_KEY_FILE || undefined,
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    headerBrand: env.HEADER_BRAND || undefined,
    logLevel: (logLevel || undefined) as LogLevel | undefined,
    logFormat: (logFormat || undefined) as LogFormat | undefined,
    smtpUrl: env.SMTP_URL || undefined,
    aiTimeoutMs: aiTimeout,
    permissionProviderTimeoutMs: whole(env, 'PERMISSION_PROVIDER_TIMEOUT_MS'),
    permissionProviderCacheMs: whole(env, 'PERMISSION_PROVIDER_CACHE_MS'),
    mailRecipientsPerCall: mailPerCall,
    monitor: monitorMb === undefined ? undefined : { totalMb: monitorMb },
    rateLimits: mailPerMinute === undefined ? undefined : { mailRecipientsPerKey: { max: mailPerMinute, windowMs: 60_000 } },
    responseCacheMb,
    crdtHistoryUpdates,
    mailFrom: env.MAIL_FROM || undefined,
    publicUrl: env.PUBLIC_URL || undefined,
    webhooks: env.WEBHOOK_RETRY_SCHEDULE_MS ? { retryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE_MS.split(',').map((ms) => Number(ms.trim())) } : undefined,
    loginLinkAllowedHosts: env.LOGIN_LINK_ALLOWED_HOSTS
      ? env.LOGIN_LINK_ALLOWED_HOSTS.split(',')
          .map((h) => h.trim())
          .filter(Boolean)
      : undefined,
    allowedHosts: env.ALLOWED_HOSTS
      ? env.ALLOWED_HOSTS.split(',')
          .map((h) => h.trim())
          .filter(Boolean)
      : undefined,
    outboundPrivate: (outboundPrivate || undefined) as Config['outboundPrivate'] | undefined,
    connections: {
      headersTimeoutMs: whole(env, 'HEADERS_TIMEOUT_MS'),
      requestTimeoutMs: whole(env, 'REQUEST_TIMEOUT_MS'),
      maxPerAddress: whole(env, 'MAX_CONNECTIONS_PER_ADDRESS'),
      maxWebsocketsPerAddress: whole(env, 'MAX_WEBSOCKETS_PER_ADDRESS'),
    },
  };
}

/** A whole number from an environment variable, undefined when unset; a clear error otherwise. */
function whole(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isInteger(value)) throw new Error(`Invalid configuration: ${name}: "${text}" is not a whole number`);
  return value;
}
