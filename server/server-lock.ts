// The lock a running server keeps in its data dir: which process serves it, at what URL, and the run's boot id.
// Commands read it to refuse work under a running server, or (signin-link) to address it.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOCK_FILE } from './data-files.ts';

/**
 * Marks the data dir as served: the pid, the URL and the run's boot id (what `hearth signin-link` signs a
 * sign-in link for; the file is the owner's alone, as the master key is).
 */
export function writeServerLock(dataDir: string, url: string, bootId: string) {
  writeFileSync(join(dataDir, LOCK_FILE), JSON.stringify({ pid: process.pid, url, bootId, startedAt: new Date().toISOString() }), { mode: 0o600 });
}

export function removeServerLock(dataDir: string) {
  rmSync(join(dataDir, LOCK_FILE), { force: true });
}

/** The server running on this data dir (its lock names a live process), or null (none, or a crashed one's stale lock). */
export function runningServer(dataDir: string): { pid: number; url: string; bootId?: string } | null {
  const file = join(dataDir, LOCK_FILE);
  if (!existsSync(file)) return null;
  try {
    const lock = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; url: string; bootId?: string };
    process.kill(lock.pid, 0);
    return lock;
  } catch {
    return null;
  }
}
