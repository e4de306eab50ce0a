/**
 * Which PostgreSQL and Redis client libraries the cluster engine (issue 31) uses, by measurement:
 * `npx tsx test/bench/pg-drivers.ts [pg] [redis]` (both by default).
 *
 * PostgreSQL: `pg` (node-postgres; unnamed statements, and named ones that each connection prepares once) against
 * `postgres` (porsager's; prepared, its default, and unprepared), on 10k notifications with 3 recipients each in a
 * throwaway server: a row by primary key, a keyset page of 50 with each row's recipients as a correlated JSON
 * subquery, a one-row insert in a transaction. Calls go through `pool.query({ text, values, name? })` and
 * `sql.unsafe(text, values, { prepare })`, the calls drizzle-orm's node-postgres and postgres-js sessions make.
 * Redis: `ioredis` against `redis` (node-redis), a PUBLISH reaching a SUBSCRIBE connection of the same process
 * with binary payloads (Yjs updates are Uint8Array), checked byte for byte.
 *
 * Each library's pool has CALLERS connections, driven by CALLERS concurrent callers for SECONDS a round; the
 * libraries take turns within every round (order rotated), ROUNDS rounds. Requests/s is the median of the rounds,
 * p50/p99 over every call of every round. The server, the libraries and this process share the machine's cores.
 *
 * Only the chosen libraries are the project's dependencies; all four are measured from a separate install outside
 * the repository (PG_BENCH_DIR, default /tmp/pgbench-hearth), so the lockfile holds only the winners.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { startPostgres, startRedis } from '../helpers/external-servers.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CALLERS = Number(process.env.BENCH_CALLERS ?? 8);
const NOTIFICATIONS = 10_000;
const BENCH_DIR = process.env.PG_BENCH_DIR ?? '/tmp/pgbench-hearth';
const VERSIONS = { pg: '8.23.1', postgres: '3.4.9', ioredis: '6.0.0', redis: '6.3.1' };

if (!existsSync(join(BENCH_DIR, 'node_modules'))) {
  const packages = Object.entries(VERSIONS).map(([name, version]) => `${name}@${version}`);
  console.error(
    `The libraries under test are installed outside the repository. Once:\n` +
      `  mkdir -p ${BENCH_DIR} && cd ${BENCH_DIR} && echo '{"private":true}' > package.json && npm install --save-exact ${packages.join(' ')}`,
  );
  process.exit(1);
}
const load = createRequire(join(BENCH_DIR, 'package.json'));
const installed = (name: string) => (JSON.parse(readFileSync(join(BENCH_DIR, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

// The few parts of each library this uses, typed here since they are loaded from outside the repository.
interface PgResult {
  rows: unknown[];
}
interface PgQueryable {
  query(query: { text: string; values: unknown[]; name?: string }): Promise<PgResult>;
}
interface PgClient extends PgQueryable {
  release(): void;
}
interface PgPool extends PgQueryable {
  connect(): Promise<PgClient>;
  end(): Promise<void>;
}
interface PostgresSql {
  unsafe(query: string, params?: unknown[], options?: { prepare?: boolean }): Promise<unknown[]>;
  begin<T>(fn: (sql: PostgresSql) => Promise<T>): Promise<T>;
  end(): Promise<void>;
}
interface IoRedis {
  publish(channel: string, message: Buffer): Promise<number>;
  subscribe(channel: string): Promise<unknown>;
  on(event: 'messageBuffer', listener: (channel: Buffer, message: Buffer) => void): void;
  quit(): Promise<unknown>;
}
interface NodeRedis {
  connect(): Promise<unknown>;
  duplicate(): NodeRedis;
  publish(channel: string, message: Buffer): Promise<number>;
  subscribe(channel: string, listener: (message: Buffer, channel: Buffer) => void, bufferMode: true): Promise<void>;
  close(): Promise<void>;
}
const pg = load('pg') as { Pool: new (config: { connectionString: string; max: number }) => PgPool };
const postgres = load('postgres') as (url: string, options: { max: number; prepare: boolean; onnotice: () => void }) => PostgresSql;
const { Redis } = load('ioredis') as { Redis: new (url: string) => IoRedis };
const { createClient } = load('redis') as { createClient(options: { url: string }): NodeRedis };

interface Measure {
  count: number;
  seconds: number;
  latencies: number[];
}

/** `callers` loops calling `call` for `seconds`; every call's latency in ms. */
async function drive(call: (caller: number, i: number) => Promise<void>, seconds: number, callers: number): Promise<Measure> {
  const latencies: number[] = [];
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: callers }, async (_, caller) => {
      for (let i = 0; performance.now() < end; i++) {
        const t = performance.now();
        await call(caller, i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { count: latencies.length, seconds: (performance.now() - start) / 1000, latencies };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

interface Contender {
  name: string;
  call: (caller: number, i: number) => Promise<void>;
}

/** Runs every contender ROUNDS times, in rotated order within each round, after a short warm-up each. */
async function compare(title: string, contenders: Contender[], callers = CALLERS): Promise<void> {
  const results = new Map(contenders.map((c) => [c.name, { rates: [] as number[], latencies: [] as number[] }]));
  for (const c of contenders) await drive(c.call, 0.5, callers);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const c = contenders[(k + round) % contenders.length]!;
      const m = await drive(c.call, SECONDS, callers);
      const r = results.get(c.name)!;
      r.rates.push(m.count / m.seconds);
      r.latencies.push(...m.latencies);
    }
  }
  console.log(`\n### ${title}\n`);
  console.log('| library | calls/s (median of rounds) | rounds | p50 ms | p99 ms |');
  console.log('|---|---:|---|---:|---:|');
  const best = Math.max(...[...results.values()].map((r) => median(r.rates)));
  for (const [name, r] of results) {
    const sorted = r.latencies.sort((a, b) => a - b);
    const rate = median(r.rates);
    console.log(
      `| ${name} | ${rate.toFixed(0)} (${((rate / best) * 100).toFixed(0)} %) | ${r.rates.map((x) => x.toFixed(0)).join(', ')} | ` +
        `${percentile(sorted, 50).toFixed(3)} | ${percentile(sorted, 99).toFixed(3)} |`,
    );
  }
}

const SCHEMA = `
CREATE TABLE notifications (
  api_key_id text NOT NULL, organization_id text NOT NULL, id text NOT NULL, document_id text NOT NULL,
  source text NOT NULL, action_user jsonb NOT NULL, headline_data jsonb, body text, resolver boolean NOT NULL,
  timestamp bigint NOT NULL,
  PRIMARY KEY (api_key_id, organization_id, id));
CREATE INDEX notifications_time ON notifications (api_key_id, organization_id, timestamp, id);
CREATE TABLE notification_recipients (
  api_key_id text NOT NULL, organization_id text NOT NULL, notification_id text NOT NULL, user_id text NOT NULL,
  document_id text NOT NULL, timestamp bigint NOT NULL, explicit boolean NOT NULL, read_at bigint,
  PRIMARY KEY (api_key_id, organization_id, notification_id, user_id),
  FOREIGN KEY (api_key_id, organization_id, notification_id) REFERENCES notifications ON DELETE CASCADE);
INSERT INTO notifications
  SELECT 'key1', 'org1', 'n' || lpad(i::text, 6, '0'), 'doc' || (i % 10), 'api',
    jsonb_build_object('userId', 'u' || (i % 50), 'name', 'User ' || (i % 50), 'email', 'u' || (i % 50) || '@example.com'),
    jsonb_build_object('title', 'Document ' || (i % 10), 'count', i), 'Body of notification ' || i, false,
    1700000000000 + i * 1000
  FROM generate_series(1, ${NOTIFICATIONS}) AS i;
INSERT INTO notification_recipients
  SELECT 'key1', 'org1', 'n' || lpad(i::text, 6, '0'), 'u' || ((i + k) % 50), 'doc' || (i % 10), 1700000000000 + i * 1000,
    k = 0, CASE WHEN k = 0 THEN 1700000000000 + i * 1000 + 500 END
  FROM generate_series(1, ${NOTIFICATIONS}) AS i, generate_series(0, 2) AS k;
ANALYZE;`;

const BY_ID = 'SELECT * FROM notifications WHERE api_key_id = $1 AND organization_id = $2 AND id = $3';
const PAGE = `SELECT n.*, (
    SELECT coalesce(json_agg(json_build_object('userId', r.user_id, 'readAt', r.read_at) ORDER BY r.user_id), '[]'::json)
    FROM notification_recipients r
    WHERE r.api_key_id = n.api_key_id AND r.organization_id = n.organization_id AND r.notification_id = n.id
  ) AS recipients
  FROM notifications n
  WHERE n.api_key_id = $1 AND n.organization_id = $2 AND (n.timestamp, n.id) < ($3, $4)
  ORDER BY n.timestamp DESC, n.id DESC LIMIT 50`;
const INSERT = `INSERT INTO notifications (api_key_id, organization_id, id, document_id, source, action_user, headline_data, body, resolver, timestamp)
  VALUES ($1, $2, $3, $4, 'api', $5, $6, $7, false, $8)`;

const randomNotification = () => 1 + Math.floor(Math.random() * NOTIFICATIONS);
const byIdValues = () => ['key1', 'org1', `n${String(randomNotification()).padStart(6, '0')}`];
/** A cursor inside the data's time range that leaves at least a page below it. */
const pageValues = () => {
  const i = 60 + Math.floor(Math.random() * (NOTIFICATIONS - 60));
  return ['key1', 'org1', 1700000000000 + i * 1000, `n${String(i).padStart(6, '0')}`];
};
let inserted = 0;
const insertValues = (who: string) => [
  'key1',
  'org1',
  `${who}-${++inserted}`,
  'doc1',
  JSON.stringify({ userId: 'u1', name: 'User 1' }),
  JSON.stringify({ title: 'Document 1' }),
  'A new notification',
  Date.now(),
];

function expectRows(rows: unknown[], n: number, what: string): void {
  if (rows.length !== n) throw new Error(`${what}: ${rows.length} rows, expected ${n}`);
}
function expectRecipients(rows: unknown[], what: string): void {
  expectRows(rows, 50, what);
  const recipients = (rows[0] as { recipients: unknown }).recipients;
  if (!Array.isArray(recipients) || recipients.length !== 3)
    throw new Error(`${what}: recipients not parsed as a 3-element array: ${JSON.stringify(recipients)}`);
}

async function benchPostgres(): Promise<void> {
  const server = await startPostgres();
  const seed = new pg.Pool({ connectionString: server.url, max: 1 });
  for (const statement of SCHEMA.split(';\n').filter((s) => s.trim())) await seed.query({ text: statement, values: [] });
  await seed.end();

  const pool = new pg.Pool({ connectionString: server.url, max: CALLERS });
  const sqlPrepared = postgres(server.url, { max: CALLERS, prepare: true, onnotice: () => {} });
  const sqlUnprepared = postgres(server.url, { max: CALLERS, prepare: false, onnotice: () => {} });

  const pgInsert = async (name: string | undefined) => {
    const client = await pool.connect();
    try {
      await client.query({ text: 'BEGIN', values: [] });
      await client.query({ text: INSERT, values: insertValues(name ?? 'pg'), ...(name ? { name } : {}) });
      await client.query({ text: 'COMMIT', values: [] });
    } catch (error) {
      await client.query({ text: 'ROLLBACK', values: [] });
      throw error;
    } finally {
      client.release();
    }
  };
  const postgresInsert = (sql: PostgresSql, prepare: boolean) => sql.begin((tx) => tx.unsafe(INSERT, insertValues(`postgres-${prepare}`), { prepare }));

  await compare(`PostgreSQL: one notification by primary key (${CALLERS} callers)`, [
    { name: 'pg, unnamed statements', call: async () => expectRows((await pool.query({ text: BY_ID, values: byIdValues() })).rows, 1, 'pg') },
    { name: 'pg, named statements', call: async () => expectRows((await pool.query({ name: 'by-id', text: BY_ID, values: byIdValues() })).rows, 1, 'pg') },
    { name: 'postgres, prepared', call: async () => expectRows(await sqlPrepared.unsafe(BY_ID, byIdValues(), { prepare: true }), 1, 'postgres') },
    { name: 'postgres, unprepared', call: async () => expectRows(await sqlUnprepared.unsafe(BY_ID, byIdValues(), { prepare: false }), 1, 'postgres') },
  ]);
  await compare(`PostgreSQL: a page of 50 with recipients as a JSON subquery (${CALLERS} callers)`, [
    { name: 'pg, unnamed statements', call: async () => expectRecipients((await pool.query({ text: PAGE, values: pageValues() })).rows, 'pg') },
    { name: 'pg, named statements', call: async () => expectRecipients((await pool.query({ name: 'page', text: PAGE, values: pageValues() })).rows, 'pg') },
    { name: 'postgres, prepared', call: async () => expectRecipients(await sqlPrepared.unsafe(PAGE, pageValues(), { prepare: true }), 'postgres') },
    { name: 'postgres, unprepared', call: async () => expectRecipients(await sqlUnprepared.unsafe(PAGE, pageValues(), { prepare: false }), 'postgres') },
  ]);
  await compare(`PostgreSQL: one insert in a transaction (${CALLERS} callers)`, [
    { name: 'pg, unnamed statements', call: () => pgInsert(undefined) },
    { name: 'pg, named statements', call: () => pgInsert('insert') },
    { name: 'postgres, prepared', call: () => postgresInsert(sqlPrepared, true).then(() => {}) },
    { name: 'postgres, unprepared', call: () => postgresInsert(sqlUnprepared, false).then(() => {}) },
  ]);

  await Promise.all([pool.end(), sqlPrepared.end(), sqlUnprepared.end()]);
  await server.stop();
}

/**
 * A publisher and a subscriber connection per library; each caller publishes a payload tagged with its id and
 * sequence number and waits until the subscriber has it, byte for byte.
 */
async function benchRedis(): Promise<void> {
  const server = await startRedis();
  const ioPub = new Redis(server.url);
  const ioSub = new Redis(server.url);
  const nodePub = createClient({ url: server.url });
  await nodePub.connect();
  const nodeSub = nodePub.duplicate();
  await nodeSub.connect();

  const contender = (size: number, name: string, subscribe: (onMessage: (m: Buffer) => void) => Promise<void>, publish: (m: Buffer) => Promise<number>) => {
    const waiting = new Map<string, { sent: Buffer; resolve: () => void; reject: (e: Error) => void }>();
    const ready = subscribe((message) => {
      const key = message.subarray(0, 8).toString('hex');
      const w = waiting.get(key);
      if (!w) return;
      waiting.delete(key);
      if (message.equals(w.sent)) w.resolve();
      else w.reject(new Error(`${name}: the payload arrived changed (${message.length} bytes, sent ${w.sent.length})`));
    });
    const payload = Buffer.alloc(size);
    for (let i = 8; i < size; i++) payload[i] = (i * 131 + 7) & 0xff; // every byte value, not valid UTF-8
    return {
      ready,
      call: async (caller: number, i: number) => {
        const sent = Buffer.from(payload);
        sent.writeUInt32BE(caller, 0);
        sent.writeUInt32BE(i, 4);
        const arrived = new Promise<void>((resolve, reject) => waiting.set(sent.subarray(0, 8).toString('hex'), { sent, resolve, reject }));
        await publish(sent);
        await arrived;
      },
    };
  };

  for (const [size, callers] of [
    [64, 1],
    [64, CALLERS],
    [4096, CALLERS],
  ] as const) {
    const channel = `room-${size}-${callers}`;
    const io = contender(
      size,
      'ioredis',
      async (onMessage) => {
        ioSub.on('messageBuffer', (from, message) => from.toString() === `io-${channel}` && onMessage(message));
        await ioSub.subscribe(`io-${channel}`);
      },
      (m) => ioPub.publish(`io-${channel}`, m),
    );
    const node = contender(
      size,
      'redis',
      (onMessage) => nodeSub.subscribe(`node-${channel}`, (message) => onMessage(message), true),
      (m) => nodePub.publish(`node-${channel}`, m),
    );
    await Promise.all([io.ready, node.ready]);
    await compare(
      `Redis: PUBLISH to a subscriber, ${size}-byte binary payloads (${callers} caller${callers > 1 ? 's' : ''}, one publishing and one subscribed connection)`,
      [
        { name: 'ioredis', call: io.call },
        { name: 'redis', call: node.call },
      ],
      callers,
    );
  }

  await Promise.all([ioPub.quit(), ioSub.quit(), nodePub.close(), nodeSub.close()]);
  await server.stop();
}

console.log(
  `## pg-drivers ${new Date().toISOString()}: ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(`pg ${installed('pg')}, postgres ${installed('postgres')}, ioredis ${installed('ioredis')}, redis ${installed('redis')} (from ${BENCH_DIR})`);
console.log(`${ROUNDS} rounds of ${SECONDS} s per library and scenario, ${CALLERS} callers; ${NOTIFICATIONS} notifications, 3 recipients each`);
const only = process.argv.slice(2);
if (only.length === 0 || only.includes('pg')) await benchPostgres();
if (only.length === 0 || only.includes('redis')) await benchRedis();
