// The storage over PostgreSQL (DATABASE_URL): the same repositories as repos/index.ts's, each the port in
// pg/repos/ of the SQLite original, over one PgEngine (a pool). What differs between the engines is here and
// nowhere else: how the database is opened and checked, what a change stamp counts, and the few steps that only mean
// something on SQLite (folding its write-ahead log; its checkpointer's coordination with the delivery worker).
import { pgAttachmentStore } from './repos/attachments.ts';
import { getTableName } from 'drizzle-orm';
import type { Logger } from '../../log.ts';
import { VERSION } from '../../version.ts';
import { MasterKeyMismatchError, type MasterKeyCheck } from '../key-check.ts';
import type { Storage } from '../repos/index.ts';
import { deliveryEngine, deliveryReads } from '../repos/webhook-deliveries.ts';
import { reposWrittenOnce } from '../repos/written-once.ts';
import { createPgEngine, documentDataKey, INSTANCE_CONNECTION, type PgEngine, type PgEngineOptions } from './engine.ts';
import { accessRepoPg } from './repos/access.ts';
import { notificationsPg } from './repos/notifications.ts';
import { notificationsRepo } from '../repos/notifications.ts';
import { pgDialect } from './dialect.ts';
import { pgTables } from './schema.ts';

/** The URL with its password hidden, for messages. */
export function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const name of ['password', 'sslpassword']) if (parsed.searchParams.has(name)) parsed.searchParams.set(name, '***');
    return parsed.toString();
  } catch {
    return 'given in DATABASE_URL';
  }
}

/** A database migrated by a newer Hearth: refused before anything is written, as on SQLite (client.ts). */
export class NewerPgSchemaError extends Error {
  constructor(unknown: number) {
    super(
      `the PostgreSQL database was migrated by a newer Hearth (${unknown} schema migration${unknown === 1 ? '' : 's'} unknown to Hearth ${VERSION}): ` +
        'upgrade Hearth to use it. Nothing was changed.',
    );
    this.name = 'NewerPgSchemaError';
  }
}

/**
 * key-check.ts's rule on PostgreSQL: the first instance to open a database records its key's fingerprint (the first
 * of several starting together wins: ON CONFLICT DO NOTHING, then read back), and every later open compares.
 */
async function checkMasterKeyPg(engine: PgEngine, key: MasterKeyCheck): Promise<void> {
  const fingerprint = await engine.transaction(() =>
    engine.write(async (db) => {
      const client = db.$client;
      const stored = async () => (await client.query<{ fingerprint: string }>('SELECT fingerprint FROM master_key_check WHERE id = 1')).rows[0]?.fingerprint;
      const found = await stored();
      if (found !== undefined) return found;
      const secret = (await client.query<{ value: string }>('SELECT auth_token_enc AS value FROM workspaces LIMIT 1')).rows[0];
      if (secret !== undefined && !key.decrypts(secret.value)) throw new MasterKeyMismatchError(key.path, 'a workspace token does not decrypt with it');
      await client.query('INSERT INTO master_key_check (id, fingerprint) VALUES (1, $1) ON CONFLICT DO NOTHING', [key.fingerprint]);
      return stored();
    }),
  );
  if (fingerprint !== key.fingerprint) throw new MasterKeyMismatchError(key.path, 'its fingerprint differs from the one the database keeps');
}

