// No half-done writes, generated from the registry: a request answered with an error envelope leaves the
// database as it was. One key is seeded in every area (helpers/tenants.ts); then valid requests generated from
// the schema of every API-key and workspace operation but the webhook ones (below), naming the seeded ids (three
// in four narrowed to them, so that they get past the existence checks into the handlers' own refusals) and ids
// of the request's own (which a call may create on its way, before a later step refuses it), go out one at a
// time, the operations in a new seeded order every round; whatever a generated delete took of the seeded rows is
// seeded again before the next request. After each error answer (and any background work, which an error must
// not have started), every row of hearth.db must be byte for byte what it was before the request; after a
// success, the next request is compared against the rows the success left, once the agent run or job it
// started is done. Reproduce a run with ATOMICITY_SEED=<seed printed> (ATOMICITY_REQUESTS sets the count).
//
// Left out, because they change hearth.db by themselves after an answer: the webhook operations and settings (a
// live endpoint's editor-document events reach the outbox seconds later, debounced; webhooks are turned off
// after each seeding), and the idle compaction of editor documents (`crdtIdleMs` of an hour). webhooks.db is
// written by the delivery worker all along and is not compared; the mail outbox is compared by its rows' ids
// (with an SMTP server configured, its delivery state changes after the answer).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyOperation } from '../../server/http/operation.ts';
import { operations } from '../../server/operations/index.ts';
import { apiKeyHeaders, eventually, startTestServer, workspaceHeaders, type TestServer } from '../helpers/server.ts';
import { busyOf, copyTables, missingSeeded, must, ORG, requestData, seededIds, seedTenant } from './helpers/tenants.ts';
import { sqliteEngineOf } from '../../server/db/repos/index.ts';

const TOTAL = Number(process.env.ATOMICITY_REQUESTS ?? 10_000);
const SEED = Number(process.env.ATOMICITY_SEED ?? Date.now() % 2 ** 31);

let t: TestServer;
let dataFor: ReturnType<typeof requestData>;
/** A second key of the workspace: the one the generated key-level calls (token resets, key updates) name. */
let otherKey: string;

/** Every row of hearth.db, as JSON text by table (the mail outbox by its rows' ids). */
const allRows = () => copyTables(join(t.dataDir, 'hearth.db'), (name) => (name === 'mail_outbox' ? { columns: 'id' } : {}));

/** The key's data in every area (again, over what is left, once a generated delete took some of it). */
async function seed(again = false) {
  const seeded = await seedTenant(t.url, t.credentials, 'seeded text', { again });
  await must(t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: false }));
  return seeded;
}

/**
 * The operations in an order of their own for each round (a seeded shuffle): in registry order, each delete
 * would always come right before the operations that need what it took.
 */
function roundOrder(ops: AnyOperation[], round: number): AnyOperation[] {
  let state = (SEED + round * 7_919) >>> 0 || 1;
  const next = () => (state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
  const order = [...ops];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j] as AnyOperation, order[i] as AnyOperation];
  }
  return order;
}

const settled = () => eventually(async () => expect(await busyOf(t, t.credentials.apiKey)).toBe(0), 30_000, 20);

beforeAll(async () => {
  // AI providers a generated agent or ask-AI call names are not reachable here: fail fast; no idle compaction
  // of editor documents (it rewrites their rows by itself) while the sweep runs
  t = await startTestServer({ aiTimeoutMs: 2_000, crdtIdleMs: 3_600_000, rateLimits: { workspaceOperations: { max: 1_000_000, windowMs: 60_000 } } });
  const seeded = await seed();
  otherKey = (await must<{ apiKey: string }>(t.callW('/v2/workspace/apikey/create', { ownerEmail: 'second@example.com', type: 'testing' }))).apiKey;
  // the seeded ids, and `fresh-…` ones that each request makes its own (what a call would create on its way)
  const ids = { ...seededIds(seeded, t.credentials.apiKey), apiKey: [otherKey] };
  const fresh = {
    organizationId: [ORG, 'fresh-org'],
    documentId: ['doc-1', 'fresh-doc'],
    folderId: ['fold-1', 'fresh-fold'],
    parentFolderId: ['fold-1', 'fresh-fold'],
    userId: ['ann', 'fresh-user'],
    groupId: ['grp-1', 'fresh-grp'],
    editorId: ['e1', 'fresh-editor'],
  };
  dataFor = requestData(
    { ...ids, ...fresh, documentId: ['doc-1', 'doc-2', 'fresh-doc'], userId: ['ann', 'bob', 'fresh-user'], ownerEmail: ['owner@hearth.local'] },
    { ...ids, ...fresh },
  );
}, 120_000);
afterAll(() => t?.close());

