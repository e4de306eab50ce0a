import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DATABASE_FILE } from '../../../server/data-files.ts';
import { startCliServer, type CliServer } from '../../helpers/cli.ts';
import { apiKeyHeaders, call, workspaceHeaders, type CallResult } from '../../helpers/server.ts';

export interface Credentials {
  workspaceId: string;
  workspaceAuthToken: string;
  apiKey: string;
  authToken: string;
}

/** A real Hearth (`server/cli.ts`) in a child process on a temp data dir, with the credentials it wrote. */
export interface ChildServer {
  cli: CliServer;
  url: string;
  pid: number;
  dataDir: string;
  credentials: Credentials;
  /** Calls with the default API key's headers. */
  callK(path: string, data: unknown): Promise<CallResult>;
  /** Calls with the default workspace's headers. */
  callW(path: string, data: unknown): Promise<CallResult>;
  /** SIGKILL and wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

export const newDataDir = (label: string) => mkdtempSync(join(tmpdir(), `hearth-reliability-${label}-`));
export const removeDataDir = (dir: string) => rmSync(dir, { recursive: true, force: true });

export async function startChild(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<ChildServer> {
  // warn: the child's output is kept in memory by the helper; info would log every delivery of a long run
  const cli = await startCliServer(dataDir, { LOG_LEVEL: 'warn', ...env });
  const credentials = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as Credentials;
  const stopWith = async (signal: NodeJS.Signals) => {
    if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill(signal);
    await cli.exited;
  };
  return {
    cli,
    url: cli.url,
    pid: cli.child.pid as number,
    dataDir,
    credentials,
    callK: (path, data) => call(cli.url, path, data, apiKeyHeaders(credentials)),
    callW: (path, data) => call(cli.url, path, data, workspaceHeaders(credentials)),
    kill: () => stopWith('SIGKILL'),
    stop: () => stopWith('SIGTERM'),
  };
}

/** Resident memory of a process in MiB, from /proc (Linux). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1]);
  return Math.round((kib / 1024) * 10) / 10;
}

/** Open file descriptors of a process (Linux). */
export const openFds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/** `PRAGMA integrity_check` on a data dir's database, opened read-only (the server must not be running). */
export function integrityCheck(dataDir: string): string {
  const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}

/** Percentile of a list of numbers (nearest rank). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}
