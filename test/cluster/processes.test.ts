// Issue 31: three Hearth instances as real processes (`node bin/hearth.mjs`, configured by the environment alone)
// over one PostgreSQL database and one Redis act as one server, proven through real HTTP and real y-websocket
// providers connected to different instances:
// - documents converge: concurrent edits on three instances end in one text everywhere, which is also what a
//   REST crdt/get answers on each instance;
// - presence crosses instances;
// - tenant isolation holds across instances: a short run of the isolation sweep's generated requests
//   (test/reliability/helpers), spread round-robin over the instances, between two workspaces' keys;
// - an instance killed with SIGKILL under mixed load (REST writes through all three, y-websocket edits on all
//   three) loses no acknowledged write: every one is read back through the survivors, and through the killed
//   instance once it is started again.
// (Work leased by an instance that dies and finished by the others: test/cluster/work.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../server/operations/index.ts';
import type { AnyOperation } from '../../server/http/operation.ts';
import { startProcessCluster, type ProcessCluster, type ProcessInstance } from '../helpers/cluster-processes.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { apiKeyHeaders, call, dataOf, eventually, resultOf, workspaceHeaders } from '../helpers/server.ts';
import { connectYjs, upgradeStatus } from '../helpers/yjs.ts';
import type { Pools } from '../reliability/helpers/arbitraries.ts';
import { sendOnceMore } from '../reliability/helpers/requests.ts';
import {
  busyOf,
  changedTables,
  isRead,
  type Key,
  must,
  ORG as ISO_ORG,
  pgRowsOfKey,
  requestData,
  room as isoRoom,
  seededIds,
  seedTenant,
  sweepPools,
} from '../reliability/helpers/tenants.ts';

let cluster: ProcessCluster;
let instances: ProcessInstance[];
const ORG = 'procs';
const DOC = 'doc';

beforeAll(async () => {
  cluster = await startProcessCluster(3, { env: { AI_TIMEOUT_MS: '2000' } });
  instances = cluster.instances;
  const first = instances[0] as ProcessInstance;
  await must(first.callK('/v2/organizations/documents/add', { organizationId: ORG, createOrganization: true, documents: [{ documentId: DOC }] }));
}, 120_000);
afterAll(() => cluster?.close(), 60_000);

const at = (n: number) => instances[n % instances.length] as ProcessInstance;
const keyOf = (i: ProcessInstance) => ({ apiKey: i.credentials.apiKey, authToken: i.credentials.authToken });
const roomOf = (editorId: string) => ({ organizationId: ORG, documentId: DOC, editorId });
type Client = ReturnType<typeof connectYjs>;

