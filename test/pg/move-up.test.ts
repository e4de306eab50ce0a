// Moving Hearth up from SQLite to PostgreSQL through the CLI (issue 31), judged by what clients read: the demo data
// seeded into a SQLite data dir (plus, through the real API, what the seed leaves empty: agents, workflow
// definitions, judgments, domains, webhook deliveries, a second workspace) is read with EVERY read operation of the
// interface, for every seeded id, every page walked; then `hearth export --secrets include` and `hearth import` with
// DATABASE_URL move it into a fresh PostgreSQL database, a server starts on that, and the same reads, with the same
// credentials (they move with the data), must answer the same. One workspace moves the same way on its own.
//
// The list of reads is checked against the registry (server/operations): an operation whose name looks like a read
// must be read here or be named in NOT_READS with the reason, so that the list cannot silently fall behind.
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigOverrides } from '../../server/config.ts';
import { operations } from '../../server/operations/index.ts';
import type { Credentials } from '../../server/services/bootstrap.ts';
import { seedDataDir } from '../../server/tooling/seed.ts';
import { runHearth } from '../helpers/cli.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { freshTestDatabase, testPostgres } from '../helpers/pg-database.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { reviewThread } from '../helpers/judgments.ts';
import { apiKeyHeaders, call, dataOf, startTestServer, workspaceHeaders, type Headers_, type TestServer } from '../helpers/server.ts';
import { tempDirs } from '../helpers/transfer.ts';
import { populateKey } from '../helpers/transfer-fixture.ts';
import { FAST_WEBHOOKS } from '../helpers/webhooks.ts';

const temp = tempDirs();
const PASSPHRASE = 'correct horse battery staple';
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
/** The SQLite side's commands and servers: DATABASE_URL unset (an empty value counts as unset). */
const ON_SQLITE = { DATABASE_URL: '' };

type Input = Record<string, unknown>;
type Reads = Record<string, Input[]>;
type Page = { status: number; body: unknown };
type Answers = Record<string, Page[]>;

/** Operations whose name looks like a read but that are not one (or read nothing a move carries), and why. */
const NOT_READS: Record<string, string> = {
  '/v1/auth/token/get': 'the legacy form of generate_token: it issues a new user token (a write), whatever its name says',
};
const looksLikeRead = (path: string) => /\/(get|list|status|query|count|search|suggest|find)$/.test(path);

// ---------------------------------------------------------------------------------------------------------------
// PostgreSQL: the run's server (its globalSetup hands workers the URL in HEARTH_TEST_POSTGRES); every move goes into
// a fresh database of its own (copied from the migrated template), dropped at the end
// ---------------------------------------------------------------------------------------------------------------
const dropDatabases: Array<() => Promise<void>> = [];

async function onPostgres<T = Record<string, unknown>>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

async function freshDatabase(): Promise<string> {
  const server = testPostgres();
  if (!server) throw new Error('HEARTH_TEST_POSTGRES is not set: run this file with npm run test:pg (vitest.pg.config.ts)');
  const database = await freshTestDatabase(server);
  dropDatabases.push(database.drop);
  return database.url;
}

/**
 * A real server on a data dir, kept after close: on PostgreSQL when given a database URL, on the data dir's SQLite
 * otherwise (never a database of startTestServer's own choosing in the PostgreSQL run).
 */
type Served = TestServer;
const serve = (dataDir: string, overrides: ConfigOverrides = {}): Promise<Served> =>
  startTestServer({ ...overrides, dataDir }, overrides.databaseUrl === undefined ? { engine: 'sqlite' } : {});

// ---------------------------------------------------------------------------------------------------------------
// The reads: every read operation, with inputs for every id the key holds, read from the source database
// ---------------------------------------------------------------------------------------------------------------

