import { mkdtempSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import pg from 'pg';
import { expect } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigOverrides } from '../../server/config.ts';
import { createServer, type HearthServer } from '../../server/index.ts';
import type { Credentials } from '../../server/services/bootstrap.ts';
import type { ErrorAnswer } from '../../shared/admin.ts';
import { freshTestDatabase, testPostgres } from './pg-database.ts';

export interface CallResult<T = Envelope> {
  status: number;
  body: T;
  headers: Headers;
}

/** A successful operation's answer (DESIGN §3.2): its message and data, and a page token where it pages. */
export type Success<T = unknown> = { result: { status: 'success'; message: string; data: T; pageToken?: string | null; nextPageToken?: string | null } };
/** An operation's refusal: the error envelope of shared/admin.ts, with the per-item details some operations add. */
export type Failure = { error: ErrorAnswer['error'] & { details?: unknown } };
/** What every operation answers: `call<Envelope<T>>(…)` types an answer whose data is a T. */
export type Envelope<T = unknown> = Success<T> | Failure;

/** The data of a successful answer, typed by the caller; any other answer throws with what came instead. */
export function dataOf<T>(res: CallResult<unknown>): T {
  return resultOf<T>(res).data;
}

/** The whole `result` of a successful answer (message, data, page tokens), its data typed by the caller. */
export function resultOf<T>(res: CallResult<unknown>): Success<T>['result'] {
  const body = res.body as Partial<Success<T>> | undefined;
  if (res.status !== 200 || body?.result?.status !== 'success')
    throw new Error(`expected a success, got HTTP ${res.status}: ${JSON.stringify(res.body).slice(0, 500)}`);
  return body.result;
}

/**
 * The `result` of an operation that answers its record there directly, with no status or message (agents,
 * workflow definitions, memory, ask-ai, as the interface describes them); any other answer throws.
 */
export function answerOf<T>(res: CallResult<unknown>): T {
  const body = res.body as { result?: T } | undefined;
  if (res.status !== 200 || body?.result === undefined)
    throw new Error(`expected a success, got HTTP ${res.status}: ${JSON.stringify(res.body).slice(0, 500)}`);
  return body.result;
}

/** The error of a refused call; a success throws. */
export function errorOf(res: CallResult<unknown>): Failure['error'] {
  const body = res.body as Partial<Failure> | undefined;
  if (res.status === 200 || body?.error === undefined) throw new Error(`expected an error, got HTTP ${res.status}: ${JSON.stringify(res.body).slice(0, 500)}`);
  return body.error;
}

export type Headers_ = Record<string, string>;

/** Sends `{ data }` to `path` like any client would. */
export async function call<T = Envelope>(baseUrl: string, path: string, data: unknown, headers: Headers_ = {}): Promise<CallResult<T>> {
  return raw<T>(baseUrl, path, JSON.stringify({ data }), headers);
}

/** Sends a body as given (for malformed requests). */
export async function raw<T = Envelope>(
  baseUrl: string,
  path: string,
  body: string | undefined,
  headers: Headers_ = {},
  method = 'POST',
): Promise<CallResult<T>> {
  const response = await fetch(baseUrl + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: method === 'GET' || method === 'HEAD' ? undefined : body,
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed as T, headers: response.headers };
}

export const workspaceHeaders = (c: { workspaceId: string; workspaceAuthToken: string }, brand = 'svc'): Headers_ => ({
  [`x-${brand}-workspace-id`]: c.workspaceId,
  [`x-${brand}-workspace-auth-token`]: c.workspaceAuthToken,
});

export const apiKeyHeaders = (c: { apiKey: string; authToken: string }, brand = 'svc'): Headers_ => ({
  [`x-${brand}-api-key`]: c.apiKey,
  [`x-${brand}-auth-token`]: c.authToken,
});

export interface TestServer {
  server: HearthServer;
  url: string;
  dataDir: string;
  credentials: Credentials;
  /** Calls with the default API key's headers (set B). */
  callK<T = Envelope>(path: string, data: unknown, headers?: Headers_): Promise<CallResult<T>>;
  /** Calls with the default workspace's headers (set A). */
  callW<T = Envelope>(path: string, data: unknown, headers?: Headers_): Promise<CallResult<T>>;
  /** Calls with no credentials (set C). */
  callPublic<T = Envelope>(path: string, data: unknown, headers?: Headers_): Promise<CallResult<T>>;
  /**
   * Runs one SQL statement (`?` placeholders) on the server's database, whichever engine it is, on a connection of
   * the test's own, and answers its rows: for a state no operation makes (a key as an older Hearth stored it) or a
   * count no operation shows. After a write on PostgreSQL to a table the server hears other processes write (one
   * with a change trigger: every table but the delivery tables, pg migrations 0002 and 0005), waits until the
   * server's change stamp has seen it, as SQLite's data_version shows another connection's commit at once.
   */
  query<R = Record<string, unknown>>(statement: string, params?: unknown[], options?: { sqliteFile?: 'webhooks.db' }): Promise<R[]>;
  /** Stops the server and starts a new one on the same data dir. */
  restart(overrides?: ConfigOverrides): Promise<void>;
  close(): Promise<void>;
}