describe('three Hearth processes over one PostgreSQL and one Redis', () => {
  it('share one master key, one set of default credentials, and each answers /readyz', async () => {
    expect(new Set(instances.map((i) => JSON.stringify(i.credentials))).size).toBe(1);
    expect(new Set(instances.map((i) => i.pid())).size).toBe(3);
    for (const instance of instances) expect((await fetch(`${instance.url}/readyz`)).status).toBe(200);
  });

  it('documents converge: concurrent edits on three instances give one text, which crdt/get answers on each', async () => {
    const clients = instances.map((i) => connectYjs(i.url, roomOf('converge'), keyOf(i)));
    const text = (c: Client) => c.doc.getText('default');
    try {
      await Promise.all(clients.map((c) => c.synced));
      const EDITS = 40;
      // every client types at once, at places of its own choosing, without waiting for the others
      await Promise.all(
        clients.map(async (c, n) => {
          for (let e = 0; e < EDITS; e++) {
            const t = text(c);
            t.insert(Math.floor(Math.random() * (t.length + 1)), String.fromCharCode(97 + n));
            if (e % 4 === 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * 10));
          }
        }),
      );
      await eventually(() => {
        const texts = clients.map((c) => text(c).toString());
        expect(texts[0]?.length).toBe(3 * EDITS);
        expect(new Set(texts).size).toBe(1);
      }, 15_000);
      const final = text(clients[0] as Client).toString();
      for (const letter of ['a', 'b', 'c']) expect(final.split(letter).length - 1).toBe(EDITS);
      // what each instance answers over REST, once stored (the providers saw it, the store wrote it first)
      for (const instance of instances) {
        await eventually(async () => {
          const read = await instance.callK('/v2/crdt/get', roomOf('converge'));
          expect(read.status).toBe(200);
          expect(dataOf<Array<{ data: unknown }>>(read).map((editor) => editor.data)).toEqual([final]);
        }, 10_000);
      }
    } finally {
      for (const c of clients) c.close();
    }
  });

  it('presence crosses instances: each client sees the other two, whichever instance they are on', async () => {
    const clients = instances.map((i) => connectYjs(i.url, roomOf('presence'), keyOf(i)));
    try {
      await Promise.all(clients.map((c) => c.synced));
      for (const [n, c] of clients.entries()) c.provider.awareness.setLocalStateField('user', `user-${n}`);
      await eventually(() => {
        for (const c of clients) {
          const states = c.provider.awareness.getStates();
          for (const [n, other] of clients.entries()) expect((states.get(other.doc.clientID) as { user?: string } | undefined)?.user).toBe(`user-${n}`);
        }
      }, 10_000);
      // and leaves with its client
      const [gone, ...staying] = clients as [Client, Client, Client];
      gone.close();
      await eventually(() => {
        for (const c of staying) expect(c.provider.awareness.getStates().has(gone.doc.clientID)).toBe(false);
      }, 10_000);
    } finally {
      for (const c of clients) c.close();
    }
  });

  it("tenant isolation holds across instances: requests of one workspace naming the other one's ids, round-robin over the three", async () => {
    await isolationSweep();
  }, 120_000);

  it('an instance killed with SIGKILL under mixed load loses no acknowledged write', async () => {
    await killUnderLoad();
  }, 120_000);
});

/** In every text of A (the first workspace's key) and of C (the second's): no answer to one may hold the other's. */
const MARK_A = 'Q7-TENANT-A-PRIVATE';
const MARK_C = 'Q7-TENANT-C-PRIVATE';
/** Requests of the generated sweep: reads of both keys, then every operation of C (a fixed seed: the same each run). */
const SWEEP_READS = 150;
const SWEEP_WRITES = 240;
const SWEEP_SEED = 31_2026;
const SWEEP_CONCURRENCY = 3;
const SLOW_TO_GENERATE = new Set(['/v2/workspace/apikey/create', '/v2/workspace/domains/add', '/v2/workspace/domains/delete']);

/**
 * The isolation sweep's requests (test/reliability/helpers/isolation-sweep.ts, whose generator and seeding this
 * reuses), smaller, and sent to the three instances by turns. Two workspaces, A and C (made for the sweep), hold the
 * same ids; each key's reads name them, then C's key sends every operation (and C's workspace credentials the
 * workspace-level ones, naming A's key). No answer to one key may hold the other's texts or secrets, and no row of
 * A may change. A read of A is sent to the same instance just before C's: an answer an instance cached for A must
 * not be served to C. Over y-websocket, C's key in A's room on one instance gets C's document, and a user token
 * minted by one key opens no room of the other on any instance.
 */
