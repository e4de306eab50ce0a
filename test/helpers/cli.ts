import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'server', 'cli.ts');
/** tsx's loader by path, so that a child started in another working directory (a config file's) still finds it. */
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

export interface CliServer {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<number | null>;
}

/** `npm start`'s program in a child process on an ephemeral port; resolves once its banner is out. */
export async function startCliServer(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<CliServer> {
  return startHearth(['--port', '0', '--data-dir', dataDir], { env });
}

/** `hearth <args>` as a server (serve, or no command); resolves with its URL once its banner is out. */
export async function startHearth(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliServer> {
  const child = spawn(process.execPath, ['--import', TSX, CLI, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 60 s: ${output}`)), 60_000);
    child.stdout!.on('data', () => {
      const match = output.match(/API\s+(http:\/\/127\.0\.0\.1:\d+)/);
      if (match && output.includes('authToken')) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`exited early: ${output}`));
    });
  });
  return { child, url, output: () => output, exited };
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * One `hearth <args>` run to its end (through `node --import tsx server/cli.ts`, or the package's bin shim with
 * `bin: true`); never rejects on a non-zero exit, so tests can assert on the code and the message.
 */
export function runHearth(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; bin?: boolean } = {}): Promise<CliRun> {
  const entry = options.bin ? [join(ROOT, 'bin', 'hearth.mjs')] : ['--import', TSX, CLI];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...entry, ...args],
      { cwd: options.cwd ?? ROOT, env: { ...process.env, LOG_LEVEL: 'info', ...options.env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Temp directories removed by `cleanup()` (call it in afterAll). */
export function tempDirs() {
  const dirs: string[] = [];
  return {
    make(prefix = 'hearth-cli-') {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    cleanup() {
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
