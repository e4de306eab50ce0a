import { createServer, type HearthServer } from '../server/index.ts';
import { dataDir, preferredPort } from './paths.ts';

/**
 * The server runs in Electron's main process, the same `createServer` as `npm start`, on loopback only.
 * In-process rather than a utility process: one copy of the database connection and the Yjs documents, and a
 * clean shutdown in one place; the price is that better-sqlite3 must be built for Electron's ABI, which
 * electron-builder does when packaging (`npmRebuild`, electron-builder.yml).
 */
export async function startServer(): Promise<HearthServer> {
  const options = { dataDir: dataDir(), host: '127.0.0.1' };
  try {
    return await createServer({ ...options, port: preferredPort() });
  } catch (error) {
    // Another Hearth (say `npm start`) holds the port: run on a free one rather than not at all.
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    return createServer({ ...options, port: 0 });
  }
}
