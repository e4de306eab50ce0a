import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

export interface CliServer {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<number | null>;
}

/** `npm start`'s program in a child process on an ephemeral port; resolves once its banner is out. */
export async function startCliServer(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<CliServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'server', 'cli.ts'), '--port', '0', '--data-dir', dataDir], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 30 s: ${output}`)), 30_000);
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