describe('no half-done writes: a refused request changes nothing', () => {
  it(
    'leaves every row as it was after each error answer, over every operation',
    async () => {
      const ops = operations.filter((op) => op.auth !== 'public' && !op.path.includes('webhook'));
      const started = Date.now();
      const findings: string[] = [];
      const answers = new Map<string, number>();
      const refusedBy = new Set<string>();
      const refusedInHandler = new Set<string>();
      console.log(`atomicity: seed ${SEED}`);
      let rows = allRows();
      let reseeded = 0;
      let order: AnyOperation[] = [];
      for (let n = 0; n < TOTAL; n++) {
        // every operation once a round, each time with other generated data
        if (n % ops.length === 0) order = roundOrder(ops, n / ops.length);
        const op = order[n % ops.length] as AnyOperation;
        if (missingSeeded(sqliteEngineOf(t.server.app.storage).main.sqlite, t.credentials.apiKey).length > 0) {
          reseeded++;
          await seed(true);
          rows = allRows();
        }
        const data = JSON.parse(JSON.stringify(dataFor(op, SEED + n)).replace(/"fresh-([a-z]+)"/g, `"fresh-$1-${n}"`)) as unknown;
        const headers = op.auth === 'workspace' ? workspaceHeaders(t.credentials) : apiKeyHeaders(t.credentials);
        const res = await fetch(t.url + op.path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ data }),
        });
        const text = await res.text();
        const status = res.status === 200 ? 'OK' : ((JSON.parse(text) as { error?: { status?: string } }).error?.status ?? `HTTP ${res.status}`);
        answers.set(status, (answers.get(status) ?? 0) + 1);
        if (res.status === 200) {
          // a success may start work that goes on after the answer: compare from where it ends
          await settled();
          rows = allRows();
          continue;
        }
        // never a 5xx, here as in the fuzzing (this sweep's requests get further into the handlers)
        if (res.status >= 500) {
          findings.push(`HTTP ${res.status} for ${op.path} ${JSON.stringify(data)} → ${text.slice(0, 200)}`);
          console.log(`atomicity: HTTP ${res.status} for request ${n}: ${op.path} ${JSON.stringify(data)}`);
        }
        refusedBy.add(op.path);
        // a refusal past the schema: the handler's own (what it found, or did not find, in the database)
        if (status !== 'INVALID_ARGUMENT' && status !== 'RESOURCE_EXHAUSTED') refusedInHandler.add(op.path);
        await settled();
        const after = allRows();
        const changed = Object.keys({ ...rows, ...after }).filter((table) => rows[table] !== after[table]);
        if (changed.length > 0) findings.push(`${op.path} ${JSON.stringify(data).slice(0, 300)} → ${text.slice(0, 200)}; changed: ${changed.join(', ')}`);
        rows = after;
      }
      const seconds = (Date.now() - started) / 1000;
      const refusals = TOTAL - (answers.get('OK') ?? 0);
      console.log(
        [
          `atomicity: ${TOTAL} requests over ${ops.length} operations in ${seconds.toFixed(0)} s (seed ${SEED}); ${refusals} error answers compared, by ${refusedBy.size} operations (${refusedInHandler.size} of them past the schema: not found, already there, a failed precondition); seeded again ${reseeded} times; half-done writes: ${findings.length}`,
          `  answers: ${[...answers]
            .sort((x, y) => y[1] - x[1])
            .map(([k, v]) => `${k}: ${v}`)
            .join(', ')}`,
          ...findings.slice(0, 20).map((finding) => `  FOUND ${finding}`),
        ].join('\n'),
      );
      expect(findings).toEqual([]);
      // the sweep reached the handlers' own refusals, not only the schemas', in many operations (43 of 86 in the runs of
      // 2026-11-24: reads mostly answer)
      expect(refusedInHandler.size).toBeGreaterThan(ops.length / 3);
      expect(answers.get('OK') ?? 0).toBeGreaterThan(TOTAL / 10);
    },
    20 * 60_000,
  );
});
