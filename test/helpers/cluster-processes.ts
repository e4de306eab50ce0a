// Issue 31: Hearth instances of one cluster as real child processes (`node bin/hearth.mjs`, what `npm start` runs),
// configured only through the runtime contract's environment (PORT, HOST, DATA_DIR, DATABASE_URL, REDIS_URL,
// MASTER_KEY_FILE, LOG_LEVEL), over a fresh database of the run's PostgreSQL and the run's Redis
// (`npm run test:pg`). test/helpers/cluster.ts runs instances inside the test process; these are processes of
// their own, so that one can be killed with SIGKILL mid-write and started again.
//
// Each instance runs under the keeper of external-servers.ts: its output goes to a log file in a run dir of its own,
// and when this process closes the keeper's pipe, or dies in any way (SIGKILL included), the keeper sends the
// instance SIGTERM and waits for it. Data dirs are removed by close(); only a test process killed outright leaves
// them behind in the temp dir (as the other helpers' data dirs).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { testRedis } from './cluster.ts';
import { freePort, type Kept, keep, waitUntil } from './external-servers.ts';
import { freshTestDatabase, testPostgres } from './pg-database.ts';
import { apiKeyHeaders, type CallResult, call, type Envelope, workspaceHeaders } from './server.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'hearth.mjs');

export interface InstanceCredentials {
  workspaceId: string;
  workspaceAuthToken: string;
  apiKey: string;
  authToken: string;
}

export interface ProcessInstance {
  /** Its place in the cluster (0: the first, whose data dir holds the master key file). */
  index: number;
  /** http://127.0.0.1:port: the same port across restarts. */
  url: string;
  port: number;
  dataDir: string;
  /** The default credentials, as the instance wrote them to DATA_DIR/credentials.json (the same on every instance). */
  credentials: InstanceCredentials;
  /** The running process's id (changes with a restart). */
  pid(): number;
  running(): boolean;
  /** What the instance has logged since its last start (LOG_LEVEL warn by default). */
  log(): string;
  callK<T = Envelope>(path: string, data: unknown): Promise<CallResult<T>>;
  callW<T = Envelope>(path: string, data: unknown): Promise<CallResult<T>>;
  /** SIGKILL, and waits until the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (Hearth's graceful stop), and waits until the process is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data dir; resolves once GET /readyz answers 200. */
  restart(): Promise<void>;
}