/** The repositories over one PostgreSQL engine. */
export function createPgStorage(engine: PgEngine): Storage {
  // Every table: a write of this instance counts at once, another instance's when its notification arrives (the
  // tables with a change trigger; see engine.ts). The response cache answers from memory only while it is unchanged.
  const changes = engine.tableChanges(Object.values(pgTables).map(getTableName));
  // the engine as the repositories written once for both engines see it (../engine.ts)
  const one = pgDialect(engine);
  let release: (() => Promise<void>) | undefined;
  return {
    engine: { kind: 'postgres', changes, retries: engine.retries },
    attachments: pgAttachmentStore(engine),
    deliveries: deliveryReads(deliveryEngine(one)),
    async close() {
      await release?.();
      await engine.close();
    },
    async claimServer(mode, instanceId) {
      const claim = await engine.claimInstance(mode === 'cluster', instanceId);
      if (!claim.claimed)
        throw new Error(
          mode === 'cluster'
            ? 'a Hearth server without REDIS_URL runs on this PostgreSQL database and holds it alone: stop it, then start every instance with the same REDIS_URL.'
            : 'another Hearth server runs on this PostgreSQL database: instances that share one database need Redis between them. ' +
                'Start every instance with the same REDIS_URL (README, "Run as a cluster"), or give this one a database of its own.',
        );
      release = claim.release;
    },
    async clusterIdentity(candidate) {
      return engine.read(async (db) => {
        const inserted = await db.$client.query('INSERT INTO cluster_identity (id, cluster_id, created_at) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING', [
          candidate,
          Date.now(),
        ]);
        const row = (await db.$client.query<{ cluster_id: string }>('SELECT cluster_id FROM cluster_identity WHERE id = 1')).rows[0];
        if (!row) throw new Error('cluster_identity has no row after it was written');
        const live = await db.$client.query<{ name: string }>(
          'SELECT application_name AS name FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE $1',
          [`${INSTANCE_CONNECTION}:%`],
        );
        return {
          clusterId: row.cluster_id,
          created: inserted.rowCount === 1,
          liveInstances: live.rows.map((r) => r.name.slice(INSTANCE_CONNECTION.length + 1)),
        };
      });
    },
    readiness: () => engine.schemaStatus(),
    databaseBytes: () =>
      engine.read(async (db) => Number((await db.$client.query<{ n: string }>('SELECT pg_database_size(current_database()) AS n')).rows[0]?.n ?? 0)),
    // SQLite runs one unit of work at a time, so a service's read-check-write (a version compare, a list read and
    // rewritten) is never interleaved with another's. READ COMMITTED would let two interleave and lose one update
    // (two writers of one ifVersion both won: found by the API suite on PostgreSQL). SERIALIZABLE gives the same
    // guarantee; a unit PostgreSQL refuses is run again (engine.ts), which units of work allow: they wait on
    // nothing but storage.
    // Units audited for READ COMMITTED say so (`rowLevel`: their invariants are held by row locks and conflict
    // clauses, docs/storage.md "Invariants"); the others stay SERIALIZABLE until they are.
    // A delete of documents fences their organization's document data (docs/storage.md, "Fences").
    transaction: (work, options) => {
      const [deletes, adds] = [options?.deletesDocumentsOf, options?.addsToDocumentsOf];
      return engine.transaction(work, {
        isolation: options?.rowLevel ? 'read committed' : 'serializable',
        ...(deletes && { fence: [documentDataKey(deletes.scope.apiKeyId, deletes.organizationId)] }),
        ...(adds && { share: [documentDataKey(adds.scope.apiKeyId, adds.organizationId)] }),
      });
    },
    inTransaction: engine.inTransaction,
    afterCommit: engine.afterCommit,
    ...reposWrittenOnce(one, engine),
    notifications: notificationsRepo(one, notificationsPg(engine)),
    access: accessRepoPg(engine),
  };
}

/**
 * The storage over the PostgreSQL database at `url`: migrated (under a lock, engine.ts), refused when a newer Hearth
 * migrated it, and with `masterKey`, checked against the key its secrets are encrypted under.
 */
export async function openPgStorage(
  url: string,
  options: { log?: Logger; masterKey?: MasterKeyCheck; engine?: Omit<PgEngineOptions, 'url'> } = {},
): Promise<Storage> {
  const engine = createPgEngine({ ...options.engine, url });
  try {
    const before = await engine.schemaStatus().catch((error: unknown) => {
      throw new Error(`could not connect to the PostgreSQL database ${redacted(url)}: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    });
    if (before.unknown > 0) throw new NewerPgSchemaError(before.unknown);
    if (before.pending > 0 && before.applied > 0) options.log?.warn('Schema upgrade: applying PostgreSQL migrations', { pending: before.pending });
    await engine.migrate();
    if (options.masterKey) await checkMasterKeyPg(engine, options.masterKey);
    return createPgStorage(engine);
  } catch (error) {
    await engine.close();
    throw error;
  }
}

/**
 * The migrations an admin command would apply beneath a running server of an older Hearth (one holds the instance
 * lock): 0 when the schema is current, new, or no server runs. The CLI refuses then, as it does on SQLite's data dir.
 */
export async function migrationsPendingUnderServer(url: string): Promise<number> {
  const engine = createPgEngine({ url, poolSize: 1 });
  try {
    // a database that cannot be reached: opening it says so, with its URL redacted
    const status = await engine.schemaStatus().catch(() => undefined);
    if (!status) return 0;
    const { applied, pending } = status;
    if (applied === 0 || pending === 0) return 0;
    const claim = await engine.claimInstance();
    if (!claim.claimed) return pending;
    await claim.release();
    return 0;
  } finally {
    await engine.close();
  }
}
