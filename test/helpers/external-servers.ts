import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/**
 * Throwaway PostgreSQL and Redis servers for tests and benchmarks (issue 31): each on 127.0.0.1, on a free port,
 * with its own directory under the system temp dir, started by the caller and stopped by it.
 *
 * Every server runs under a small `sh` keeper in its own process group. The keeper holds a pipe from this process
 * (its stdin): when the pipe closes, because `stop()` closed it or because this process died in any way (SIGKILL
 * included), the keeper asks the server to stop (PostgreSQL SIGINT, its fast shutdown; Redis SIGTERM), waits for it
 * and removes the server's directory. `stop()` waits for that, and kills the whole group if it takes too long, so
 * a test that dies leaves no server and no directory behind.
 *
 * PostgreSQL refuses to run as root. As root, initdb and the server run as the `postgres` user (the Debian
 * package creates it), or `nobody` without it, through spawn's uid/gid (libuv drops the supplementary groups);
 * the temp dir is handed to that user. As any other user they run as that user.
 */

/** The Debian packages CI installs (.ci/run); named in every "not found" message. */
export const POSTGRES_PACKAGE = 'postgresql';
export const REDIS_PACKAGE = 'redis-server';

const KEEPER = [
  // $1: the directory to remove when the server is gone; $2: the signal that stops it; the rest: its command line
  'dir=$1; sig=$2; shift 2',
  'exec 3<&0',
  '"$@" </dev/null >>"$dir/server.log" 2>&1 &',
  'server=$!',
  'echo "$server"',
  // writes to this process after it died fail rather than kill the keeper before it has cleaned up
  "trap '' PIPE",
  '{ read -r _ <&3; kill -"$sig" "$server" 2>/dev/null; } &',
  'watcher=$!',
  'exec 3<&-',
  'wait "$server"; status=$?',
  'kill "$watcher" 2>/dev/null',
  'if [ "$status" -ne 0 ]; then tail -n 40 "$dir/server.log" >&2 2>/dev/null; fi',
  'rm -rf -- "$dir"',
  'exit "$status"',
].join('\n');

export class MissingServerError extends Error {
  override name = 'MissingServerError';
}

/**
 * PostgreSQL's server binaries: `PG_BINDIR` if set, else `pg_config --bindir` when that directory holds `postgres`
 * (libpq-dev's pg_config alone names a directory without the server), else the newest /usr/lib/postgresql/N/bin.
 */
export function findPostgresBinDir(): string {
  const candidates: string[] = [];
  if (process.env.PG_BINDIR) candidates.push(process.env.PG_BINDIR);
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch {
    // no pg_config on PATH: the Debian layout below
  }
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => /^\d+(\.\d+)?$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => join(debian, v, 'bin')));
  }
  const found = candidates.find((dir) => existsSync(join(dir, 'postgres')) && existsSync(join(dir, 'initdb')));
  if (!found) {
    throw new MissingServerError(
      `PostgreSQL's server binaries (postgres, initdb) were not found (looked in: ${candidates.join(', ') || 'PG_BINDIR, pg_config --bindir, /usr/lib/postgresql/*/bin'}). ` +
        `Install Debian's package: apt-get install -y ${POSTGRES_PACKAGE} (.ci/run does), or set PG_BINDIR.`,
    );
  }
  return found;
}

/** `redis-server`: `REDIS_SERVER` if set, else the first on PATH, else /usr/bin/redis-server. */
export function findRedisServer(): string {
  const candidates = [
    ...(process.env.REDIS_SERVER ? [process.env.REDIS_SERVER] : []),
    ...(process.env.PATH ?? '').split(':').map((dir) => join(dir, 'redis-server')),
    '/usr/bin/redis-server',
  ];
  const found = candidates.find((file) => existsSync(file));
  if (!found) {
    throw new MissingServerError(
      `redis-server was not found on PATH. Install Debian's package: apt-get install -y ${REDIS_PACKAGE} (.ci/run does), or set REDIS_SERVER.`,
    );
  }
  return found;
}

interface RunAs {
  uid: number;
  gid: number;
  name: string;
}