export interface ProcessCluster {
  instances: ProcessInstance[];
  databaseUrl: string;
  redisUrl: string;
  /** The master key file every instance reads (MASTER_KEY_FILE): the first instance's, made at its first start. */
  masterKeyFile: string;
  /** One SQL statement (`?` placeholders) on the cluster's database, on a connection of the caller's own. */
  query<R = Record<string, unknown>>(statement: string, params?: unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

export interface ProcessClusterOptions {
  /** More environment for every instance (WEBHOOK_RETRY_SCHEDULE_MS…). */
  env?: Record<string, string>;
}

/** How long an instance may take from spawn to GET /readyz 200 (the TypeScript sources through tsx, two cores). */
const READY_TIMEOUT_MS = 60_000;

const readyz = async (url: string) => {
  try {
    const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
};

/**
 * `count` Hearth instances as child processes over a fresh PostgreSQL database and the run's Redis: the first
 * alone (it makes the master key, the default workspace and its key), then the others at once, each given the
 * first's key file as MASTER_KEY_FILE, as README's "Run as a cluster" says.
 */
export async function startProcessCluster(count: number, options: ProcessClusterOptions = {}): Promise<ProcessCluster> {
  const postgres = testPostgres();
  const redisUrl = testRedis();
  if (!postgres || !redisUrl) throw new Error('cluster tests run under npm run test:pg, which starts PostgreSQL and Redis');
  const database = await freshTestDatabase(postgres);
  const instances: ProcessInstance[] = [];
  const dataDirs: string[] = [];
  const masterKeyFile = { path: '' };
  const cluster: ProcessCluster = {
    instances,
    databaseUrl: database.url,
    redisUrl,
    get masterKeyFile() {
      return masterKeyFile.path;
    },
    async query<R>(statement: string, params: unknown[] = []) {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        let n = 0;
        return (
          await client.query(
            statement.replace(/\?/g, () => `$${++n}`),
            params,
          )
        ).rows as R[];
      } finally {
        await client.end();
      }
    },
    async close() {
      await Promise.all(instances.map((instance) => instance.stop().catch(() => undefined)));
      for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
      await database.drop();
    },
  };
  const add = async (index: number) => {
    const dataDir = mkdtempSync(join(tmpdir(), `hearth-process-${index}-`));
    dataDirs.push(dataDir);
    const env = {
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      REDIS_URL: redisUrl,
      LOG_LEVEL: 'warn',
      ...(index > 0 ? { MASTER_KEY_FILE: masterKeyFile.path } : {}),
      ...options.env,
    };
    const instance = await startInstance(index, dataDir, env);
    instances[index] = instance;
    return instance;
  };
  try {
    const first = await add(0);
    masterKeyFile.path = join(first.dataDir, 'master.key');
    if (!existsSync(masterKeyFile.path)) throw new Error(`the first instance made no master key at ${masterKeyFile.path}`);
    await Promise.all(Array.from({ length: count - 1 }, (_, n) => add(n + 1)));
  } catch (error) {
    await cluster.close();
    throw error;
  }
  return cluster;
}

/** One instance: started on a free port (another one if the bind race is lost), kept on it across restarts. */
async function startInstance(index: number, dataDir: string, env: Record<string, string>): Promise<ProcessInstance> {
  let port = 0;
  let kept: Kept | undefined;
  let runDir = '';
  let exited = false;
  const launch = async () => {
    runDir = mkdtempSync(join(tmpdir(), `hearth-process-run-${index}-`));
    const assignments = Object.entries({ ...env, PORT: String(port) }).map(([name, value]) => `${name}=${value}`);
    // `env` execs node in the keeper's child: the process id the keeper reports is the instance's own
    const started = await keep(runDir, 'TERM', ['/usr/bin/env', ...assignments, process.execPath, BIN], undefined);
    kept = started;
    exited = false;
    void started.exited.then(() => {
      if (kept === started) exited = true;
    });
    try {
      await waitUntil(`hearth instance ${index}`, started, () => readyz(`http://127.0.0.1:${port}`), READY_TIMEOUT_MS);
    } catch (error) {
      await started.stop();
      throw error;
    }
    started.release();
  };
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await launch();
      break;
    } catch (error) {
      // the port taken between freePort() and the instance's bind: another one
      if (attempt >= 3 || !/EADDRINUSE|address already in use/i.test(String(error))) throw error;
    }
  }
  const url = `http://127.0.0.1:${port}`;
  const credentials = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as InstanceCredentials;
  const current = () => {
    if (!kept) throw new Error(`instance ${index} was never started`);
    return kept;
  };
  const stopWith = async (signal: 'SIGKILL' | 'SIGTERM') => {
    const process_ = current();
    if (exited) return;
    if (signal === 'SIGKILL') {
      try {
        process.kill(process_.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await process_.exited;
    } else {
      // closing the keeper's pipe: it sends SIGTERM and waits (and kills the group after 15 s)
      await process_.stop();
    }
    exited = true;
  };
  return {
    index,
    url,
    port,
    dataDir,
    credentials,
    pid: () => current().pid,
    running: () => kept !== undefined && !exited,
    log: () => {
      try {
        return readFileSync(join(runDir, 'server.log'), 'utf8');
      } catch {
        return '';
      }
    },
    callK: (path, data) => call(url, path, data, apiKeyHeaders(credentials)),
    callW: (path, data) => call(url, path, data, workspaceHeaders(credentials)),
    kill: () => stopWith('SIGKILL'),
    stop: () => stopWith('SIGTERM'),
    async restart() {
      if (!exited) throw new Error(`instance ${index} is still running`);
      await launch();
    },
  };
}
