// Write floor: raw better-sqlite3 inserts (test/bench/raw-write-floor.ts, same schema and pragmas, own process)
// vs /v2/users/add with 1,000 users per request, and vs /v2/notifications/add and /v2/commentannotations/add (a new
// thread with one comment) under concurrency 50.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  authHeaders,
  DURATION,
  initDataDir,
  load,
  notificationAddBody,
  percentile,
  threadAddBody,
  runScript,
  startChild,
  stopChild,
  type Row,
} from '../harness.ts';

export const title = 'Write floor: raw SQLite inserts vs users/add (1,000 users a request), notifications/add and commentannotations/add';

const USERS_PER_REQUEST = 1000;
/** Each users/add request carries 1,000 users (~70 KB): a few in flight keep SQLite's single writer busy. */
const BULK_IN_FLIGHT = 4;
const NOTIFY_CONNECTIONS = 50;

/**
 * Requests of 1,000 users for DURATION seconds with BULK_IN_FLIGHT at a time, timed until the last one answers:
 * a request can take a second on a busy machine, which a fixed-length autocannon run would cut off uncounted.
 */
async function bulkLoad(url: string, nextBody: () => string, headers: Record<string, string>) {
  const send = async () => {
    const t0 = performance.now();
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: nextBody() });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`users/add: ${res.status} ${text.slice(0, 300)}`);
    return performance.now() - t0;
  };
  await Promise.all(Array.from({ length: BULK_IN_FLIGHT }, send)); // warm-up
  const times: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: BULK_IN_FLIGHT }, async () => {
      while (performance.now() - started < DURATION * 1000) times.push(await send());
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  return { rps: times.length / seconds, p50: Math.round(percentile(times, 50)), p99: Math.round(percentile(times, 99)) };
}

export async function run(): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-write-'));
  try {
    const creds = await initDataDir(dataDir);
    const file = join(dataDir, 'hearth.db');
    const rawUsers = await runScript<{ perSecond: number }>(['test/bench/raw-write-floor.ts', 'users', file, creds.apiKey, String(DURATION)]);
    const rawNotifications = await runScript<{ perSecond: number }>(['test/bench/raw-write-floor.ts', 'notifications', file, creds.apiKey, String(DURATION)]);
    const rawThreads = await runScript<{ perSecond: number }>(['test/bench/raw-write-floor.ts', 'comments', file, creds.apiKey, String(DURATION)]);

    const server = await startChild(['server/cli.ts', '--port', '0', '--data-dir', dataDir]);
    try {
      let nextUser = 0;
      const usersBody = () =>
        JSON.stringify({
          data: {
            organizationId: 'bulk',
            users: Array.from({ length: USERS_PER_REQUEST }, () => {
              const userId = `bulk-user-${nextUser++}`;
              return { userId, name: `User ${nextUser}`, email: `${userId}@example.com` };
            }),
          },
        });
      const bulk = await bulkLoad(server.url + '/v2/users/add', usersBody, authHeaders(creds));

      const notifyBody = notificationAddBody('notify');
      const notify = await load(server.url, '/v2/notifications/add', notifyBody, authHeaders(creds), { connections: NOTIFY_CONNECTIONS });
      const threadBody = threadAddBody('threads');
      const threads = await load(server.url, '/v2/commentannotations/add', threadBody, authHeaders(creds), { connections: NOTIFY_CONNECTIONS });

      const rawUsersRow = 'floor: raw inserts, 1,000 users (users + membership rows) per transaction';
      const rawNotificationsRow = 'floor: raw inserts, one notification (notification + recipient rows) per transaction';
      return [
        { scenario: rawUsersRow, rps: rawUsers.perSecond, p50: 0, p99: 0, unit: 'users/s' },
        {
          scenario: `/v2/users/add, ${USERS_PER_REQUEST.toLocaleString('en-US')} new users per request, ${BULK_IN_FLIGHT} in flight`,
          rps: bulk.rps * USERS_PER_REQUEST,
          unit: 'users/s',
          p50: bulk.p50,
          p99: bulk.p99,
          vs: `${bulk.rps.toFixed(1)} requests/s`,
          baseline: { scenario: 'raw floor', figure: rawUsers.perSecond },
          goal: { kind: 'ratio>=', value: 0.5 },
        },
        { scenario: rawNotificationsRow, rps: rawNotifications.perSecond, p50: 0, p99: 0, unit: 'notifications/s' },
        {
          scenario: `/v2/notifications/add, one recipient, ${NOTIFY_CONNECTIONS} connections`,
          rps: notify.rps,
          unit: 'notifications/s',
          p50: notify.p50,
          p99: notify.p99,
          baseline: { scenario: 'raw floor', figure: rawNotifications.perSecond },
        },
        {
          scenario: 'floor: raw inserts, one thread (annotation, comment, read mark, activity, judgment rows) per transaction',
          rps: rawThreads.perSecond,
          p50: 0,
          p99: 0,
          unit: 'threads/s',
        },
        {
          scenario: `/v2/commentannotations/add, one annotation with one comment, ${NOTIFY_CONNECTIONS} connections`,
          rps: threads.rps,
          unit: 'threads/s',
          p50: threads.p50,
          p99: threads.p99,
          baseline: { scenario: 'raw floor', figure: rawThreads.perSecond },
        },
      ];
    } finally {
      await stopChild(server.child);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
