// Crash: a child server under concurrent writes (notifications, CRDT over REST and over y-websocket, webhook
// events) is killed with SIGKILL at a random point, ten times. After each kill the database passes
// `PRAGMA integrity_check`; after each restart every acknowledged write is there; at the end every event of an
// acknowledged notification has reached the webhook receiver at least once.
//
// Acknowledged means: for REST, answered 200. For y-websocket, the protocol has no acknowledgement, so a change
// counts once a second client in the room (the observer) has received it: the server broadcasts an update only
// after it is committed to the update log (server/crdt/store.ts), so what the observer saw is on disk.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, eventually, resultOf } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';
import { integrityCheck, newDataDir, removeDataDir, startChild, type ChildServer } from './helpers/child.ts';
import { startFlakyReceiver, type FlakyReceiver } from './helpers/receiver.ts';

const ROUNDS = 10;
const NOTIFICATION_WRITERS = 4;
const REST_CRDT_WRITERS = 2;
const ENV = { WEBHOOK_RETRY_SCHEDULE_MS: '0,100,200,300,400,500,1000,1000,1000,1000,1000,1000' };
const ORG = 'crash-org';
const DOC = 'doc';
const WS_EDITOR = 'ws-editor';

/** crdt/get's data for the map editors written here: a REST writer's sequence number, the websocket client's keys. */
interface MapItem {
  data?: { seq?: number } & Record<string, unknown>;
}
/** notifications/get's items, as far as the test reads them. */
interface NotificationItem {
  id: string;
}
/** notifications/add's data. */
interface NotificationAdded {
  notificationId: string;
}

let dataDir: string;
let receiver: FlakyReceiver;
beforeAll(async () => {
  dataDir = newDataDir('crash');
  receiver = await startFlakyReceiver({ failureRate: 0.25, maxDelayMs: 60 });
});
afterAll(async () => {
  await receiver.close();
  removeDataDir(dataDir);
});

/** What the server acknowledged, kept across rounds. */
const acked = {
  notifications: new Map<string, number>(), // id -> round it was written in
  restCrdt: new Map<string, { last: number; inFlight: number | null }>(), // editorId -> sequence numbers
  wsKeys: new Set<string>(),
};
const killedAt: number[] = [];

async function setUp(server: ChildServer) {
  const ok = (res: { status: number; body: unknown }) => {
    if (res.status !== 200) throw new Error(`set-up failed: ${JSON.stringify(res.body)}`);
  };
  ok(await server.callK('/v2/organizations/documents/add', { organizationId: ORG, createOrganization: true, documents: [{ documentId: DOC }] }));
  ok(await server.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }));
  ok(await server.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: receiver.url, filterTypes: ['notification.add'] }));
  for (let w = 0; w < REST_CRDT_WRITERS; w++) {
    ok(await server.callK('/v2/crdt/add', { organizationId: ORG, documentId: DOC, editorId: `rest-${w}`, type: 'map', data: { seq: 0 } }));
    acked.restCrdt.set(`rest-${w}`, { last: 0, inFlight: null });
  }
  ok(await server.callK('/v2/crdt/add', { organizationId: ORG, documentId: DOC, editorId: WS_EDITOR, type: 'map', data: {} }));
}

/** Every acknowledged write is in the restarted server; returns what is missing (must be nothing). */
async function verify(server: ChildServer): Promise<string[]> {
  const missing: string[] = [];
  const stored = new Set<string>();
  let pageToken: string | undefined;
  do {
    const res = await server.callK('/v2/notifications/get', { organizationId: ORG, documentId: DOC, pageSize: 1000, ...(pageToken ? { pageToken } : {}) });
    expect(res.status).toBe(200);
    for (const n of dataOf<NotificationItem[]>(res)) stored.add(n.id);
    pageToken = resultOf(res).pageToken ?? undefined;
  } while (pageToken);
  for (const id of acked.notifications.keys()) if (!stored.has(id)) missing.push(`notification ${id}`);
  for (const [editorId, seqs] of acked.restCrdt) {
    const res = await server.callK('/v2/crdt/get', { organizationId: ORG, documentId: DOC, editorId });
    const seq = dataOf<MapItem[]>(res)[0]?.data?.seq;
    // the last acknowledged write, or the one in flight at the kill (committed but not answered)
    if (seq !== seqs.last && seq !== seqs.inFlight) missing.push(`${editorId}: seq ${seq}, acknowledged ${seqs.last}`);
  }
  const ws = await server.callK('/v2/crdt/get', { organizationId: ORG, documentId: DOC, editorId: WS_EDITOR });
  const wsData = dataOf<MapItem[]>(ws)[0]?.data ?? {};
  for (const key of acked.wsKeys) if (!(key in wsData)) missing.push(`websocket key ${key}`);
  return missing;
}

