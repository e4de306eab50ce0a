// Recordings' attachment bytes on PostgreSQL: rows of attachment_blobs (pg/schema.ts), which every instance of a
// cluster reads, where SQLite keeps files in the data dir (../../repos/attachments.ts has the contract).
import { and, eq, lt, sql } from 'drizzle-orm';
import type { AttachmentStore } from '../../repos/attachments.ts';
import type { PgEngine } from '../engine.ts';
import { attachmentBlobs as blobs } from '../schema.ts';

export function pgAttachmentStore(engine: PgEngine): AttachmentStore {
  return {
    kind: 'database',
    async put(files) {
      if (files.length === 0) return;
      const createdAt = Date.now();
      // one statement per file: a batch of 8 MB values in one would build one message of them all
      await engine.write(async (db) => {
        for (const f of files) await db.insert(blobs).values({ storageKey: f.key, bytes: f.bytes, createdAt });
      });
    },
    get: (key) => engine.read(async (db) => (await db.select({ bytes: blobs.bytes }).from(blobs).where(eq(blobs.storageKey, key)).limit(1))[0]?.bytes),
    async remove(keys) {
      if (keys.length === 0) return;
      await engine.write(async (db) => void (await db.delete(blobs).where(sql`${blobs.storageKey} = ANY(${sql.param([...keys])}::text[])`)));
    },
    sweep: (storedBefore) =>
      engine.write(async (db) => {
        const gone = await db
          .delete(blobs)
          .where(
            and(
              lt(blobs.createdAt, storedBefore),
              // written out: drizzle leaves a delete's columns unqualified, which inside the subquery would name its own
              sql`NOT EXISTS (SELECT 1 FROM recording_attachments r WHERE r.storage_key = attachment_blobs.storage_key)`,
            ),
          )
          .returning({ key: blobs.storageKey });
        return gone.length;
      }),
  };
}
