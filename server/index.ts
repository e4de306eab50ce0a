import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { guardConnections } from './http/connections.ts';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from 'h3';
import { resolveConfig, type Config, type ConfigOverrides } from './config.ts';
import type { AppContext } from './context.ts';
import { createCrdtStore } from './crdt/store.ts';
import { createCrdtChangeFeed, crdtEventResolver } from './crdt/events.ts';
import { attachYjsWebsocket } from './crdt/websocket.ts';
import { MasterKeyMismatchError, openStorage, type Storage } from './db/repos/index.ts';
import { openPostgresStorage } from './db/repos/postgres.ts';
import { createPageTokens } from './db/pagination.ts';
import { createHttpApp } from './http/app.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { createLogger } from './log.ts';
import { createMailer } from './mail/mailer.ts';
import { operations } from './operations/index.ts';
import { createSecrets, loadMasterKey, masterKeyIdentity, masterKeyPath } from './security/secrets.ts';
import { ensureDefaultCredentials, type Credentials } from './services/bootstrap.ts';
import { createMonitor } from './admin/monitor.ts';
import { createSignInLinks, signInLinkOf } from './admin/signin.ts';
import { createTickets } from './admin/tickets.ts';
import { createAccessEvents, type AccessEvents } from './services/access-events.ts';
import { connectClusterBus, type ClusterBus } from './cluster/bus.ts';
import { createClusterCheck } from './cluster/identity.ts';
import { createAgentRunner } from './services/agents.ts';
import { DATABASE_FILE } from './data-files.ts';
import { removeServerLock, writeServerLock } from './server-lock.ts';
import { createJobRunner } from './services/jobs.ts';
import { watchLeases } from './lease-watch.ts';
import { migrationQueue } from './services/migrations.ts';
import { sweepOrphanAttachments } from './services/recordings.ts';
import { erasureQueue } from './services/user-data.ts';
import { VERSION } from './version.ts';
import { createHostCheck } from './http/host-check.ts';
import { ResponseCache } from './http/response-cache.ts';
import { createWebhookDispatcher, offlineDispatcher } from './webhooks/dispatcher.ts';
import { registerTestingRoutes } from './testing/routes.ts';
import { createTestingState } from './testing/state.ts';
import type { SentWebhook } from './webhooks/protocol.ts';

export { DATABASE_FILE };

export interface HearthServer {
  /** Base URL of the API, e.g. http://127.0.0.1:8787 */
  url: string;
  port: number;
  config: Config;
  credentials: Credentials;
  app: AppContext;
  /** A fresh one-time link that signs a browser in to the admin UI (the default workspace, or `workspaceId`). */
  signInLink(workspaceId?: string): string;
  /** Stops accepting, lets in-flight requests finish (up to the grace period), then closes the database. */
  close(): Promise<void>;
}

/**
 * Opens the data dir (master key, database, migrations) without listening: the CLI's admin commands use it. The
 * database is the data dir's SQLite, or the PostgreSQL of `databaseUrl` (DATABASE_URL) when it is set.
 */
export async function openApp(config: Config): Promise<AppContext> {
  // Redis carries what the instances of one database tell each other; the embedded SQLite has one process only.
  if (config.redisUrl !== undefined && config.databaseUrl === undefined)
    throw new Error(
      'REDIS_URL is set without DATABASE_URL: instances of a cluster share a PostgreSQL database (README, "Run as a cluster"); unset REDIS_URL for the embedded SQLite.',
    );
  const madeDataDir = mkdirSync(config.dataDir, { recursive: true, mode: 0o700 }) !== undefined;
  const log = createLogger(config.logLevel, config.logFormat);
  const keyPath = masterKeyPath(config);
  // a key file named by MASTER_KEY_FILE is the cluster's: never made here
  const master = loadMasterKey(keyPath, { create: config.masterKeyFile === undefined });
  const secrets = createSecrets(master.key);
  let storage: Storage;
  try {
    const masterKey = masterKeyIdentity(secrets, keyPath);
    storage =
      config.databaseUrl === undefined ? openStorage(config.dataDir, { log, masterKey }) : await openPostgresStorage(config.databaseUrl, { log, masterKey });
  } catch (error) {
    // a key this start made, for a database that holds another key's secrets: the data dir is left as it was
    if (master.created && error instanceof MasterKeyMismatchError) rmSync(keyPath, { force: true });
    // A PostgreSQL that refused (unreachable, no such database, permission denied, wrong locale) before it recorded
    // the key (the record is the last step of opening it, and the first start of a database has no secrets to lose):
    // nothing of this start is left behind, so that the next start, once the database is fixed, is a first start.
    else if (master.created && config.databaseUrl !== undefined) {
      rmSync(keyPath, { force: true });
      if (madeDataDir) rmSync(config.dataDir, { recursive: true, force: true });
    }
    throw error;
  }
  let cluster: ClusterBus | undefined;
  let accessEvents: AccessEvents;
  try {
    cluster = config.redisUrl === undefined ? undefined : await connectClusterBus(config.redisUrl, log);
    accessEvents = await createAccessEvents(log, cluster);
  } catch (error) {
    await cluster?.close();
    await storage.close();
    throw error;
  }
  const crdtChanges = createCrdtChangeFeed(config, storage);
  return {
    cluster,
    crdt: createCrdtStore({ storage, log, cluster }, { idleMs: config.crdtIdleMs, historyUpdates: config.crdtHistoryUpdates, onChange: crdtChanges.onChange }),
    // Deliveries are the running server's work: a CLI command's events wait in the outbox until a server picks them up.
    webhooks: offlineDispatcher,
    jobs: createJobRunner({ log }, [migrationQueue({ storage, accessEvents }), erasureQueue({ storage, accessEvents })]),
    agents: createAgentRunner(),
    monitor: createMonitor({
      totalBytes: config.monitor.totalMb * 1024 * 1024,
      workspaceBytes: Math.min(config.monitor.workspaceMb, config.monitor.totalMb) * 1024 * 1024,
      closeGraceMs: config.monitor.closeGraceMs,
      maxAgeMs: config.monitor.maxAgeMs,
    }),
    responses: new ResponseCache(storage.engine.changes, config.responseCacheMb * 1024 * 1024),
    uiTickets: createTickets(),
    accessEvents,
    signIn: createSignInLinks(secrets.derive('admin-sign-in'), randomBytes(12).toString('base64url')),
    hostAllowed: createHostCheck(config),
    config,
    storage,
    secrets,
    pageTokens: createPageTokens(secrets.derive('page-tokens')),
    limiter: createRateLimiter(cluster, log),
    mail: createMailer({ storage, secrets, log, smtpUrl: config.smtpUrl, from: config.mailFrom }),
    log,
    ...(config.testing ? { testing: createTestingState() } : {}),
    version: VERSION,
    baseUrl: '',
    publicUrl: '',
  };
}

