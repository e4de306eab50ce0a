import { join } from 'node:path';
import { app } from 'electron';

/** Where the desktop app keeps its data: HEARTH_DATA_DIR, or `data` under the OS user-data folder. */
export function dataDir(): string {
  return process.env.HEARTH_DATA_DIR || join(app.getPath('userData'), 'data');
}

/** The port to try first (PORT, or the runtime contract's 8787); a busy port falls back to a free one. */
export function preferredPort(): number {
  const port = Number(process.env.PORT ?? 8787);
  return Number.isInteger(port) && port >= 0 && port <= 65535 ? port : 8787;
}
