// Tenant isolation, generated from the registry: what one API key stores is invisible to every other key and
// untouched by it. Key A (the server's own) is given data in every area, partly by explicit calls whose texts
// carry a marker, partly by generated valid calls; the other keys get the same ids with texts of their own, so
// that their calls get past the existence checks to the queries that must keep A's rows out. Then valid requests
// generated from every operation's schema, naming A's own ids (organizations, documents, users, annotations,
// notifications, agents, endpoints…), are sent with another key: B, a second key of A's own workspace, and C,
// the key of another workspace; the workspace-level operations go with C's workspace credentials, naming A's key.
// Every answer must be free of A's marker and of A's secrets (and an answer to B free of C's marker, an answer to
// C free of B's), and every row of A in both databases must be byte for byte what it was. Over y-websocket, a
// client with B's key in A's room gets B's own document, and a user token minted by one key opens no room of
// another.
//
// Two runs share this code: the long one of the reliability suite (test/reliability/isolation.test.ts, 20,000
// requests and a new seed each run) and the short one of `npm test` (test/api/tenant-isolation.test.ts, about
// 2,000 requests, a fixed seed, one request at a time so that the writes come in the same order every run).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyOperation } from '../../../server/http/operation.ts';
import { operations } from '../../../server/operations/index.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { apiKeyHeaders, call, eventually, startTestServer, workspaceHeaders, type TestServer } from '../../helpers/server.ts';
import { connectYjs, upgradeStatus as upgradeWebsocket } from '../../helpers/yjs.ts';
import type { Pools } from './arbitraries.ts';
import { sendOnceMore } from './requests.ts';
import { busyOf, changedTables, isRead, must, ORG, requestData, room, rowsOfKey, seededIds, seedTenant, sweepPools, type Key } from './tenants.ts';

export interface SweepOptions {
  /** Requests of the other keys: the first half reads only, the rest every operation. */
  total: number;
  seed: number;
  /** Requests in flight at once (1: the writes come in the same order every run). */
  concurrency: number;
  /** Requests between two seedings of B's and C's copies, once writes run. */
  round: number;
  /** Generated valid calls of A itself, before the sweep, that give A rows of every shape. */
  seedingCalls: number;
  /** How the test is named (and how its log lines start). */
  name: string;
  /** The test's own timeout. */
  timeoutMs: number;
}

/** In every text A stores on purpose; no answer to another key may hold it. */
const MARK = 'Q7-TENANT-A-PRIVATE';
/** B's and C's own texts: neither may see the other's either. */
const MARK_B = 'Q7-TENANT-B-PRIVATE';
const MARK_C = 'Q7-TENANT-C-PRIVATE';