/**
 * How long an idle keep-alive connection is kept: longer than clients keep theirs (undici, fetch's client, 4 s
 * unless the server's Keep-Alive header says more; browsers about a minute), so that it is always the client
 * that closes an idle connection. With node's 5 s a request sent on a pooled connection just as the server's
 * timer fired, or after a stall of the event loop longer than that (a busy machine, one long synchronous piece of
 * work), met a closed socket: ECONNRESET on a request the server never saw (issue 29). Load balancers keep 60 s.
 */
const KEEP_ALIVE_MS = 65_000;

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** The server used by `npm start`, the tests and the desktop app. */
export async function createServer(overrides: ConfigOverrides = {}): Promise<HearthServer> {
  const config = resolveConfig(overrides);
  const app = await openApp(config);
  let http: Server | undefined;
  try {
    await app.storage.claimServer(app.cluster ? 'cluster' : 'alone', app.cluster?.instanceId);
    if (app.cluster) {
      // one cluster, one bus: an instance whose Redis is not its database's cluster's is refused (issue 42)
      app.clusterCheck = createClusterCheck(app.storage, app.cluster, app.log);
      const verdict = await app.clusterCheck.check();
      if (verdict !== 'ok') throw new Error(`REDIS_URL: ${verdict}`);
    }
    // a cluster instance's request monitor shows every instance's calls (admin/monitor.ts)
    if (app.cluster) await app.monitor.share(app.cluster, app.log);
    const credentials = await ensureDefaultCredentials(app);
    await sweepOrphanAttachments(app);
    const listener = toNodeHandler(createHttpApp(app, operations, (h3) => registerTestingRoutes(h3, app)));
    const { headersTimeoutMs, requestTimeoutMs } = config.connections;
    http = createHttpServer(
      {
        keepAliveTimeout: KEEP_ALIVE_MS,
        // from a request's first byte (node 20 does not count the idle time of a kept-alive connection); checked
        // every second rather than node's 30 s, so that a slow client is closed near its deadline
        headersTimeout: headersTimeoutMs,
        requestTimeout: Math.max(requestTimeoutMs, headersTimeoutMs),
        connectionsCheckingInterval: 1_000,
      },
      listener,
    );
    const server = http;
    const guard = guardConnections(server, config.connections);
    // `Expect: 100-continue`: node would send 100 Continue before any handler ran; a body declared over the limit
    // is refused first instead, so that the client does not send it at all
    server.on('checkContinue', (req, res) => {
      if (!(Number(req.headers['content-length']) > config.maxBodyBytes)) res.writeContinue();
      listener(req, res);
    });
    const yjs = attachYjsWebsocket(app, server, app.crdt, guard);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const port = (server.address() as AddressInfo).port;
    app.baseUrl = `http://${urlHost(config.host)}:${port}`;
    app.publicUrl = config.publicUrl ?? app.baseUrl;
    writeServerLock(config.dataDir, app.baseUrl, app.signIn.bootId);
    await app.mail.recover(app);
    await app.jobs.recover(app);
    await app.agents.recover(app);
    const testing = app.testing;
    app.webhooks = createWebhookDispatcher(app, {
      debounced: { 'crdt.update_data': crdtEventResolver(config) },
      ...(testing ? { onSent: (sent: SentWebhook) => testing.recordWebhook(sent) } : {}),
    });
    // in a cluster, work other instances left behind under leases that ran out
    const leases = watchLeases(app);

    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        app.monitor.endAll();
        yjs.close();
        server.closeIdleConnections();
        const grace = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
        await stopped;
        clearTimeout(grace);
        await leases.stop();
        await app.jobs.close();
        await app.agents.close();
        // webhook requests in flight and mail being relayed get the grace period to finish
        await app.webhooks.close(config.shutdownGraceMs);
        await app.mail.close(config.shutdownGraceMs);
        await app.crdt.flushAll();
        app.crdt.close();
        app.limiter.close();
        await app.cluster?.close();
        await app.storage.close({ checkpoint: true });
        removeServerLock(config.dataDir);
      })());

    const signInLink = (workspaceId = credentials.workspaceId) => signInLinkOf(app.publicUrl, app.signIn.mint(workspaceId));
    return { url: app.baseUrl, port, config, credentials, app, signInLink, close };
  } catch (error) {
    http?.close();
    app.crdt.close();
    await app.jobs.close();
    await app.webhooks.close();
    await app.mail.close();
    await app.cluster?.close();
    await app.storage.close();
    throw error;
  }
}
