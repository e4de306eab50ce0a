import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TestServer } from './server.ts';

/** Small byte sequences with the magic numbers of real media files (enough for a type check; not playable). */
export const WEBM = Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.from('webm recording bytes')]);
export const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('png thumbnail')]);
export const b64 = (bytes: Buffer) => bytes.toString('base64');

/** How many recordings' attachments have their bytes stored: files of the data dir on SQLite, rows of attachment_blobs on PostgreSQL. */
export async function storedAttachments(t: TestServer): Promise<number> {
  if (t.server.app.storage.attachments.kind === 'database') return Number((await t.query<{ n: string }>('SELECT count(*) AS n FROM attachment_blobs'))[0]?.n);
  try {
    return readdirSync(join(t.dataDir, 'attachments')).length;
  } catch {
    return 0;
  }
}
