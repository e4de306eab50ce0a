import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  findPostgresBinDir,
  findRedisServer,
  portIsOpen,
  processExists,
  startPostgres,
  startRedis,
  type ThrowawayPostgres,
  type ThrowawayRedis,
} from '../helpers/external-servers.ts';
import setup from '../helpers/external-servers-setup.ts';
import { freshTestDatabase } from '../helpers/pg-database.ts';

// Issue 31's engine and cluster suites start these servers; here, that they start, answer through the chosen
// client libraries (pg, ioredis: BENCHMARKS.md, issue 31) and leave nothing behind. Nothing is skipped when a
// binary is missing: the test fails naming the Debian package, which .ci/run installs.

const gone = { timeout: 15_000, interval: 20 };
const started: (ThrowawayPostgres | ThrowawayRedis)[] = [];
afterAll(() => Promise.all(started.map((s) => s.stop())));

/** Every byte value, as a Yjs update is bytes rather than text. */
const BINARY = Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 7) % 256));

async function expectPostgresAnswers(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const settings = await client.query<{ address: string; fsync: string; database: string }>(
      "SELECT host(inet_server_addr()) AS address, current_setting('fsync') AS fsync, current_database() AS database",
    );
    expect(settings.rows).toEqual([{ address: '127.0.0.1', fsync: 'off', database: new URL(url).pathname.slice(1) }]);
    await client.query('CREATE TABLE updates (id serial PRIMARY KEY, room text NOT NULL, body bytea NOT NULL, meta jsonb NOT NULL)');
    await client.query({ name: 'insert-update', text: 'INSERT INTO updates (room, body, meta) VALUES ($1, $2, $3)', values: ['room 1', BINARY, { by: 'ü' }] });
    const rows = await client.query<{ room: string; body: Buffer; meta: unknown }>('SELECT room, body, meta FROM updates');
    expect(rows.rows).toEqual([{ room: 'room 1', body: BINARY, meta: { by: 'ü' } }]);
  } finally {
    await client.end();
  }
}

async function expectRedisRelays(url: string): Promise<void> {
  const publisher = new Redis(url);
  const subscriber = new Redis(url);
  try {
    expect(await publisher.config('GET', 'save')).toEqual(['save', '']);
    expect(await publisher.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
    expect(await publisher.config('GET', 'bind')).toEqual(['bind', '127.0.0.1']);
    const received = new Promise<[string, Buffer]>((resolve) =>
      subscriber.on('messageBuffer', (channel: Buffer, message: Buffer) => resolve([channel.toString(), message])),
    );
    await subscriber.subscribe('room:org/doc');
    expect(await publisher.publish('room:org/doc', BINARY)).toBe(1);
    expect(await received).toEqual(['room:org/doc', BINARY]);
  } finally {
    await Promise.all([publisher.quit(), subscriber.quit()]);
  }
}

describe('throwaway PostgreSQL and Redis (issue 31)', () => {
  it('finds the server binaries (Debian packages postgresql and redis-server)', () => {
    expect(existsSync(join(findPostgresBinDir(), 'postgres'))).toBe(true);
    expect(existsSync(findRedisServer())).toBe(true);
  });

  it('starts both on 127.0.0.1, answers through pg and ioredis, and stops them: processes gone, ports closed, dirs removed', async () => {
    const [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
    started.push(postgres, redis);
    expect(new URL(postgres.url).hostname).toBe('127.0.0.1');
    expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
    await expectPostgresAnswers(postgres.url);
    await expectPostgresAnswers(await postgres.createDatabase('second'));
    await expectRedisRelays(redis.url);

    await Promise.all([postgres.stop(), redis.stop()]);
    for (const server of [postgres, redis]) {
      expect(processExists(server.pid)).toBe(false);
      expect(await portIsOpen(server.port)).toBe(false);
      expect(existsSync(server.dir)).toBe(false);
    }
  });

  it('stops the servers of a process that dies without stopping them (SIGKILL)', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'servers-child.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const servers = await new Promise<{ pid: number; port: number; dir: string }[]>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(JSON.parse(out));
      });
      child.once('exit', (code) => reject(new Error(`the child exited (${code}) before starting its servers`)));
    });
    expect(servers).toHaveLength(2);
    for (const server of servers) {
      expect(processExists(server.pid)).toBe(true);
      expect(await portIsOpen(server.port)).toBe(true);
    }
    child.kill('SIGKILL');
    for (const server of servers) {
      await vi.waitFor(() => expect(processExists(server.pid)).toBe(false), gone);
      await vi.waitFor(() => expect(existsSync(server.dir)).toBe(false), gone);
      expect(await portIsOpen(server.port)).toBe(false);
    }
  });

  it('globalSetup: one of each for a whole run, given to workers by provide() and the environment (never as DATABASE_URL), stopped by its teardown', async () => {
    const names = ['DATABASE_URL', 'REDIS_URL', 'HEARTH_TEST_POSTGRES', 'HEARTH_TEST_REDIS'] as const;
    const before = Object.fromEntries(names.map((name) => [name, process.env[name]]));
    for (const name of names) delete process.env[name];
    try {
      const provided: Record<string, unknown> = {};
      const teardown = await setup({ provide: (key: string, value: unknown) => void (provided[key] = value) } as Parameters<typeof setup>[0]);
      expect(provided).toEqual({ databaseUrl: process.env.HEARTH_TEST_POSTGRES, redisUrl: process.env.HEARTH_TEST_REDIS });
      // servers a test starts read DATABASE_URL: left unset, so that each gets a database of its own
      expect(process.env.DATABASE_URL).toBeUndefined();
      await expectPostgresAnswers(String(provided.databaseUrl));
      await expectRedisRelays(String(provided.redisUrl));
      // the template test databases are copied from is there, migrated
      const copy = await freshTestDatabase(String(provided.databaseUrl));
      const client = new pg.Client({ connectionString: copy.url });
      await client.connect();
      expect((await client.query("SELECT to_regclass('public.notifications') IS NOT NULL AS present")).rows[0]).toEqual({ present: true });
      await client.end();
      await copy.drop();
      await teardown();
      expect(process.env.HEARTH_TEST_POSTGRES).toBeUndefined();
      for (const url of [String(provided.databaseUrl), String(provided.redisUrl)]) expect(await portIsOpen(Number(new URL(url).port))).toBe(false);
    } finally {
      Object.assign(process.env, before);
      for (const [name, value] of Object.entries(before)) if (value === undefined) delete process.env[name];
    }
  });
});