async function isolationSweep() {
  // two workspaces of their own, made through different instances (the other tests' rooms, of the default key,
  // are compacted while this runs: A's rows must change by nothing but what C does)
  const workspaceThrough = (instance: ProcessInstance) =>
    createWorkspace({ url: instance.url, callPublic: (path, data, headers = {}) => call(instance.url, path, data, headers) });
  const a = await workspaceThrough(at(0));
  const c = await workspaceThrough(at(1));
  const first = at(2);
  // (not the three whose generated data takes seconds each to build: the key's and the domains' e-mail and host formats)
  const apiKeyOps = operations.filter((op) => op.auth === 'apiKey' && !SLOW_TO_GENERATE.has(op.path));
  const workspaceOps = operations.filter((op) => op.auth === 'workspace' && !SLOW_TO_GENERATE.has(op.path));
  // A's rows of every shape, by generated valid calls of A itself, spread over the instances (not the workspace
  // settings: deliveries to generated webhook URLs would go on changing A's rows)
  const pools: Pools = {
    organizationId: ['gen-org'],
    documentId: ['gen-doc-1'],
    folderId: ['gen-fold'],
    parentFolderId: ['gen-fold'],
    userId: ['gen-ann', 'gen-bob'],
    groupId: ['gen-grp'],
    editorId: ['gen-e1'],
    agentId: ['gen-agent'],
    definitionId: ['gen-flow'],
  };
  let dataFor = requestData(pools);
  const seeding = apiKeyOps.filter((op) => !op.path.startsWith('/v2/workspace/'));
  for (let i = 0; i < seeding.length; i++) {
    const op = seeding[i] as AnyOperation;
    await call(at(i).url, op.path, dataFor(op, SWEEP_SEED + 1_000_000 + i), apiKeyHeaders(a));
  }
  // A's and C's texts under the same ids, each written through another instance
  const ofA = await seedTenant(at(1).url, a, MARK_A);
  const ofC = await seedTenant(at(2).url, c, MARK_C);
  Object.assign(pools, sweepPools(ISO_ORG, { endpointId: [ofA.endpointId, ofC.endpointId], apiKey: [a.apiKey], ownerEmail: ['owner@hearth.local'] }));
  dataFor = requestData(pools, { ...seededIds(ofA, a.apiKey), id: ['act-1'] });

  // A's background work (agent runs, erasures, migrations its generated calls started) done before the copy
  await eventually(async () => expect(await busyOf(cluster, a.apiKey)).toBe(0), 60_000, 100);
  const before = await pgRowsOfKey(cluster, a.apiKey, a.workspaceId);

  const forbiddenToC = [MARK_A, MARK_A.toLowerCase(), a.authToken, a.workspaceAuthToken, ofA.endpointSecret];
  const forbiddenToA = [MARK_C, MARK_C.toLowerCase(), c.authToken, c.workspaceAuthToken, ofC.endpointSecret];
  const leaks: string[] = [];
  const serverErrors: string[] = [];
  const dropped: string[] = [];
  const okByOp = new Set<string>();
  const byInstance = [0, 0, 0];
  let keptForA = 0;
  let sent = 0;
  type Phase = { reads: boolean; until: number };
  const run = async (phase: Phase) => {
    const worker = async () => {
      for (let n = sent++; n < phase.until; n = sent++) {
        const instance = at(n);
        byInstance[instance.index]! += 1;
        // reads: A's key, C's key by turns; writes: C's key, C's workspace credentials by turns
        const turn = n % 2;
        const asA = phase.reads && turn === 0;
        const workspace = !phase.reads && turn === 1;
        const ops = workspace ? workspaceOps : apiKeyOps;
        const pool = phase.reads ? ops.filter(isRead) : ops;
        const op = pool[Math.floor(n / 2) % pool.length] as AnyOperation;
        const headers = asA ? apiKeyHeaders(a) : workspace ? workspaceHeaders(c) : apiKeyHeaders(c);
        const data = dataFor(op, SWEEP_SEED + n);
        const body = JSON.stringify({ data });
        const who = asA ? 'A' : workspace ? 'C-workspace' : 'C';
        const send = (as: Record<string, string>) => async () => {
          const res = await fetch(instance.url + op.path, { method: 'POST', headers: { 'content-type': 'application/json', ...as }, body });
          return { res, text: await res.text() };
        };
        const onDrop = (cause: string, again: boolean) => dropped.push(`${again ? 'again: ' : ''}${cause} for ${who} ${op.path}`);
        if (phase.reads && !asA) {
          // the same read of A first, on the same instance: its answer may be cached there
          const own = await sendOnceMore(send(apiKeyHeaders(a)), onDrop);
          if (op.cache === 'read' && own?.text.includes(MARK_A)) keptForA++;
        }
        const answered = await sendOnceMore(send(headers), onDrop);
        if (answered === undefined) continue;
        const { res, text } = answered;
        if (res.status === 200) okByOp.add(op.path);
        if (res.status >= 500) serverErrors.push(`${who} on ${instance.index} ${op.path} ${JSON.stringify(data)} → ${text.slice(0, 200)}`);
        for (const secret of asA ? forbiddenToA : forbiddenToC)
          if (text.includes(secret)) leaks.push(`${who} on ${instance.index} ${op.path} ${JSON.stringify(data).slice(0, 300)} → ${text.slice(0, 300)}`);
      }
    };
    await Promise.all(Array.from({ length: SWEEP_CONCURRENCY }, worker));
  };
  const started = Date.now();
  await run({ reads: true, until: SWEEP_READS });

  // over y-websocket: C's key in A's room, on each instance, gets C's document; tokens open no room of the other key
  const tokenOf = async (key: Key) => (await must<{ token: string }>(call(first.url, '/v2/auth/generate_token', { userId: 'ann' }, apiKeyHeaders(key)))).token;
  const [tokenOfA, tokenOfC] = [await tokenOf(a), await tokenOf(c)];
  for (const instance of instances) {
    const client = connectYjs(instance.url, isoRoom, { apiKey: c.apiKey, authToken: c.authToken });
    try {
      await client.synced;
      expect(client.doc.getText('content').toString()).toBe(MARK_C);
    } finally {
      client.close();
    }
    const path = `/yjs/${ISO_ORG}/doc-1/e1`;
    expect(await upgradeStatus(instance.url, `${path}?apiKey=${a.apiKey}&token=${tokenOfC}`)).toBe(403);
    expect(await upgradeStatus(instance.url, `${path}?apiKey=${c.apiKey}&token=${tokenOfA}`)).toBe(403);
    expect(await upgradeStatus(instance.url, `${path}?apiKey=${a.apiKey}&token=${tokenOfA}`)).toBe(101);
  }

  await run({ reads: false, until: SWEEP_READS + SWEEP_WRITES });
  await eventually(async () => expect(await busyOf(cluster, c.apiKey)).toBe(0), 60_000, 100);
  for (const instance of instances) {
    const mine = await must<{ data?: string }[]>(call(instance.url, '/v2/crdt/get', isoRoom, apiKeyHeaders(a)));
    expect(mine[0]?.data).toBe(MARK_A);
  }
  const after = await pgRowsOfKey(cluster, a.apiKey, a.workspaceId);
  const changed = changedTables(before, after);
  console.log(
    [
      `cluster isolation: ${SWEEP_READS + SWEEP_WRITES} requests (seed ${SWEEP_SEED}) in ${((Date.now() - started) / 1000).toFixed(1)} s, per instance ${byInstance.join('/')}; ` +
        `${Object.keys(before).length} tables of A compared; leaks ${leaks.length}; 5xx ${serverErrors.length}; changed ${changed.length}; ` +
        `A's cached reads asked again by C: ${keptForA}; operations answered 200: ${okByOp.size}; dropped: ${dropped.length}`,
      ...leaks.slice(0, 20).map((leak) => `  LEAK ${leak}`),
      ...serverErrors.slice(0, 20).map((error) => `  5XX ${error}`),
      ...changed.map((table) => `  CHANGED ${table}`),
    ].join('\n'),
  );
  expect(leaks).toEqual([]);
  expect(serverErrors).toEqual([]);
  expect(dropped.filter((drop) => drop.startsWith('again: '))).toEqual([]);
  expect(changed).toEqual([]);
  // the requests reached the handlers and the caches: not refusals at the door
  expect(keptForA).toBeGreaterThan(0);
  expect(okByOp.size).toBeGreaterThan((apiKeyOps.length + workspaceOps.length) / 3);
}

