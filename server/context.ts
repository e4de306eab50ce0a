import type { Monitor } from './admin/monitor.ts';
import type { SignInLinks } from './admin/signin.ts';
import type { Tickets } from './admin/tickets.ts';
import type { Config } from './config.ts';
import type { HostCheck } from './http/host-check.ts';
import type { ResponseCache } from './http/response-cache.ts';
import type { ClusterBus } from './cluster/bus.ts';
import type { ClusterCheck } from './cluster/identity.ts';
import type { CrdtStore } from './crdt/store.ts';
import type { Storage } from './db/repos/index.ts';
import type { PageTokens } from './db/pagination.ts';
import type { RateLimiter } from './http/rate-limit.ts';
import type { Logger } from './log.ts';
import type { Mailer } from './mail/mailer.ts';
import type { Secrets } from './security/secrets.ts';
import type { AccessEvents } from './services/access-events.ts';
import type { AgentRunner } from './services/agents.ts';
import type { JobRunner } from './services/jobs.ts';
import type { WebhookDispatcher } from './webhooks/dispatcher.ts';
import type { TestingState } from './testing/state.ts';

/** The services one running Hearth shares between its operations, its websocket and its CLI commands. */
export interface AppContext {
  config: Config;
  /** The storage layer: repositories and units of work (db/repos/, db/storage.ts). */
  storage: Storage;
  secrets: Secrets;
  pageTokens: PageTokens;
  limiter: RateLimiter;
  mail: Mailer;
  /** The live Yjs documents and their storage. */
  crdt: CrdtStore;
  /** Background jobs (document migrations) that survive restarts. */
  jobs: JobRunner;
  /** Agent executions running in the background. */
  agents: AgentRunner;
  /** Webhook deliveries from the outbox (a running server's; the CLI's admin commands leave them to it). */
  webhooks: WebhookDispatcher;
  /** The last API calls, for the admin UI's request monitor. */
  monitor: Monitor;
  /** Answers of read operations while the database is unchanged (http/response-cache.ts). */
  responses: ResponseCache;
  /** Read-only websocket tickets the admin UI's CRDT inspector opens documents with. */
  uiTickets: Tickets;
  /**
   * Redis between the instances of a cluster (REDIS_URL; cluster/bus.ts): undefined for a lone server, which has
   * no one to tell.
   */
  cluster?: ClusterBus;
  /** Whether this cluster instance's Redis is its database's cluster's (cluster/identity.ts; GET /readyz): set by a server's start. */
  clusterCheck?: ClusterCheck;
  /** "Access changed" events of committed changes: open websockets are checked again (crdt/revocation.ts). */
  accessEvents: AccessEvents;
  /** One-time sign-in links of this server run (admin/signin.ts). */
  signIn: SignInLinks;
  /** Whether a request's Host header names this server (http/host-check.ts); HTTP and websocket upgrades both ask. */
  hostAllowed: HostCheck;
  log: Logger;
  version: string;
  /** Testing mode's state (captured outbound traffic): set only when `config.testing` (server/testing/). */
  testing?: TestingState;
  /** The URL this server listens at (known once it listens). */
  baseUrl: string;
  /** The base URL of links handed out to clients: `publicUrl` when set, else `baseUrl`. */
  publicUrl: string;
}
