// Tenant isolation, generated from the registry: what one API key stores is invisible to every other key and
// untouched by it. Key A (the server's own) is given data in every area, partly by explicit calls whose texts
// carry a marker, partly by generated valid calls; the other keys get the same ids with texts of their own, so
// that their calls get past the existence checks to the queries that must keep A's rows out. Then thousands of valid requests generated from every
// operation's schema, naming A's own ids (organizations, documents, users, annotations, notifications, agents,
// endpoints…), are sent with another key: B, a second key of A's own workspace, and C, the key of another
// workspace; the workspace-level operations go with C's workspace credentials, naming A's key. Every answer must
// be free of A's marker and of A's secrets, every row of A in both databases must be byte for byte what it was,
// and a y-websocket client with B's key in A's room sees an empty document whose edits never reach A's; a user
// token minted by one key opens no room of another.
// Reproduce a run with ISOLATION_SEED=<seed printed> (ISOLATION_REQUESTS sets the count).
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { AnyOperation } from '../../server/http/operation.ts';
import { operations } from '../../server/operations/index.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { apiKeyHeaders, call, eventually, startTestServer, workspaceHeaders, type TestServer } from '../helpers/server.ts';
import { b64, WEBM } from '../helpers/media.ts';
import { REVIEW_FLOW } from '../helpers/workflows.ts';
import { connectYjs } from '../helpers/yjs.ts';
import { arbitraryFor, type JsonSchema, type Pools } from './helpers/arbitraries.ts';
import { inputSchemaOf } from './helpers/requests.ts';

const TOTAL = Number(process.env.ISOLATION_REQUESTS ?? 20_000);
const SEED = Number(process.env.ISOLATION_SEED ?? Date.now() % 2 ** 31);
const CONCURRENCY = 6;
/** In every text A stores on purpose; no answer to another key may hold it. */
const MARK = 'Q7-TENANT-A-PRIVATE';
const ORG = 'iso-org';
const room = { organizationId: ORG, documentId: 'doc-1', editorId: 'e1' };

type Key = { apiKey: string; authToken: string };
let t: TestServer;
let a: Key & { workspaceId: string; workspaceAuthToken: string };
let b: Key;
let c: Awaited<ReturnType<typeof createWorkspace>>;
const pools: Record<string, string[]> = {};
/** One id of A's seeded rows per field name (set once they exist). */
const aim: Record<string, string[]> = {};
/** A's webhook endpoint's signing secret: as secret as its tokens. */
let secretOfA: string;

const must = async (answer: Promise<{ status: number; body: any }>) => {
  const res = await answer;
  if (res.status !== 200) throw new Error(`set-up call failed: ${JSON.stringify(res.body)}`);
  return res.body.result?.data;
};

/**
 * The schema narrowed to what names A's seeded rows: optional properties only where `ids` has their values, and
 * such a string only from `ids` (one id each). A generated filter of random text matches nothing, so a read
 * with every optional filter filled in would rarely reach a row, of A or of anyone.
 */
function aimed(schema: JsonSchema, ids: Pools, name = ''): JsonSchema {
  if (schema.anyOf) return { ...schema, anyOf: schema.anyOf.map((s) => aimed(s, ids, name)) };
  if (schema.oneOf) return { ...schema, oneOf: schema.oneOf.map((s) => aimed(s, ids, name)) };
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'string' && ids[name] && !schema.enum && schema.const === undefined) return { enum: [...(ids[name] as string[])] };
  if (type === 'array' && schema.items) return { ...schema, items: aimed(schema.items, ids, singular(name)) };
  if (type === 'object' && schema.properties) {
    const required = new Set(schema.required ?? []);
    const named = (key: string) => ids[key] !== undefined || ids[singular(key)] !== undefined;
    const properties = Object.fromEntries(Object.entries(schema.properties).filter(([key]) => required.has(key) || named(key)).map(([key, s]) => [key, aimed(s, ids, key)]));
    return { ...schema, properties };
  }
  return schema;
}
const singular = (name: string) => (name.endsWith('s') ? name.slice(0, -1) : name);

/**
 * A valid generated request body for an operation: from the schema itself (every optional field, any value; ids
 * from the pools), or, three times as often, from its narrowing to A's seeded ids.
 */
