import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../server/index.ts';
import { freePort, portIsOpen } from '../helpers/external-servers.ts';
import { dataOf, startTestServer } from '../helpers/server.ts';

// README "Run as a cluster" followed literally: scripts/cluster-try.sh starts a PostgreSQL and a Redis of one's own
// (as root here, as the postgres user: PostgreSQL refuses root, and the script says so), makes the role and the
// database, and prints the variables a cluster's instances take; a Hearth started with them works. A database the
// role may not use is refused with the cause, and leaves nothing behind.

const run = promisify(execFile);

/** What a failed start says, its causes included (the CLI prints the innermost: bin/hearth.mjs). */
async function refusal(start: Promise<unknown>): Promise<string> {
  try {
    await start;
  } catch (error) {
    const said: string[] = [];
    for (let e: unknown = error; e instanceof Error; e = e.cause) said.push(e.message);
    return said.join(' <- ');
  }
  throw new Error('the start was not refused');
}
const SCRIPT = new URL('../../scripts/cluster-try.sh', import.meta.url).pathname;

/** As root, the `postgres` user the Debian package makes (the script refuses root). */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const fields = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((line) => line.startsWith('postgres:'))
    ?.split(':');
  if (!fields?.[2] || !fields[3]) throw new Error('running as root without a postgres user to run the script as');
  return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

let dir: string;
let env: NodeJS.ProcessEnv;
let exported: Record<string, string>;
const user = runAs();
const script = (...args: string[]) => run('sh', [SCRIPT, ...args], { env, ...(user ?? {}), timeout: 60_000 });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hearth-cluster-try-'));
  if (user) chownSync(dir, user.uid, user.gid);
  env = { ...process.env, PGPORT: String(await freePort()), REDIS_PORT: String(await freePort()) };
  const { stdout } = await script(dir);
  const line = stdout.split('\n').find((l) => l.startsWith('export '));
  exported = Object.fromEntries(
    (line ?? '')
      .replace(/^export /, '')
      .split(' ')
      .map((pair) => pair.split('=', 2) as [string, string]),
  );
}, 60_000);

afterAll(async () => {
  await script('stop', dir).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('scripts/cluster-try.sh', () => {
  // (only as root can the refusal be seen)
  if (user)
    it('refuses root, naming the way out', async () => {
      const refused = await run('sh', [SCRIPT, join(dir, 'as-root')], { env }).catch((error: { code: number; stderr: string }) => error);
      expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('PostgreSQL refuses to run as root') });
    });

  it('prints the DATABASE_URL and REDIS_URL of a role-owned C-locale database, and a cluster instance starts on them', async () => {
    expect(exported.DATABASE_URL).toBe(`postgres://hearth:secret@127.0.0.1:${env.PGPORT}/hearth`);
    expect(exported.REDIS_URL).toBe(`redis://127.0.0.1:${env.REDIS_PORT}`);
    const client = new pg.Client({ connectionString: exported.DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ owner: string; collate: string }>(
        "SELECT pg_get_userbyid(datdba) AS owner, datcollate AS collate FROM pg_database WHERE datname = 'hearth'",
      );
      expect(rows).toEqual([{ owner: 'hearth', collate: 'C' }]);
    } finally {
      await client.end();
    }
    const t = await startTestServer({ databaseUrl: exported.DATABASE_URL, redisUrl: exported.REDIS_URL });
    try {
      const added = await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'try', organizationName: 'Try' }] });
      expect(added.status).toBe(200);
      expect(dataOf<Array<{ id: string }>>(await t.callK('/v2/organizations/get', { organizationIds: ['try'] }))).toHaveLength(1);
      expect(await (await fetch(`${t.url}/readyz`)).json()).toMatchObject({ status: 'ready', checks: { redis: 'ok', cluster: 'ok' } });
    } finally {
      await t.close();
    }
  });

  it('a database the role may not use is refused with its cause, and the start leaves no data dir or key behind', async () => {
    // made by the superuser, over the script's socket: owned by postgres, so hearth may not create its schema there
    const admin = new pg.Client({ host: dir, port: Number(env.PGPORT), user: 'postgres', database: 'postgres' });
    await admin.connect();
    try {
      await admin.query("CREATE DATABASE notmine TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'");
    } finally {
      await admin.end();
    }
    const dataDir = join(mkdtempSync(join(tmpdir(), 'hearth-refused-')), 'data-1');
    const databaseUrl = `postgres://hearth:secret@127.0.0.1:${env.PGPORT}/notmine`;
    expect(await refusal(createServer({ port: 0, logLevel: 'silent', dataDir, databaseUrl }))).toMatch(/permission denied for database notmine/);
    expect(existsSync(dataDir)).toBe(false);
    const missing = `postgres://hearth:secret@127.0.0.1:${env.PGPORT}/nosuch`;
    expect(await refusal(createServer({ port: 0, logLevel: 'silent', dataDir, databaseUrl: missing }))).toMatch(/database "nosuch" does not exist/);
    expect(existsSync(dataDir)).toBe(false);
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  });

  it('stop stops both servers and keeps the data', async () => {
    await script('stop', dir);
    expect(await portIsOpen(Number(env.PGPORT))).toBe(false);
    expect(await portIsOpen(Number(env.REDIS_PORT))).toBe(false);
    expect(existsSync(join(dir, 'pg', 'PG_VERSION'))).toBe(true);
  });
});