/** Who runs PostgreSQL: this user, or as root the `postgres` user (else `nobody`). */
function postgresUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const passwd = readFileSync('/etc/passwd', 'utf8').split('\n');
  for (const name of ['postgres', 'nobody']) {
    const fields = passwd.find((line) => line.startsWith(`${name}:`))?.split(':');
    if (fields?.[2] && fields[3]) return { name, uid: Number(fields[2]), gid: Number(fields[3]) };
  }
  throw new Error('running as root, and neither a postgres nor a nobody user exists to run PostgreSQL as (it refuses root)');
}

/** A port free on 127.0.0.1 now. The server binds it a moment later; a lost race is retried by the callers. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
export function portIsOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Whether a process with this id exists (a zombie counts; the keeper reaps its server before it exits). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function run(command: string, args: string[], options: { runAs?: RunAs | undefined; env?: NodeJS.ProcessEnv }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env },
      ...(options.runAs ? { uid: options.runAs.uid, gid: options.runAs.gid } : {}),
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? code}):\n${output.trim()}`)),
    );
  });
}

/** A server under its keeper (see the top of this file). */
export interface Kept {
  keeper: ChildProcess;
  /** The server's process id, as the keeper reports it. */
  pid: number;
  /** Resolves when the keeper has exited, with what it wrote to stderr (the server's log tail on a failure). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  stop(): Promise<void>;
  /** Lets this process exit with the server still running (it then stops with the pipe). */
  release(): void;
}

/**
 * Runs `command` under a keeper (see the top of this file): its output goes to `dir/server.log`, `dir` is removed once
 * it has exited, and it is sent `signal` when this process closes the pipe or dies. Also used for Hearth instances
 * in child processes (cluster-processes.ts).
 */
export async function keep(dir: string, signal: 'INT' | 'TERM', command: string[], runAs: RunAs | undefined): Promise<Kept> {
  const keeper = spawn('/bin/sh', ['-c', KEEPER, 'keeper', dir, signal, ...command], {
    // its own process group (the server and PostgreSQL's backends join it), so that stop() can kill them all
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
  });
  let stderr = '';
  keeper.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-16_384)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    keeper.once('exit', (code, sig) => resolve({ code, signal: sig, stderr })),
  );

  const pid = await new Promise<number>((resolve, reject) => {
    let out = '';
    keeper.stdout!.on('data', (d) => {
      out += d;
      const line = out.match(/^(\d+)\n/);
      if (line) resolve(Number(line[1]));
    });
    keeper.once('error', reject);
    void exited.then((e) => reject(new Error(`the keeper of ${command[0]} exited (${e.signal ?? e.code}): ${e.stderr}`)));
  });

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      keeper.stdin!.end();
      const timeout = setTimeout(() => {
        try {
          process.kill(-keeper.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 15_000);
      await exited;
      clearTimeout(timeout);
      rmSync(dir, { recursive: true, force: true });
    })());
  // A server the caller forgot to stop must not hold this process open (its exit closes the pipe, which stops
  // the server); called once the server is ready, since until then the pipes are what keeps this process waiting.
  const release = () => {
    keeper.unref();
    for (const stream of [keeper.stdin, keeper.stdout, keeper.stderr] as unknown as { unref?: () => void }[]) stream.unref?.();
  };
  return { keeper, pid, exited, stop, release };
}