const arbitraries = new Map<AnyOperation, fc.Arbitrary<unknown>>();
const dataFor = (op: AnyOperation, seed: number) => {
  let arbitrary = arbitraries.get(op);
  if (arbitrary === undefined) {
    const schema = inputSchemaOf(op);
    const plain = arbitraryFor(schema, pools);
    arbitrary = Object.keys(aim).length === 0 ? plain : fc.oneof({ arbitrary: plain, weight: 1 }, { arbitrary: arbitraryFor(aimed(schema, aim), aim), weight: 3 });
    arbitraries.set(op, arbitrary);
  }
  return fc.sample(arbitrary, { numRuns: 1, seed })[0];
};

const apiKeyOps = operations.filter((op) => op.auth === 'apiKey');
const workspaceOps = operations.filter((op) => op.auth === 'workspace');
/** Operations that only read, by their names (…/get, …/list, …/status, memory's query and suggest). */
const isRead = (op: AnyOperation) => /\/(get|list|status|query|suggest)$/.test(op.path);

/**
 * Every row of A: in each table of hearth.db and webhooks.db with an `api_key_id` column, A's rows; A's own key
 * row, its tokens and secrets, and its workspace. As JSON text, in rowid (or primary key) order.
 */
function rowsOfA(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const file of ['hearth.db', 'webhooks.db']) {
    const db = new Database(join(t.dataDir, file), { readonly: true, fileMustExist: true });
    try {
      const tables = db.prepare<[], { name: string; sql: string }>("select name, sql from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '__drizzle%'").all();
      for (const { name, sql } of tables) {
        if (/create virtual table/i.test(sql)) continue;
        const columns = db.prepare<[], { name: string }>(`select name from pragma_table_info('${name}')`).all().map((col) => col.name);
        const order = /without rowid/i.test(sql) ? columns.map((col) => `"${col}"`).join(', ') : 'rowid';
        const where = columns.includes('api_key_id')
          ? ['api_key_id = ?', a.apiKey]
          : name === 'api_keys'
            ? ['id = ?', a.apiKey]
            : name === 'workspaces'
              ? ['id = ?', a.workspaceId]
              : undefined;
        if (where === undefined) continue;
        out[`${file}:${name}`] = JSON.stringify(db.prepare(`select * from "${name}" where ${where[0]} order by ${order}`).raw().all(where[1]));
      }
    } finally {
      db.close();
    }
  }
  return out;
}

/**
 * The same organization, documents, folder, users, group, editor document, notification, comment thread,
 * reaction, activity, recording, agent, workflow and webhook endpoint, under one key, with `text` in every
 * field that stores text: A's with the marker, the other keys' with their own (so that their calls pass the
 * existence checks and reach the queries that must keep A's rows out).
 */