/** Declares the sweep (its set-up, its test and its tear-down) in the calling test file. */
export function describeIsolationSweep(options: SweepOptions) {
  const { total, seed: SEED, concurrency, round, name } = options;
  let t: TestServer;
  let a: Key & { workspaceId: string; workspaceAuthToken: string };
  let b: Key;
  let c: Awaited<ReturnType<typeof createWorkspace>>;
  const pools: Record<string, string[]> = {};
  /** A's webhook endpoint's signing secret: as secret as its tokens. */
  let secretOfA: string;

  const apiKeyOps = operations.filter((op) => op.auth === 'apiKey');
  const workspaceOps = operations.filter((op) => op.auth === 'workspace');
  /** Generated request data; built again for the other keys' requests once A's ids are known. */
  let dataFor = requestData(pools);

  const upgradeStatus = (path: string) => upgradeWebsocket(t.url, path);
  const settled = (...keys: string[]) =>
    eventually(
      async () => {
        let busy = 0;
        for (const key of keys) busy += await busyOf(t, key);
        expect(busy).toBe(0);
      },
      60_000,
      100,
    );

  beforeAll(async () => {
    // AI providers a generated agent or ask-AI call names are not reachable here: fail fast
    t = await startTestServer({ aiTimeoutMs: 2_000, rateLimits: { workspaceOperations: { max: 1_000_000, windowMs: 60_000 } } });
    a = t.credentials;
    c = await createWorkspace(t);
    const created = await must<{ apiKey: string }>(t.callW('/v2/workspace/apikey/create', { ownerEmail: 'second@example.com', type: 'testing' }));
    const tokens = await must<{ authTokens: { token: string }[] }>(t.callW('/v2/workspace/authtokens/get', { apiKey: created.apiKey }));
    b = { apiKey: created.apiKey, authToken: (tokens.authTokens[0] as { token: string }).token };

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
    for (let i = 0; i < options.seedingCalls; i++) {
      const op = seeding[i % seeding.length] as AnyOperation;
      await call(t.url, op.path, dataFor(op, SEED + 1_000_000 + i), apiKeyHeaders(a));
    }

    // A's data, explicitly: a text with the marker in every area that stores text; the same ids under B and C
    const ofA = await seedTenant(t.url, a, MARK);
    secretOfA = ofA.endpointSecret;
    await seedTenant(t.url, b, MARK_B);
    await seedTenant(t.url, c, MARK_C);

    // the other keys' requests name A's ids, of both kinds (three in four narrowed to the seeded ones)
    Object.assign(
      pools,
      // the workspace-level calls name A's key (and its workspace's second key)
      sweepPools(ORG, { endpointId: [ofA.endpointId], apiKey: [a.apiKey, b.apiKey], ownerEmail: ['owner@hearth.local', 'second@example.com'] }),
    );
    dataFor = requestData(pools, { ...seededIds(ofA, a.apiKey), id: ['act-1'] });
  }, 5 * 60_000);
  afterAll(() => t?.close());

  describe('tenant isolation: another API key sees and changes nothing of A', () => {
    it(
      name,
      async () => {
        // user tokens for the same user id ('ann', an editor under both keys), minted by A and by C
        const tokenOf = async (key: Key) =>
          (await must<{ token: string }>(call(t.url, '/v2/auth/generate_token', { userId: 'ann' }, apiKeyHeaders(key)))).token;
        const [tokenOfA, tokenOfC] = [await tokenOf(a), await tokenOf(c)];
        // A's own background work finished first (agent runs, user-data erasures, document migrations its generated
        // calls started), and its editor documents compacted: an idle document's update log is folded into its
        // snapshot ~30 s after its last change, which rewrites A's rows without changing A's content
        await settled(a.apiKey);
        await t.server.app.crdt.flushAll();
        const before = await rowsOfKey(t, a.apiKey, a.workspaceId);
        console.log(`${name}: seed ${SEED}`);
        // A's texts (and its users' emails, made from the marker in lower case), tokens and webhook secret; to C also
        // B's token (C's workspace calls may name B's key); to each of B and C the other's texts
        const forbidden = [MARK, MARK.toLowerCase(), a.authToken, a.workspaceAuthToken, secretOfA];
        const forbiddenToB = [...forbidden, MARK_C, MARK_C.toLowerCase()];
        const forbiddenToC = [...forbidden, b.authToken, MARK_B, MARK_B.toLowerCase()];
        /** A's own answers, while only reads run, that the response cache kept with A's marker in them. */
        let keptForA = 0;
        const leaks: string[] = [];
        const serverErrors: string[] = [];
        /** Connections closed without an answer (each request is sent once more): the keep-alive race, not a finding. */
        const dropped: string[] = [];
        const answers = new Map<string, number>();
        const okByOp = new Map<string, number>();
        let sent = 0;
        const started = Date.now();
        // First the reads alone, while the other keys' own copies of A's ids all exist (their generated deletes and
        // changes would take away what a read must get past to reach the query that keeps A out); then everything.
        let phase: { reads: boolean; apiKey: AnyOperation[]; workspace: AnyOperation[]; until: number } = {
          reads: true,
          apiKey: apiKeyOps.filter(isRead),
          workspace: workspaceOps.filter(isRead),
          until: total / 2,
        };
        const worker = async () => {
          for (let n = sent++; n < phase.until; n = sent++) {
            // by turns: B's key, C's key, C's workspace credentials (workspace-level operations)
            const turn = n % 3;
            const ops = turn === 2 ? phase.workspace : phase.apiKey;
            // every operation in turn, each time with other generated data
            const op = ops[Math.floor(n / 3) % ops.length] as AnyOperation;
            const headers = turn === 0 ? apiKeyHeaders(b) : turn === 1 ? c.headersK : workspaceHeaders(c);
            const data = dataFor(op, SEED + n);
            const body = JSON.stringify({ data });
            // while only reads run, A asks the same first: an answer kept for A (the response cache) must not be
            // served to another key asking the same
            const who = ['B', 'C', 'C-workspace'][turn] as string;
            const send = (as: Record<string, string>) => async () => {
              const res = await fetch(t.url + op.path, { method: 'POST', headers: { 'content-type': 'application/json', ...as }, body });
              return { res, text: await res.text() };
            };
            const onDrop = (cause: string, again: boolean) => dropped.push(`${again ? 'again: ' : ''}${cause} for ${who} ${op.path}`);
            if (phase.reads && turn !== 2) {
              const own = await sendOnceMore(send(apiKeyHeaders(a)), onDrop);
              if (op.cache === 'read' && own?.text.includes(MARK)) keptForA++;
            }
            const answered = await sendOnceMore(send(headers), onDrop);
            if (answered === undefined) continue;
            const { res, text } = answered;
            const status = res.status === 200 ? 'OK' : ((JSON.parse(text) as { error?: { status?: string } }).error?.status ?? `HTTP ${res.status}`);
            answers.set(`${who} ${status}`, (answers.get(`${who} ${status}`) ?? 0) + 1);
            if (res.status === 200) okByOp.set(op.path, (okByOp.get(op.path) ?? 0) + 1);
            // never a 5xx (the fuzzing's rule; these requests get further into the handlers)
            if (res.status >= 500) serverErrors.push(`${who} ${op.path} ${JSON.stringify(data)} → ${text.slice(0, 200)}`);
            for (const secret of turn === 0 ? forbiddenToB : forbiddenToC)
              if (text.includes(secret)) leaks.push(`${who} ${op.path} ${JSON.stringify(data).slice(0, 300)} → ${text.slice(0, 300)}`);
          }
        };
        await Promise.all(Array.from({ length: concurrency }, worker));
        // B's key over y-websocket in A's room (while B's own copy is as seeded): B's document, and B's edit stays in it
        const client = connectYjs(t.url, room, b);
        try {
          await client.synced;
          expect(client.doc.getText('content').toString()).not.toContain(MARK);
          client.doc.getText('content').insert(0, 'written by B ');
          const own = await eventually(async () => {
            const stored = await must<{ data?: string }[]>(call(t.url, '/v2/crdt/get', room, apiKeyHeaders(b)));
            expect(stored[0]?.data ?? '').toContain('written by B');
            return stored[0]?.data ?? '';
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
        // then every operation, in rounds: B's and C's copies are seeded again before each (their own generated
        // deletes would otherwise leave their writes stopping at their own existence checks, short of the queries
        // that must keep to their key)
        for (let start = total / 2; start < total; start += round) {
          await seedTenant(t.url, b, MARK_B, { again: true });
          await seedTenant(t.url, c, MARK_C, { again: true });
          sent = start;
          phase = { reads: false, apiKey: apiKeyOps, workspace: workspaceOps, until: Math.min(start + round, total) };
          await Promise.all(Array.from({ length: concurrency }, worker));
        }
        // what B's and C's calls started (agent runs, jobs) has ended before A's rows are read again
        await settled(b.apiKey, c.apiKey);
        // A still reads its own document as it was
        const mine = await must<{ data?: string }[]>(t.callK('/v2/crdt/get', room));
        expect(mine[0]?.data).toBe(MARK);
        const after = await rowsOfKey(t, a.apiKey, a.workspaceId);
        const changed = changedTables(before, after);
        const seconds = (Date.now() - started) / 1000;
        const opsAnsweredOk = okByOp.size;
        console.log(
          [
            `${name}: ${total} requests of other keys naming A's ids in ${seconds.toFixed(0)} s (seed ${SEED}); ${Object.keys(before).length} tables of A compared (${Object.values(before).filter((rows) => rows !== '[]').length} with rows); leaks: ${leaks.length}; 5xx: ${serverErrors.length}; tables of A changed: ${changed.length}; A's cached reads with its marker, asked again by another key: ${keptForA}`,
            `  answers: ${[...answers]
              .sort((x, y) => y[1] - x[1])
              .map(([k, v]) => `${k}: ${v}`)
              .join(', ')}`,
            `  connections closed before an answer (each request sent once more): ${dropped.length}`,
            ...dropped.slice(0, 10).map((drop) => `  DROPPED ${drop}`),
            `  operations answered 200 at least once: ${opsAnsweredOk} of ${apiKeyOps.length + workspaceOps.length}; never: ${[...apiKeyOps, ...workspaceOps]
              .filter((op) => !okByOp.has(op.path))
              .map((op) => op.path)
              .join(' ')}`,
            ...leaks.slice(0, 20).map((leak) => `  LEAK ${leak}`),
            ...serverErrors.slice(0, 20).map((error) => `  5XX ${error}`),
            ...changed.map((table) => `  CHANGED ${table}`),
          ].join('\n'),
        );
        expect(leaks).toEqual([]);
        expect(serverErrors).toEqual([]);
        // a request dropped twice never reached the server's answer: the sweep would have a hole there
        expect(dropped.filter((drop) => drop.startsWith('again: '))).toEqual([]);
        expect(changed).toEqual([]);
        // the response cache was put to the test: answers kept for A, with A's marker, were asked for by other keys
        expect(keptForA).toBeGreaterThan(0);
        // the requests reached the handlers: most operations answered other keys with success at least once
        expect(opsAnsweredOk).toBeGreaterThan((apiKeyOps.length + workspaceOps.length) / 2);
      },
      options.timeoutMs,
    );
  });
}