/** Polls `ready` until it answers true; fails as soon as the server's keeper has exited, with its log tail. */
export async function waitUntil(what: string, kept: Kept, ready: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  let gone: { code: number | null; signal: NodeJS.Signals | null; stderr: string } | undefined;
  void kept.exited.then((e) => (gone = e));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (gone) throw new Error(`${what} exited while starting (${gone.signal ?? gone.code}):\n${gone.stderr.trim()}`);
    if (await ready()) return;
    if (Date.now() > deadline) throw new Error(`${what} did not become ready in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The bind race lost to another process (freePort → server start): worth another port. */
const isBindFailure = (error: unknown) => /Address already in use|could not bind|could not create any TCP\/IP sockets/i.test(String(error));

async function withPortRetries<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (error) {
      if (attempt >= 3 || !isBindFailure(error)) throw error;
    }
  }
}

export interface ThrowawayPostgres {
  /** postgres://hearth:…@127.0.0.1:port/<database>: the superuser, on the database created at start. */
  url: string;
  port: number;
  /** The postmaster's process id. */
  pid: number;
  /** The temp dir holding the data dir (data/), the unix socket and server.log; removed by stop(). */
  dir: string;
  /** Creates another database on this server (e.g. one per test file) and returns its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

export interface PostgresOptions {
  /** The database created at start (default `hearth`). */
  database?: string;
  /** Extra `-c name=value` settings, over the test defaults below. */
  settings?: Record<string, string | number>;
}

/**
 * Creates a database on the server `serverUrl` points at (its user must be allowed to) and returns the URL of the
 * new database: how test files sharing one server (the globalSetup's) each get a database of their own.
 */
export async function createDatabase(serverUrl: string, name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`database names here are lower-case identifiers: ${JSON.stringify(name)}`);
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Settings for a throwaway server: no durability across an OS crash (fsync, full-page writes and commit waits
 * off: a test's data does not outlive the test) and enough connections for a run's workers sharing one server.
 */
const TEST_SETTINGS: Record<string, string | number> = {
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  max_connections: 200,
  TimeZone: 'UTC',
  // containers often forbid huge pages; the default `try` only logs, `off` keeps the log quiet
  huge_pages: 'off',
  log_min_messages: 'warning',
};

/**
 * Starts a throwaway PostgreSQL: initdb into a fresh temp dir (superuser `hearth` with a random password, SCRAM over
 * TCP), the server on 127.0.0.1 and a free port with its unix socket in that dir, and a database.
 */
export async function startPostgres(options: PostgresOptions = {}): Promise<ThrowawayPostgres> {
  const bin = findPostgresBinDir();
  const runAs = postgresUser();
  const database = options.database ?? 'hearth';
  const password = randomBytes(18).toString('base64url');

  return withPortRetries(async (port) => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-pg-'));
    const dataDir = join(dir, 'data');
    let kept: Kept | undefined;
    try {
      const passwordFile = join(dir, 'password');
      writeFileSync(passwordFile, password, { mode: 0o600 });
      if (runAs) {
        chownSync(dir, runAs.uid, runAs.gid);
        chownSync(passwordFile, runAs.uid, runAs.gid);
      }
      await run(
        join(bin, 'initdb'),
        ['-D', dataDir, '-U', 'hearth', `--pwfile=${passwordFile}`, '--auth-host=scram-sha-256', '--auth-local=trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
        { runAs, env: { LC_ALL: 'C' } },
      );
      rmSync(passwordFile);
      const settings = { ...TEST_SETTINGS, ...options.settings, listen_addresses: '127.0.0.1', port, unix_socket_directories: dir };
      const args = Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
      kept = await keep(dir, 'INT', [join(bin, 'postgres'), '-D', dataDir, ...args], runAs);
      // postmaster.pid's 8th line is the server's state; `ready` once it accepts connections
      const pidFile = join(dataDir, 'postmaster.pid');
      await waitUntil('postgres', kept, () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').split('\n')[7]?.trim() === 'ready');

      const server = kept;
      const url = await createDatabase(`postgres://hearth:${password}@127.0.0.1:${port}/postgres`, database);
      server.release();
      return { url, port, pid: server.pid, dir, createDatabase: (name: string) => createDatabase(url, name), stop: server.stop };
    } catch (error) {
      if (kept) await kept.stop();
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  });
}

export interface ThrowawayRedis {
  /** redis://127.0.0.1:port */
  url: string;
  port: number;
  pid: number;
  dir: string;
  stop(): Promise<void>;
}

/** Answers whether a Redis server answers PING on 127.0.0.1:port (RESP, without a client library). */
function redisAnswersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      answer += d;
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
    socket.once('error', () => done(false));
  });
}

/** Starts a throwaway redis-server on 127.0.0.1 and a free port, without persistence (no RDB, no AOF). */
export async function startRedis(): Promise<ThrowawayRedis> {
  const redisServer = findRedisServer();
  return withPortRetries(async (port) => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-redis-'));
    let kept: Kept | undefined;
    try {
      const args = ['--bind', '127.0.0.1', '--port', String(port), '--daemonize', 'no', '--save', '', '--appendonly', 'no'];
      args.push('--dir', dir, '--loglevel', 'warning');
      kept = await keep(dir, 'TERM', [redisServer, ...args], undefined);
      await waitUntil('redis-server', kept, () => redisAnswersPing(port));
      kept.release();
      return { url: `redis://127.0.0.1:${port}`, port, pid: kept.pid, dir, stop: kept.stop };
    } catch (error) {
      if (kept) await kept.stop();
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  });
}