async function seed(key: Key, text: string) {
  const callAs = (path: string, data: unknown) => call(t.url, path, data, apiKeyHeaders(key));
  await must(callAs('/v2/organizations/documents/add', { organizationId: ORG, createOrganization: true, organizationName: text, documents: [{ documentId: 'doc-1', documentName: text }, { documentId: 'doc-2', accessType: 'restricted' }] }));
  await must(callAs('/v2/organizations/folders/add', { organizationId: ORG, folders: [{ folderId: 'fold-1', folderName: text, accessType: 'restricted' }] }));
  await must(callAs('/v2/users/add', { organizationId: ORG, users: [{ userId: 'ann', name: text, email: 'ann@example.com', accessRole: 'editor' }, { userId: 'bob', accessRole: 'viewer' }] }));
  await must(callAs('/v2/organizations/usergroups/add', { organizationId: ORG, organizationUserGroups: [{ groupId: 'grp-1', groupName: text }] }));
  await must(callAs('/v2/crdt/add', { ...room, type: 'text', data: text }));
  const notification = await must(callAs('/v2/notifications/add', { organizationId: ORG, documentId: 'doc-1', actionUser: { userId: 'ann' }, notifyUsers: [{ userId: 'bob' }], displayHeadlineMessageTemplate: text, displayBodyMessage: text }));
  await must(callAs('/v2/commentannotations/add', { organizationId: ORG, documentId: 'doc-1', commentAnnotations: [{ annotationId: 'ann-1', commentData: [{ commentText: text, from: { userId: 'ann' } }] }] }));
  const thread = await must(callAs('/v2/commentannotations/get', { organizationId: ORG, documentId: 'doc-1' }));
  const commentId = thread[0].comments[0].commentId as number;
  await must(callAs('/v2/reactions/add', { organizationId: ORG, annotationId: 'ann-1', commentId, icon: 'heart', from: { userId: 'ann' } }));
  await must(callAs('/v2/activities/add', { organizationId: ORG, documentId: 'doc-1', activities: [{ id: 'act-1', featureType: 'custom', actionType: 'custom.x', actionUser: { userId: 'ann' }, targetEntityId: 'ann-1', displayMessageTemplate: text }] }));
  await must(callAs('/v2/recordings/add', { organizationId: ORG, documentId: 'doc-1', recording: { recordingId: 'rec-1', recordingType: 'audio', from: { userId: 'ann' }, displayName: text, recordedTime: { duration: 1 }, attachments: [{ name: text, mimeType: 'audio/webm', data: b64(Buffer.concat([WEBM, Buffer.from(text)])) }] } }));
  await must(callAs('/v2/agents/create', { agentId: 'agent-1', name: text, model: 'gpt-4o', instructions: text }));
  await must(callAs('/v2/workflow/definitions/create', { definitionId: 'flow-1', ...REVIEW_FLOW, name: text }));
  await must(callAs('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }));
  const endpoint = await must(callAs('/v2/workspace/advancedwebhook/endpoints/create', { url: `https://hooks.example.com/${encodeURIComponent(text)}`, description: text }));
  const secret = await must(callAs('/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId: endpoint.id }));
  return { notificationId: String(notification.notificationId), endpointId: String(endpoint.id), endpointSecret: secret.secret as string };
}

/** The HTTP status a websocket upgrade to `path` is answered with (101 when it opens). */
const upgradeStatus = (path: string) =>
  new Promise<number>((resolve) => {
    const ws = new WebSocket(t.url.replace('http', 'ws') + path);
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('open', () => {
      resolve(101);
      ws.close();
    });
    ws.on('error', () => undefined);
  });

/** A's agent executions still running and its jobs not yet done. */
function busyOfA(): number {
  const count = (sql: string) => (t.server.app.sqlite.prepare<[string], { n: number }>(sql).get(a.apiKey) as { n: number }).n;
  return (
    count("select count(*) as n from agent_executions where api_key_id = ? and status = 'running'") +
    count("select count(*) as n from user_data_jobs where api_key_id = ? and status in ('pending', 'in_progress')") +
    count("select count(*) as n from document_migrations where api_key_id = ? and status in ('pending', 'in_progress')")
  );
}

beforeAll(async () => {
  // AI providers a generated agent or ask-AI call names are not reachable here: fail fast
  t = await startTestServer({ aiTimeoutMs: 2_000, rateLimits: { workspaceOperations: { max: 1_000_000, windowMs: 60_000 } } });
  a = t.credentials;
  c = await createWorkspace(t);
  const created = await must(t.callW('/v2/workspace/apikey/create', { ownerEmail: 'second@example.com', type: 'testing' }));
  const tokens = await must(t.callW('/v2/workspace/authtokens/get', { apiKey: created.apiKey }));
  b = { apiKey: created.apiKey, authToken: tokens.authTokens[0].token };

  // A's rows of every shape, by generated valid calls of A itself (in an organization of their own: they
  // delete and change what they name)
  Object.assign(pools, {
    organizationId: ['gen-org'],
    documentId: ['gen-doc-1', 'gen-doc-2'],
    folderId: ['gen-fold'],
    parentFolderId: ['gen-fold'],
    userId: ['gen-ann', 'gen-bob'],
    groupId: ['gen-grp'],
    editorId: ['gen-e1'],
    agentId: ['gen-agent'],
    definitionId: ['gen-flow'],
  } satisfies Pools);
  // (not the key's settings: generated ones may refuse A's own user tokens, and deliveries to generated webhook
  // URLs would go on changing A's rows while B and C run)
  const seeding = apiKeyOps.filter((op) => !op.path.startsWith('/v2/workspace/'));
  for (let i = 0; i < 600; i++) {
    const op = seeding[i % seeding.length] as AnyOperation;
    await call(t.url, op.path, dataFor(op, SEED + 1_000_000 + i), apiKeyHeaders(a));
  }

  // A's data, explicitly: a text with the marker in every area that stores text; the same ids under B and C
  const ofA = await seed(a, MARK);
  secretOfA = ofA.endpointSecret;
  const ofB = await seed(b, 'text of B');
  const ofC = await seed(c, 'text of C');

  // the other keys' requests name A's ids, of both kinds
  arbitraries.clear();
  Object.assign(pools, {
    organizationId: [ORG, 'gen-org'],
    documentId: ['doc-1', 'doc-2', 'gen-doc-1'],
    folderId: ['fold-1', 'gen-fold'],
    parentFolderId: ['fold-1', 'gen-fold'],
    userId: ['ann', 'bob', 'gen-ann'],
    groupId: ['grp-1', 'gen-grp'],
    editorId: ['e1', 'gen-e1'],
    notificationId: [ofA.notificationId, ofB.notificationId, ofC.notificationId],
    annotationId: ['ann-1'],
    id: ['act-1'],
    activityId: ['act-1'],
    recordingId: ['rec-1'],
    agentId: ['agent-1', 'gen-agent'],
    definitionId: ['flow-1', 'gen-flow'],
    endpointId: [ofA.endpointId, ofB.endpointId, ofC.endpointId],
    // the workspace-level calls name A's key (and its workspace's second key)
    apiKey: [a.apiKey, b.apiKey],
    ownerEmail: ['owner@hearth.local', 'second@example.com'],
  } satisfies Pools);
  Object.assign(aim, {
    organizationId: [ORG],
    documentId: ['doc-1'],
    folderId: ['fold-1'],
    userId: ['ann'],
    groupId: ['grp-1'],
    editorId: ['e1'],
    notificationId: [ofA.notificationId],
    annotationId: ['ann-1'],
    id: ['act-1'],
    activityId: ['act-1'],
    recordingId: ['rec-1'],
    agentId: ['agent-1'],
    definitionId: ['flow-1'],
    endpointId: [ofA.endpointId],
    apiKey: [a.apiKey],
  } satisfies Pools);
}, 5 * 60_000);
afterAll(() => t?.close());

describe('tenant isolation: another API key sees and changes nothing of A', () => {
  it('keeps every row of A and every text of A from a second key of its workspace and from another workspace', async () => {
    // user tokens for the same user id ('ann', an editor under both keys), minted by A and by C
    const tokenOf = async (key: Key) => (await call(t.url, '/v2/auth/generate_token', { userId: 'ann' }, apiKeyHeaders(key))).body.result.data.token as string;
    const [tokenOfA, tokenOfC] = [await tokenOf(a), await tokenOf(c)];
    // A's own background work finished first (agent runs, user-data erasures, document migrations its generated
    // calls started), and its editor documents compacted: an idle document's update log is folded into its
    // snapshot ~30 s after its last change, which rewrites A's rows without changing A's content
    await eventually(() => expect(busyOfA()).toBe(0), 60_000, 100);
    t.server.app.crdt.flushAll();
    const before = rowsOfA();
    const forbidden = [MARK, a.authToken, a.workspaceAuthToken, secretOfA];
    const leaks: string[] = [];
    const answers = new Map<string, number>();
    const okByOp = new Map<string, number>();
    let sent = 0;
    const started = Date.now();
    // First the reads alone, while the other keys' own copies of A's ids all exist (their generated deletes and
    // changes would take away what a read must get past to reach the query that keeps A out); then everything.
    let phase: { apiKey: AnyOperation[]; workspace: AnyOperation[]; until: number } = { apiKey: apiKeyOps.filter(isRead), workspace: workspaceOps.filter(isRead), until: TOTAL / 2 };
    const worker = async () => {
      for (let n = sent++; n < phase.until; n = sent++) {
        // by turns: B's key, C's key, C's workspace credentials (workspace-level operations)
        const turn = n % 3;
        const ops = turn === 2 ? phase.workspace : phase.apiKey;
        // every operation in turn, each time with other generated data
        const op = ops[Math.floor(n / 3) % ops.length] as AnyOperation;
        const headers = turn === 0 ? apiKeyHeaders(b) : turn === 1 ? c.headersK : workspaceHeaders(c);
        const data = dataFor(op, SEED + n);
        const res = await fetch(t.url + op.path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ data }) });
        const text = await res.text();
        const who = ['B', 'C', 'C-workspace'][turn] as string;
        const status = res.status === 200 ? 'OK' : ((JSON.parse(text) as { error?: { status?: string } }).error?.status ?? `HTTP ${res.status}`);
        answers.set(`${who} ${status}`, (answers.get(`${who} ${status}`) ?? 0) + 1);
        if (res.status === 200) okByOp.set(op.path, (okByOp.get(op.path) ?? 0) + 1);
        for (const secret of forbidden) if (text.includes(secret)) leaks.push(`${who} ${op.path} ${JSON.stringify(data).slice(0, 300)} → ${text.slice(0, 300)}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    // B's key over y-websocket in A's room (while B's own copy is as seeded): B's document, and B's edit stays in it
    const client = connectYjs(t.url, room, b);
    try {
      await client.synced;
      expect(client.doc.getText('content').toString()).not.toContain(MARK);
      client.doc.getText('content').insert(0, 'written by B ');
      const own = await eventually(async () => {
        const stored = await call(t.url, '/v2/crdt/get', room, apiKeyHeaders(b));
        expect(stored.body.result.data[0]?.data ?? '').toContain('written by B');
        return stored.body.result.data[0].data as string;
      });
      expect(own).not.toContain(MARK);
    } finally {
      client.close();
    }
    // a user token minted by one key opens no room of another key
    const roomPath = `/yjs/${ORG}/doc-1/e1`;
    expect(await upgradeStatus(`${roomPath}?apiKey=${a.apiKey}&token=${tokenOfC}`)).toBe(403);
    expect(await upgradeStatus(`${roomPath}?apiKey=${c.apiKey}&token=${tokenOfA}`)).toBe(403);
    expect(await upgradeStatus(`${roomPath}?apiKey=${b.apiKey}&token=${tokenOfA}`)).toBe(403);
    expect(await upgradeStatus(`${roomPath}?apiKey=${a.apiKey}&token=${tokenOfA}`)).toBe(101);
    sent = phase.until;
    phase = { apiKey: apiKeyOps, workspace: workspaceOps, until: TOTAL };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    // A still reads its own document as it was
    const mine = await t.callK('/v2/crdt/get', room);
    expect(mine.body.result.data[0].data).toBe(MARK);
    const after = rowsOfA();
    const changed = Object.keys(before).filter((table) => before[table] !== after[table]);
    const seconds = (Date.now() - started) / 1000;
    const opsAnsweredOk = okByOp.size;
    console.log(
      [
        `isolation: ${TOTAL} requests of other keys naming A's ids in ${seconds.toFixed(0)} s (seed ${SEED}); ${Object.keys(before).length} tables of A compared; leaks: ${leaks.length}; tables of A changed: ${changed.length}`,
        `  answers: ${[...answers].sort((x, y) => y[1] - x[1]).map(([k, v]) => `${k}: ${v}`).join(', ')}`,
        `  operations answered 200 at least once: ${opsAnsweredOk} of ${apiKeyOps.length + workspaceOps.length}; never: ${[...apiKeyOps, ...workspaceOps].filter((op) => !okByOp.has(op.path)).map((op) => op.path).join(' ')}`,
        ...leaks.slice(0, 20).map((leak) => `  LEAK ${leak}`),
        ...changed.map((table) => `  CHANGED ${table}`),
      ].join('\n'),
    );
    expect(leaks).toEqual([]);
    expect(changed).toEqual([]);
    // the requests reached the handlers: most operations answered other keys with success at least once
    expect(opsAnsweredOk).toBeGreaterThan((apiKeyOps.length + workspaceOps.length) / 2);
  }, 20 * 60_000);
});