/** crdt/get's data of a map editor. */
type MapData = { seq?: number } & Record<string, unknown>;
const KILL_ORG = 'kill-org';
const KILL_DOC = 'kill-doc';
const WS_EDITOR = 'ws-map';
const VICTIM = 1;

/**
 * Mixed load through all three instances: notifications/add (two writers per instance), crdt/update of a map editor
 * of its own per instance (sequence numbers), and y-websocket edits of one map from a client on each instance. The
 * middle instance is killed with SIGKILL while all of it runs; the writers of the survivors go on a while, then stop.
 *
 * Acknowledged: a REST write answered 200, through any instance. Over y-websocket, which has no acknowledgement: every
 * edit of a client connected to a surviving instance (the survivor stores it; nothing of it depended on the killed
 * one). Every acknowledged write must be read back through both survivors, and through the killed instance once it
 * is started again. A crdt/update in flight to the killed instance may or may not have been committed: its editor
 * holds the last acknowledged sequence number or the one in flight.
 */
async function killUnderLoad() {
  const first = at(0);
  await must(first.callK('/v2/organizations/documents/add', { organizationId: KILL_ORG, createOrganization: true, documents: [{ documentId: KILL_DOC }] }));
  const killRoom = (editorId: string) => ({ organizationId: KILL_ORG, documentId: KILL_DOC, editorId });
  for (const instance of instances) await must(first.callK('/v2/crdt/add', { ...killRoom(`rest-${instance.index}`), type: 'map', data: { seq: 0 } }));
  await must(first.callK('/v2/crdt/add', { ...killRoom(WS_EDITOR), type: 'map', data: {} }));

  const victim = at(VICTIM);
  const acked = {
    notifications: new Set<string>(),
    rest: instances.map(() => ({ last: 0, inFlight: null as number | null })),
    wsKeys: new Set<string>(),
  };
  let killed = false;
  let stopping = false;
  const failures: string[] = [];
  /** A failed request: the kill's doing when it went to the killed instance after the kill; else the test's. */
  const failed = (instance: ProcessInstance, what: string) => {
    if (instance === victim && killed) return true;
    failures.push(`${what} on instance ${instance.index}`);
    return true;
  };
  /** A write, acknowledged once answered 200; any other answer fails the test (unless its instance was killed). */
  const send = async (instance: ProcessInstance, path: string, data: unknown) => {
    const res = await instance.callK<unknown>(path, data);
    if (res.status !== 200) throw new Error(`answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res;
  };
  const notificationWriter = async (instance: ProcessInstance, w: number) => {
    for (let i = 0; !stopping; i++) {
      const notificationId = `n-${instance.index}-${w}-${i}`;
      try {
        await send(instance, '/v2/notifications/add', {
          organizationId: KILL_ORG,
          documentId: KILL_DOC,
          notificationId,
          // users of each writer's own
          actionUser: { userId: `author-${instance.index}-${w}` },
          notifyUsers: [{ userId: `reader-${instance.index}-${w}` }],
          displayHeadlineMessageTemplate: '{actionUser} wrote',
          displayBodyMessage: notificationId,
        });
        acked.notifications.add(notificationId);
      } catch (error) {
        if (failed(instance, `notifications/add: ${error}`)) return;
      }
    }
  };
  const restCrdtWriter = async (instance: ProcessInstance) => {
    const seqs = acked.rest[instance.index]!;
    while (!stopping) {
      const next = seqs.last + 1;
      seqs.inFlight = next;
      try {
        await send(instance, '/v2/crdt/update', { ...killRoom(`rest-${instance.index}`), type: 'map', data: { seq: next } });
        seqs.last = next;
        seqs.inFlight = null;
      } catch (error) {
        if (failed(instance, `crdt/update: ${error}`)) return;
      }
    }
  };
  const clients = instances.map((i) => connectYjs(i.url, killRoom(WS_EDITOR), keyOf(i)));
  await Promise.all(clients.map((c) => c.synced));
  const typed = instances.map(() => [] as string[]);
  const wsWriter = async (n: number) => {
    const map = (clients[n] as Client).doc.getMap('content');
    for (let i = 0; !stopping && !(n === VICTIM && killed); i++) {
      const key = `c${n}-${i}`;
      map.set(key, i);
      typed[n]!.push(key);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const running = Promise.all([
    ...instances.flatMap((i) => [notificationWriter(i, 0), notificationWriter(i, 1), restCrdtWriter(i)]),
    ...instances.map((_, n) => wsWriter(n)),
  ]);

  // the kill, once every kind of write flows through every instance
  await eventually(() => {
    expect(acked.notifications.size).toBeGreaterThan(30);
    for (const seqs of acked.rest) expect(seqs.last).toBeGreaterThan(5);
    for (const keys of typed) expect(keys.length).toBeGreaterThan(20);
  }, 20_000);
  expect(failures).toEqual([]);
  const atKill = acked.notifications.size;
  killed = true;
  await victim.kill();
  (clients[VICTIM] as Client).close();
  // the survivors go on taking writes
  await eventually(() => expect(acked.notifications.size).toBeGreaterThan(atKill + 60), 20_000);
  stopping = true;
  await running;
  expect(failures).toEqual([]);
  for (const [n, client] of clients.entries()) if (n !== VICTIM) client.close();
  const wsAcked = typed.filter((_, n) => n !== VICTIM).flat();

  const missingThrough = async (instance: ProcessInstance): Promise<string[]> => {
    const missing: string[] = [];
    const stored = new Set<string>();
    let pageToken: string | undefined;
    do {
      const res = await instance.callK('/v2/notifications/get', {
        organizationId: KILL_ORG,
        documentId: KILL_DOC,
        pageSize: 1000,
        ...(pageToken ? { pageToken } : {}),
      });
      expect(res.status).toBe(200);
      for (const n of dataOf<{ id: string }[]>(res)) stored.add(n.id);
      pageToken = resultOf(res).pageToken ?? undefined;
    } while (pageToken);
    for (const id of acked.notifications) if (!stored.has(id)) missing.push(`notification ${id}`);
    for (const [n, seqs] of acked.rest.entries()) {
      const res = await instance.callK('/v2/crdt/get', killRoom(`rest-${n}`));
      const seq = dataOf<{ data?: MapData }[]>(res)[0]?.data?.seq;
      if (seq !== seqs.last && seq !== seqs.inFlight) missing.push(`rest-${n}: seq ${seq}, acknowledged ${seqs.last}`);
    }
    const ws = await instance.callK('/v2/crdt/get', killRoom(WS_EDITOR));
    const wsData = dataOf<{ data?: MapData }[]>(ws)[0]?.data ?? {};
    for (const key of wsAcked) if (!(key in wsData)) missing.push(`websocket key ${key}`);
    return missing;
  };
  // the survivors' y-websocket edits are stored as they arrive (batched): read until the store has caught up
  for (const n of [0, 2]) await eventually(async () => expect(await missingThrough(at(n))).toEqual([]), 15_000, 200);
  await victim.restart();
  expect(await missingThrough(victim)).toEqual([]);
  console.log(
    `cluster kill: ${acked.notifications.size} notifications (${atKill} before the kill), ${acked.rest.map((s) => s.last).join('/')} crdt updates per instance, ` +
      `${wsAcked.length} websocket edits on the survivors (${typed[VICTIM]!.length} on the killed one) acknowledged; none missing through the survivors or the restarted instance`,
  );
}