function readsOf(dataDir: string, apiKey: string, ownerEmail: string): Reads {
  const db = new Database(join(dataDir, 'hearth.db'), { readonly: true });
  const all = <T>(sql: string, ...values: unknown[]) => db.prepare(sql).all(apiKey, ...values) as T[];
  const column = (sql: string, ...values: unknown[]) => all<Record<string, string>>(sql, ...values).map((row) => Object.values(row)[0]!);
  try {
    const endpoints = column('SELECT id FROM webhook_endpoints WHERE api_key_id = ? ORDER BY id');
    const reads: Reads = {
      '/v2/workspace/get': [{}],
      '/v2/workspace/apikeys/get': [{}, { pageSize: 1 }],
      '/v2/workspace/authtokens/get': [{ apiKey }],
      '/v2/workspace/apikeyconfig/get': [{}],
      '/v2/workspace/emailconfig/get': [{}],
      '/v2/workspace/notificationconfig/get': [{}],
      '/v2/workspace/activityconfig/get': [{}],
      '/v2/workspace/permissionproviderconfig/get': [{}],
      '/v2/workspace/domains/get': [{}],
      '/v2/workspace/email/status': [{ ownerEmail }],
      '/v2/workspace/advancedwebhookconfig/get': [{}],
      '/v2/workspace/webhookconfig/get': [{}],
      '/v2/agents/list': [{}, { pageSize: 1 }],
      '/v2/agents/get': column('SELECT id FROM agents WHERE api_key_id = ? ORDER BY id').map((agentId) => ({ agentId })),
      '/v2/agents/execution/list': [{}, { pageSize: 1 }, { orderDirection: 'asc' }],
      '/v2/agents/execution/get': [
        ...column('SELECT id FROM agent_executions WHERE api_key_id = ? ORDER BY id').map((executionId) => ({ executionId })),
        { executionId: 'no-such-run' },
      ],
      '/v2/workflow/definitions/list': [{}, { pageSize: 1 }],
      '/v2/workflow/definitions/get': column('SELECT definition_id FROM workflow_definitions WHERE api_key_id = ? ORDER BY 1').map((definitionId) => ({
        definitionId,
      })),
      '/v2/memory/judgments/query': [{}, { pageSize: 1 }, { query: 'looks good' }],
      '/v2/memory/suggest': [
        { query: 'looks good' },
        { query: 'ship the launch plan' },
        { query: 'ship the launch plan', organizationId: 'acme' },
        { query: 'ship the launch plan', organizationId: 'acme', documentId: 'launch' },
      ],
      '/v2/workspace/advancedwebhook/endpoints/get': [{}, { limit: 1 }, ...endpoints.map((endpointId) => ({ endpointId }))],
      '/v2/workspace/advancedwebhook/endpoints/secret/get': endpoints.map((endpointId) => ({ endpointId })),
      '/v2/workspace/advancedwebhook/attempts/list': endpoints.flatMap((endpointId) => [{ endpointId }, { endpointId, limit: 1 }]),
      '/v2/organizations/documents/migrate/status': all<{ o: string; id: string }>(
        'SELECT organization_id AS o, id FROM document_migrations WHERE api_key_id = ? ORDER BY id',
      ).map(({ o, id }) => ({ organizationId: o, migrationId: id })),
      '/v2/users/data/delete/status': column('SELECT id FROM user_data_jobs WHERE api_key_id = ? ORDER BY id').map((jobId) => ({ jobId })),
    };
    const add = (path: string, ...inputs: Input[]) => (reads[path] ??= []).push(...inputs);
    const organizations = column('SELECT id FROM organizations WHERE api_key_id = ? ORDER BY id');
    add('/v2/organizations/get', {}, { organizationIds: organizations });
    for (const organizationId of organizations) {
      const org = { organizationId };
      const documents = column('SELECT id FROM documents WHERE api_key_id = ? AND organization_id = ? ORDER BY id', organizationId);
      const folders = column('SELECT id FROM folders WHERE api_key_id = ? AND organization_id = ? ORDER BY id', organizationId);
      const users = column(
        `SELECT DISTINCT user_id FROM (
           SELECT api_key_id, organization_id, user_id FROM memberships
           UNION SELECT api_key_id, organization_id, user_id FROM notification_recipients
           UNION SELECT api_key_id, organization_id, user_id FROM user_group_members
         ) WHERE api_key_id = ? AND organization_id = ? ORDER BY 1`,
        organizationId,
      );
      const annotations = column('SELECT id FROM comment_annotations WHERE api_key_id = ? AND organization_id = ? ORDER BY id', organizationId);
      const documentChunks = chunks(documents, 30);
      add('/v2/organizations/folders/get', org, ...folders.map((folderId) => ({ ...org, folderId })), { ...org, maxDepth: 0 });
      add(
        '/v2/organizations/documents/get',
        org,
        { ...org, pageSize: 5 },
        ...folders.map((folderId) => ({ ...org, folderId })),
        ...documentChunks.map((documentIds) => ({ ...org, documentIds })),
      );
      if (users.length > 0)
        add('/v2/auth/permissions/get', { ...org, userIds: users.slice(0, 100), documentIds: documents.slice(0, 100), folderIds: folders.slice(0, 100) });
      add(
        '/v2/notifications/get',
        ...users.map((userId) => ({ ...org, userId })),
        ...users.slice(0, 3).flatMap((userId) => [
          { ...org, userId, pageSize: 2 },
          { ...org, userId, order: 'asc', pageSize: 3 },
        ]),
        ...documents.map((documentId) => ({ ...org, documentId })),
      );
      add(
        '/v2/notifications/config/get',
        ...users.map((userId) => ({ ...org, userId, getOrganizationConfig: true })),
        ...users.slice(0, 3).map((userId) => ({ ...org, userId, documentIds: documents.slice(0, 100) })),
      );
      add(
        '/v2/activities/get',
        org,
        { ...org, pageSize: 10 },
        { ...org, order: 'asc', pageSize: 25 },
        ...documents.map((documentId) => ({ ...org, documentId })),
        ...users.map((userId) => ({ ...org, userId })),
      );
      add(
        '/v2/commentannotations/get',
        org,
        { ...org, pageSize: 4 },
        { ...org, groupByDocumentId: true },
        ...documentChunks.map((documentIds) => ({ ...org, documentIds })),
        ...users.map((userId) => ({ ...org, userId })),
      );
      add('/v2/commentannotations/count/get', ...documentChunks.flatMap((documentIds) => users.map((userId) => ({ ...org, documentIds, userId }))));
      add('/v2/commentannotations/comments/get', ...annotations.map((annotationId) => ({ ...org, annotationId })));
      add('/v2/reactions/get', ...annotations.map((annotationId) => ({ ...org, annotationId })));
      add('/v2/recordings/get', org, { ...org, pageSize: 2 }, ...documents.map((documentId) => ({ ...org, documentId })));
      add('/v2/users/data/get', ...users.map((userId) => ({ ...org, userId })));
      const crdt = all<{ d: string; e: string }>(
        'SELECT document_id AS d, editor_id AS e FROM crdt_documents WHERE api_key_id = ? AND organization_id = ? ORDER BY 1, 2',
        organizationId,
      );
      add('/v2/crdt/get', ...crdt.map(({ d, e }) => ({ ...org, documentId: d, editorId: e })), ...documents.map((documentId) => ({ ...org, documentId })));
    }
    return reads;
  } finally {
    db.close();
  }
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The next page's input, from a page's answer: classic page tokens, the AI operations' cursors, webhooks' iterators. */
function nextInput(input: Input, body: unknown): Input | undefined {
  const result = (body as { result?: Record<string, unknown> } | undefined)?.result;
  if (!result || typeof result !== 'object') return undefined;
  const token = result.pageToken ?? result.nextPageToken;
  if (typeof token === 'string' && token !== '') return { ...input, pageToken: token };
  if (typeof result.nextCursor === 'string' && result.nextCursor !== '') return { ...input, cursor: result.nextCursor };
  const data = result.data as { iterator?: unknown; done?: unknown } | undefined;
  if (data && typeof data.iterator === 'string' && data.done === false) return { ...input, iterator: data.iterator };
  return undefined;
}

const authOf = (path: string) => operations.find((o) => o.path === path || o.aliases?.includes(path))?.auth;

/**
 * Every read's answers, page by page. The only thing normalized: the server's own base URL in the answers
 * (attachment URLs), since each server listens on a port of its own.
 */
async function readAll(url: string, reads: Reads, credentials: Credentials): Promise<Answers> {
  const headers: Record<string, Headers_> = { apiKey: apiKeyHeaders(credentials), workspace: workspaceHeaders(credentials), public: {} };
  const answers: Answers = {};
  for (const [path, inputs] of Object.entries(reads)) {
    for (const first of inputs) {
      const pages: Page[] = [];
      let input: Input | undefined = first;
      while (input) {
        const res: { status: number; body: unknown } = await call<unknown>(url, path, input, headers[authOf(path)!]);
        const body = JSON.parse(JSON.stringify(res.body).split(url).join('<base-url>')) as unknown;
        pages.push({ status: res.status, body });
        input = res.status === 200 ? nextInput(input, body) : undefined;
        if (pages.length > 500) throw new Error(`${path} ${JSON.stringify(first)}: more than 500 pages`);
      }
      answers[`${path} ${JSON.stringify(first)}`] = pages;
    }
  }
  return answers;
}

/** The files the answers link to on the server (recordings' attachments), fetched: their status, type and digest. */
async function linkedFiles(url: string, answers: Answers): Promise<Record<string, unknown>> {
  const links = new Set<string>();
  JSON.stringify(answers, (_, value: unknown) => {
    if (typeof value === 'string' && value.startsWith('<base-url>')) links.add(value.slice('<base-url>'.length));
    return value;
  });
  const files: Record<string, unknown> = {};
  for (const link of [...links].sort()) {
    const res = await fetch(url + link);
    const bytes = Buffer.from(await res.arrayBuffer());
    files[link] = { status: res.status, type: res.headers.get('content-type'), bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  }
  return files;
}

/**
 * What may differ between the engines, and only that: the order of a suggestion's top reasons. They come in the
 * order of the judgments' relevance, which SQLite's FTS5 scores by bm25 and PostgreSQL by ts_rank (documented in
 * server/db/pg/repos/judgments.ts: the same matches, other relevance numbers); the fixture's counts decide every
 * suggestion without a tie on relevance, and it has fewer than 3 distinct reasons, so which reasons are shown is
 * still compared: only their order is not.
 */
function comparable(answers: Answers): Answers {
  return Object.fromEntries(
    Object.entries(answers).map(([key, pages]) => {
      if (!key.startsWith('/v2/memory/suggest ')) return [key, pages];
      const text = JSON.stringify(pages);
      return [key, JSON.parse(text, (k, v: unknown) => (k === 'topReasons' && Array.isArray(v) ? [...(v as string[])].sort() : v)) as Page[]];
    }),
  );
}

/** The reads whose answers differ, by name (the full comparison follows it, for the details). */
const differing = (before: Answers, after: Answers) =>
  [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (key) => JSON.stringify(comparable(before)[key]) !== JSON.stringify(comparable(after)[key]),
  );

// ---------------------------------------------------------------------------------------------------------------
// The source: the seed, plus what it leaves empty, in two workspaces
// ---------------------------------------------------------------------------------------------------------------

let sourceDir: string;
let credentials: Credentials;
let other: Credentials & { ownerEmail: string };
let ownerEmail: string;
let reads: Reads;
let otherReads: Reads;
let before: Answers;
let otherBefore: Answers;
let filesBefore: Record<string, unknown>;
let otherFilesBefore: Record<string, unknown>;

/** Rows no API call makes without an AI provider or a background run: an agent run, a document migration, a user-data job. */
function fillTheRest(dataDir: string, apiKeyId: string, organizationId: string) {
  const db = new Database(join(dataDir, 'hearth.db'));
  try {
    db.prepare(
      "INSERT INTO document_migrations (id, api_key_id, organization_id, from_document_id, to_document_id, status, error, attempts, created_at, started_at, completed_at) VALUES ('mig-1', ?, ?, 'spec', 'spec-2', 'failed', 'the target exists', 3, ?, ?, NULL)",
    ).run(apiKeyId, organizationId, NOW - 5_000, NOW - 4_000);
    db.prepare(
      "INSERT INTO user_data_jobs (id, api_key_id, user_id, status, error, attempts, created_at, completed_at) VALUES ('job-1', ?, 'ann', 'completed', NULL, 1, ?, ?)",
    ).run(apiKeyId, NOW - 3_000, NOW - 2_000);
    const run = db.prepare(
      `INSERT INTO agent_executions (api_key_id, id, agent_id, agent_name, agent_version, organization_id, document_id, editor_id, status, message, "trigger",
        llm_model, input, ran_by, started_at, completed_at, duration_ms, token_usage, findings)
        VALUES (?, ?, 'tone', 'MOVE tone', 1, ?, 'spec', NULL, 'passed', 'ok', 'manual', 'gpt-4o', 'Grüße, ☃ and "quotes"', ?, ?, ?, ?, ?, ?)`,
    );
    for (let i = 0; i < 3; i++)
      run.run(
        apiKeyId,
        `run-${i}`,
        organizationId,
        '{"userId":"ann","name":"Ännchen ☃"}',
        NOW - 1_000 + i,
        NOW + i,
        8_589_934_593 + i,
        '{"promptTokens":12,"completionTokens":3,"totalTokens":15}',
        '[{"quote":null,"comment":"Zürich — “smart” quotes","severity":"low","annotationId":null}]',
      );
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  sourceDir = temp('hearth-move-src-');
  await seedDataDir({ dataDir: sourceDir, size: 'small', now: NOW });
  credentials = JSON.parse(readFileSync(join(sourceDir, 'credentials.json'), 'utf8')) as Credentials;
  const receiver = await startReceiver({ fallback: { status: 200 } });
  let t: Served | undefined;
  try {
    t = await serve(sourceDir, { webhooks: FAST_WEBHOOKS });
    expect(t.credentials).toEqual(credentials);
    expect(t.server.app.storage.engine.kind).toBe('sqlite');
    // judgments enough for a suggestion (4 approving, 3 rejecting: a primary and a conflict), made before the key
    // has a webhook endpoint, so that no delivery of them is still due when the server stops
    await reviewThread(t, 'launch', 'ann', 'MOVE ship the launch plan', { bob: '👍', cy: '👍', dee: '👍', eve: '👎', fay: '👎' });
    await reviewThread(t, 'launch', 'bob', 'MOVE ship the launch plan now', { ann: '👍', cy: '👎' });
    await populateKey(t, { apiKey: credentials.apiKey, authToken: credentials.authToken, headersK: apiKeyHeaders(credentials) }, 'hearth-move', 'MOVE', {
      webhookReceiverUrl: receiver.url,
    });
    const made = await createWorkspace(t);
    other = made;
    await populateKey(t, { apiKey: made.apiKey, authToken: made.authToken, headersK: made.headersK }, 'initech', 'CHARLIE', {
      webhookReceiverUrl: receiver.url,
    });
    ownerEmail = dataOf<{ owner: { email: string } }>(await t.callW('/v2/workspace/get', {})).owner.email;
  } finally {
    await t?.close();
    await receiver.close();
  }
  fillTheRest(sourceDir, credentials.apiKey, 'hearth-move');
  reads = readsOf(sourceDir, credentials.apiKey, ownerEmail);
  otherReads = readsOf(sourceDir, other.apiKey, other.ownerEmail);
  const s = await serve(sourceDir);
  try {
    expect(s.server.app.storage.engine.kind).toBe('sqlite');
    before = await readAll(s.url, reads, credentials);
    otherBefore = await readAll(s.url, otherReads, other);
    filesBefore = await linkedFiles(s.url, before);
    otherFilesBefore = await linkedFiles(s.url, otherBefore);
  } finally {
    await s.close();
  }
}, 240_000);

afterAll(async () => {
  for (const drop of dropDatabases) await drop();
});

describe('the reads the move is judged by', () => {
  it('are every read operation of the registry (or one named as no read, with its reason), each answering on SQLite', () => {
    const registered = operations.flatMap((o) => [o.path, ...(o.aliases ?? [])]);
    const readLike = operations.map((o) => o.path).filter(looksLikeRead);
    expect(
      readLike.filter((path) => !(path in reads) && !(path in NOT_READS)),
      'read operations neither read here nor in NOT_READS',
    ).toEqual([]);
    expect(
      Object.keys(reads).filter((path) => !registered.includes(path)),
      'reads of operations the registry no longer has',
    ).toEqual([]);
    expect(Object.keys(NOT_READS).filter((path) => !registered.includes(path))).toEqual([]);
    // every read has inputs and at least one of them answers with data (not only refusals), on the default key
    for (const [path, inputs] of Object.entries(reads)) {
      expect(inputs.length, path).toBeGreaterThan(0);
      const answered = inputs.filter((input) => before[`${path} ${JSON.stringify(input)}`]!.every((page) => page.status === 200));
      expect(answered.length, `${path}: no input answered`).toBeGreaterThan(0);
    }
    // and every read with inputs that are ids answers all of them (the one refusal on purpose: an unknown run)
    const refused = Object.entries(before).filter(([, pages]) => pages.some((p) => p.status !== 200));
    expect(refused.map(([key]) => key)).toEqual(['/v2/agents/execution/get {"executionId":"no-such-run"}']);
    // the paging is walked: several reads took more than one page
    expect(Object.values(before).filter((pages) => pages.length > 2).length).toBeGreaterThan(5);
    // and the seed's data is there to read
    expect(reads['/v2/crdt/get']!.length).toBeGreaterThanOrEqual(36);
    expect(Object.keys(before).length).toBeGreaterThan(500);
    // the recordings' files, served
    expect(Object.keys(filesBefore).length).toBeGreaterThanOrEqual(8);
    expect(Object.values(filesBefore).every((file) => (file as { status: number }).status === 200)).toBe(true);
    // and the suggestion reads judgments the move must carry
    const suggestion = before['/v2/memory/suggest {"query":"ship the launch plan","organizationId":"acme","documentId":"launch"}']![0]!.body;
    expect(suggestion).toMatchObject({ result: { primary: { recommendation: 'approve', basedOn: 4 }, conflict: { recommendation: 'reject' } } });
  });
});

describe('hearth export from SQLite, hearth import into PostgreSQL', () => {
  let archive: string;
  let databaseUrl: string;
  let pgDir: string;

  it('exports the whole data dir with its secrets under the passphrase, and imports it into a fresh database', async () => {
    archive = join(temp('hearth-move-archive-'), 'archive');
    const exported = await runHearth(['export', '--data-dir', sourceDir, '--out', archive, '--secrets', 'include', '--passphrase', PASSPHRASE], {
      env: ON_SQLITE,
    });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/secrets sealed with the passphrase/);
    databaseUrl = await freshDatabase();
    // the new data dir keeps the master key (a copy of the old one) and receives the attachments
    pgDir = temp('hearth-move-pg-');
    copyFileSync(join(sourceDir, 'master.key'), join(pgDir, 'master.key'));
    const imported = await runHearth(['import', '--data-dir', pgDir, '--from', archive, '--passphrase', PASSPHRASE], {
      env: { DATABASE_URL: databaseUrl },
    });
    expect(imported.code, imported.stderr).toBe(0);
    // the rows went to PostgreSQL, not into a SQLite file in the data dir
    expect((await onPostgres<{ n: string }>(databaseUrl, 'SELECT count(*) AS n FROM notifications'))[0]!.n).not.toBe('0');
    expect(() => readFileSync(join(pgDir, 'hearth.db'))).toThrow();
  }, 120_000);

  it('answers every read on PostgreSQL as SQLite did, with the same credentials', async () => {
    const t = await serve(pgDir, { databaseUrl });
    try {
      expect(t.server.app.storage.engine.kind).toBe('postgres');
      expect(t.credentials).toEqual(credentials);
      const after = await readAll(t.url, reads, credentials);
      expect(differing(before, after)).toEqual([]);
      expect(comparable(after)).toEqual(comparable(before));
      // and the files they link to, which the import put in the new data dir
      expect(await linkedFiles(t.url, after)).toEqual(filesBefore);
      // the other workspace moved along with it
      const otherAfter = await readAll(t.url, otherReads, other);
      expect(differing(otherBefore, otherAfter)).toEqual([]);
      expect(comparable(otherAfter)).toEqual(comparable(otherBefore));
      expect(await linkedFiles(t.url, otherAfter)).toEqual(otherFilesBefore);
    } finally {
      await t.close();
    }
  }, 120_000);

  it('the comparison sees a loss: with one table emptied in PostgreSQL, the reads of it differ', async () => {
    await onPostgres(databaseUrl, 'DELETE FROM reactions');
    const t = await serve(pgDir, { databaseUrl });
    try {
      const after = await readAll(t.url, reads, credentials);
      const changed = differing(before, after);
      expect(changed.some((key) => key.startsWith('/v2/reactions/get '))).toBe(true);
      expect(changed.some((key) => key.startsWith('/v2/commentannotations/get '))).toBe(true);
      // and nothing else: the reads that carry reactions (annotations' comments, a user's data) and no other
      expect(changed.filter((key) => !/^\/v2\/(reactions|commentannotations|users\/data)\//.test(key))).toEqual([]);
    } finally {
      await t.close();
    }
  }, 120_000);
});

describe('one workspace moved on its own (hearth export --workspace)', () => {
  it('answers every read of that workspace on PostgreSQL as on SQLite, and holds nothing of the other', async () => {
    const archive = join(temp('hearth-move-ws-archive-'), 'archive');
    const exported = await runHearth(
      ['export', '--data-dir', sourceDir, '--out', archive, '--workspace', other.workspaceId, '--secrets', 'include', '--passphrase', PASSPHRASE],
      { env: ON_SQLITE },
    );
    expect(exported.code, exported.stderr).toBe(0);
    const databaseUrl = await freshDatabase();
    const pgDir = temp('hearth-move-ws-pg-');
    copyFileSync(join(sourceDir, 'master.key'), join(pgDir, 'master.key'));
    const imported = await runHearth(['import', '--data-dir', pgDir, '--from', archive, '--passphrase', PASSPHRASE], {
      env: { DATABASE_URL: databaseUrl },
    });
    expect(imported.code, imported.stderr).toBe(0);
    const t = await serve(pgDir, { databaseUrl });
    try {
      // The judgments' cursors name the last row's place in the judgments' sequence (its surrogate key, which an
      // archive leaves out: the import numbers rows anew). Moved alone, this workspace's judgments get other
      // numbers than beside the seeded workspace's, so those cursors differ; the pages they lead to are compared.
      const cursorsLeftOut = (answers: Answers) =>
        JSON.parse(JSON.stringify(answers), (key, value: unknown) => (key === 'nextCursor' && typeof value === 'string' ? '<cursor>' : value)) as Answers;
      const judgmentsOnly = (answers: Answers) =>
        Object.fromEntries(Object.entries(answers).map(([k, v]) => [k, k.startsWith('/v2/memory/judgments/query ') ? cursorsLeftOut({ v }).v! : v]));
      const after = judgmentsOnly(await readAll(t.url, otherReads, other));
      expect(differing(judgmentsOnly(otherBefore), after)).toEqual([]);
      expect(comparable(after)).toEqual(comparable(judgmentsOnly(otherBefore)));
      expect(await linkedFiles(t.url, after)).toEqual(otherFilesBefore);
      // the seeded workspace stayed behind: its key is unknown there
      const res = await call(t.url, '/v2/organizations/get', {}, apiKeyHeaders(credentials));
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(await onPostgres(databaseUrl, `SELECT id FROM workspaces ORDER BY id`)).not.toContainEqual({ id: credentials.workspaceId });
    } finally {
      await t.close();
    }
  }, 120_000);
});
