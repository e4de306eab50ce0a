// The names of what a data dir holds, in one leaf module: the server, the CLI, backups and exports all name the
// same files, and a command that only looks at them (signin-link, doctor, --help) does not load the database code.
import { join } from 'node:path';

/** The SQLite database of everything but webhook delivery state. */
export const DATABASE_FILE = 'hearth.db';
/** Webhook deliveries and attempts, written by the delivery worker. */
export const DELIVERY_FILE = 'webhooks.db';
/** The master key every secret at rest is encrypted under (0600). */
export const KEY_FILE = 'master.key';
/** The default workspace's credentials for scripts (0600): { workspaceId, workspaceAuthToken, apiKey, authToken }. */
export const CREDENTIALS_FILE = 'credentials.json';
/** Written by a running server: { pid, url, bootId, startedAt }. */
export const LOCK_FILE = 'server.lock';
/** Recordings' files. */
export const attachmentsDir = (dataDir: string) => join(dataDir, 'attachments');
/** Where a server backs the data dir up before it migrates it. */
export const backupsDir = (dataDir: string) => join(dataDir, 'backups');