/** Runs the writers until the server dies; resolves once every writer has stopped. */
function startWriters(server: ChildServer, round: number) {
  let dead = false;
  let killing = false;
  const notificationWriter = async () => {
    while (!dead) {
      try {
        const res = await server.callK('/v2/notifications/add', {
          organizationId: ORG,
          documentId: DOC,
          actionUser: { userId: 'ann' },
          notifyUsers: [{ userId: 'bob' }],
          displayHeadlineMessageTemplate: '{actionUser} wrote',
          displayBodyMessage: `round ${round}`,
        });
        if (res.status !== 200) throw new Error(`notifications/add answered ${res.status}: ${JSON.stringify(res.body)}`);
        acked.notifications.set(dataOf<NotificationAdded>(res).notificationId, round);
      } catch (error) {
        // after the kill a refused or reset request ends the writer; before it, any failure is the test's
        if (!killing) throw error;
        return;
      }
    }
  };
  const restCrdtWriter = async (editorId: string) => {
    const seqs = acked.restCrdt.get(editorId)!;
    while (!dead) {
      const next = seqs.last + 1;
      seqs.inFlight = next;
      try {
        const res = await server.callK('/v2/crdt/update', { organizationId: ORG, documentId: DOC, editorId, type: 'map', data: { seq: next } });
        if (res.status !== 200) throw new Error(`crdt/update answered ${res.status}: ${JSON.stringify(res.body)}`);
        seqs.last = next;
        seqs.inFlight = null;
      } catch (error) {
        // after the kill a refused or reset request ends the writer; before it, any failure is the test's
        if (!killing) throw error;
        return;
      }
    }
  };
  const room = { organizationId: ORG, documentId: DOC, editorId: WS_EDITOR };
  const creds = { apiKey: server.credentials.apiKey, authToken: server.credentials.authToken };
  const writer = connectYjs(server.url, room, creds);
  const observer = connectYjs(server.url, room, creds);
  observer.doc.getMap('content').observe((event) => {
    for (const key of event.keysChanged) acked.wsKeys.add(key);
  });
  const wsWriter = async () => {
    await Promise.all([writer.synced, observer.synced]);
    const map = writer.doc.getMap('content');
    for (let i = 0; !dead; i++) {
      map.set(`r${round}-${i}`, i);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  };
  const running = Promise.all([
    ...Array.from({ length: NOTIFICATION_WRITERS }, notificationWriter),
    ...Array.from({ length: REST_CRDT_WRITERS }, (_, w) => restCrdtWriter(`rest-${w}`)),
    wsWriter(),
  ]);
  return {
    running,
    /** From now on a failed request is the kill's doing. */
    killing() {
      killing = true;
    },
    stop() {
      dead = true;
      writer.close();
      observer.close();
    },
  };
}

describe('crash: SIGKILL under concurrent writes', () => {
  it(`loses no acknowledged write in ${ROUNDS} kills, keeps the database intact and delivers pending webhooks`, async () => {
    const started = Date.now();
    let server = await startChild(dataDir, ENV);
    await setUp(server);
    const perRound: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const writers = startWriters(server, round);
      const before = { notifications: acked.notifications.size, ws: acked.wsKeys.size };
      // a random point once every kind of write is flowing
      // (a writer that fails while the server is up fails the test at once)
      await Promise.race([
        eventually(() => {
          expect(acked.notifications.size).toBeGreaterThan(before.notifications);
          expect(acked.wsKeys.size).toBeGreaterThan(before.ws);
        }, 20_000),
        writers.running.then(() => Promise.reject(new Error('the writers stopped before the kill'))),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 2_000));
      writers.killing();
      await server.kill();
      killedAt.push(Date.now());
      writers.stop();
      await writers.running;
      expect(integrityCheck(dataDir)).toBe('ok');
      server = await startChild(dataDir, ENV);
      expect(await verify(server)).toEqual([]);
      perRound.push(
        `round ${round}: ${acked.notifications.size - before.notifications} notifications, ${acked.wsKeys.size - before.ws} websocket updates acknowledged before the kill`,
      );
    }
    // every acknowledged notification's event reaches the receiver, those pending at a kill after the restart
    try {
      await eventually(
        () => {
          const delivered = new Set(
            receiver.deliveries
              .filter((d) => d.status === 200)
              .map((d) => (JSON.parse(d.body) as { data: { notification: { id: string } } }).data.notification.id),
          );
          const undelivered = [...acked.notifications.keys()].filter((id) => !delivered.has(id));
          expect(undelivered).toEqual([]);
        },
        120_000,
        250,
      );
    } finally {
      await server.stop();
    }
    expect(integrityCheck(dataDir)).toBe('ok');
    const firstSuccess = new Map<string, { at: number }>();
    for (const d of receiver.deliveries) {
      if (d.status !== 200) continue;
      const id = (JSON.parse(d.body) as { data: { notification: { id: string } } }).data.notification.id;
      if (!firstSuccess.has(id)) firstSuccess.set(id, d);
    }
    // an event written in round r and first delivered after that round's kill was pending across a crash
    const afterRestart = [...acked.notifications].filter(([id, round]) => firstSuccess.get(id)!.at > killedAt[round - 1]!).length;
    const restWrites = [...acked.restCrdt.values()].reduce((sum, s) => sum + s.last, 0);
    console.log(
      [
        `crash: ${ROUNDS} SIGKILLs in ${Math.round((Date.now() - started) / 1000)} s; lost = 0`,
        `  acknowledged: ${acked.notifications.size} notifications/add, ${restWrites} crdt/update (REST), ${acked.wsKeys.size} y-websocket updates`,
        `  webhooks: ${receiver.deliveries.length} attempts (${receiver.deliveries.filter((d) => d.status !== 200).length} answered 500), every one of the ${acked.notifications.size} events delivered; ${afterRestart} first went out after a restart`,
        `  integrity_check after every kill: ok`,
        ...perRound.map((line) => `  ${line}`),
      ].join('\n'),
    );
    expect(afterRestart).toBeGreaterThan(0);
  });
});