/** A real Hearth on an ephemeral 127.0.0.1 port with a temporary data dir, removed on close. */
export async function startTestServer(overrides: ConfigOverrides = {}, options: { engine?: 'sqlite' } = {}): Promise<TestServer> {
  const dataDir = overrides.dataDir ?? mkdtempSync(join(tmpdir(), 'hearth-test-'));
  // the suite's PostgreSQL run (pg-database.ts): a database of this server's own, kept across restarts; `engine:
  // 'sqlite'` keeps a server on the data dir's SQLite even then (tests of a data dir's files)
  const postgres = options.engine === 'sqlite' ? undefined : testPostgres();
  const database = postgres && overrides.databaseUrl === undefined ? await freshTestDatabase(postgres) : undefined;
  const start = async (more: ConfigOverrides = {}) => {
    const started = await createServer({
      port: 0,
      host: '127.0.0.1',
      logLevel: 'silent',
      ...(database ? { databaseUrl: database.url } : {}),
      ...overrides,
      ...more,
      dataDir,
    });
    // The delivery worker starts beside the listening server (events wait in the outbox meanwhile); tests that
    // time deliveries start their clock once it runs.
    await started.app.webhooks.ready();
    return started;
  };
  let server = await start();
  const t: TestServer = {
    server,
    url: server.url,
    dataDir,
    credentials: server.credentials,
    callK: (path, data, headers = {}) => call(t.url, path, data, { ...apiKeyHeaders(t.credentials), ...headers }),
    callW: (path, data, headers = {}) => call(t.url, path, data, { ...workspaceHeaders(t.credentials), ...headers }),
    callPublic: (path, data, headers = {}) => call(t.url, path, data, headers),
    // the delivery tables are webhooks.db's on SQLite (sqliteFile), the one database's on PostgreSQL
    async query<R>(statement: string, params: unknown[] = [], options: { sqliteFile?: 'webhooks.db' } = {}) {
      // SQLite's stamp sees another connection's commit from the next turn on; PostgreSQL's when the notification
      // of a watched table arrives: waited for
      // the server's PostgreSQL database: this run's own, or one the test gave (databaseUrl)
      const pgUrl = overrides.databaseUrl ?? database?.url;
      const before = pgUrl !== undefined ? t.server.app.storage.engine.changes() : 0;
      let heard = false;
      let rows: R[];
      if (pgUrl) {
        let n = 0;
        const client = new pg.Client({ connectionString: pgUrl });
        await client.connect();
        try {
          // the table a write goes to, and whether PostgreSQL tells the server of it (migration 0002's triggers)
          const table = /^\s*(?:insert\s+into|update|delete\s+from)\s+"?(\w+)/i.exec(statement)?.[1];
          if (table !== undefined) {
            const triggers = await client.query(
              "SELECT 1 FROM information_schema.triggers WHERE event_object_schema = current_schema() AND event_object_table = $1 AND action_statement LIKE '%hearth_notify_change%'",
              [table],
            );
            heard = (triggers.rowCount ?? 0) > 0;
          }
          rows = (
            await client.query(
              statement.replace(/\?/g, () => `$${++n}`),
              params,
            )
          ).rows as R[];
        } finally {
          await client.end();
        }
      } else {
        const sqlite = new Database(join(dataDir, options.sqliteFile ?? 'hearth.db'));
        try {
          const prepared = sqlite.prepare(statement);
          rows = prepared.reader ? (prepared.all(...params) as R[]) : (prepared.run(...params), []);
        } finally {
          sqlite.close();
        }
      }
      if (heard) await eventually(() => expect(t.server.app.storage.engine.changes()).not.toBe(before), 5_000, 5);
      return rows;
    },
    async restart(more = {}) {
      await server.close();
      server = await start(more);
      Object.assign(t, { server, url: server.url, credentials: server.credentials });
    },
    async close() {
      await server.close();
      await database?.drop();
      if (!overrides.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}

/**
 * The tables of the server's PostgreSQL database (its schema's base tables) with a row that holds `text`, as
 * PostgreSQL writes the row out as text: what an erasure or a secret kept encrypted must leave no trace in. (On
 * SQLite the tests read the bytes of hearth.db itself.)
 */
export async function pgTablesHolding(t: TestServer, text: string): Promise<string[]> {
  const tables = await t.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name",
  );
  const holding: string[] = [];
  for (const { name } of tables) {
    if ((await t.query(`SELECT 1 FROM "${name}" AS r WHERE strpos(r::text, ?) > 0 LIMIT 1`, [text])).length > 0) holding.push(name);
  }
  return holding;
}

/** Retries an assertion until it passes or the time is up (no bare sleeps in tests). */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 5_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
}
