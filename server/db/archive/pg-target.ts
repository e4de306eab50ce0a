// An import's writer on PostgreSQL: the same writer as target.ts's (its interface is the contract) into a database
// migrated by the PostgreSQL engine (migrated here first when it has no Hearth schema yet). One connection of its
// own and one transaction for every row; rows are written by their identity (found, inserted, or replaced), and a
// row PostgreSQL refuses is answered with the reason in words, not thrown (the tooling then rolls everything back).
//
// What differs from SQLite, and why:
// - Every table is in the one database: there is no webhooks.db to attach (`attachDeliveries` does nothing), and the
//   delivery tables are written in the same transaction as the rest. A table this build's PostgreSQL schema lacks
//   is refused by name when a row of it comes, rather than left out without a word.
// - Identity columns (SQLite's integer primary keys: judgments.seq, crdt_updates.seq) are not in an archive as it
//   is made today (surrogate keys are left out, crdt_updates is folded into its documents), so PostgreSQL gives them
//   values as the rows come, in the archive's order. Where a row does name its identity value, the identity's
//   sequence is moved past the largest value before the commit (SQLite's next rowid follows its largest), so that
//   later inserts do not collide.
// - Before anything is written the database is refused when it keeps the fingerprint of another master key than
//   the one the secrets are sealed under, or holds a workspace token that key cannot open (db/key-check.ts's rule:
//   the secrets could not be read), or when a Hearth server is connected to it (it keeps state in memory, as the
//   SQLite import refuses a data dir a server runs on). The commit writes the key's fingerprint when the database
//   has none (a SQLite data dir gets it when a server first opens it; here the import is what seals the secrets).
import type pg from 'pg';
import type { MasterKeyCheck } from '../key-check.ts';
import { connect, describeDatabase, type PgTableFacts, pgTableFacts, quote, schemaState } from './pg-tables.ts';
import type { ArchiveTarget } from './target.ts';
import type { Stored } from './values.ts';

/** The application names the PostgreSQL engine's connections carry (engine.ts): a server's connections. */
const SERVER_APPLICATIONS = ['hearth', 'hearth-changes'];

/** A PostgreSQL error on one row, said in words a user can act on (as target.ts's for SQLite). */
function describePgError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code ?? '';
  if (code === '23503') return `the row refers to a row that is neither in the archive nor in the database (${message})`;
  if (code === '23505') return `the row collides with another row of the database (${message})`;
  return message;
}

/** A value as the PostgreSQL column takes it: SQLite's 0/1 as a boolean; everything else as it is (JSON as its text). */
function pgValue(facts: PgTableFacts, column: string, value: Stored): unknown {
  if (value !== null && facts.booleans.has(column)) return value === 1 || (value as unknown) === true;
  return value;
}

/** Moves a table's identity sequence past its largest value (values written by hand do not move it). */
async function advanceIdentity(client: pg.Client, table: string, column: string) {
  await client.query(
    `SELECT setval(s, m) FROM (SELECT pg_get_serial_sequence($1, $2)::regclass AS s, (SELECT max(${quote(column)}) FROM ${quote(table)}) AS m) x
      WHERE m IS NOT NULL AND m > coalesce(pg_sequence_last_value(s), 0)`,
    [quote(table), column],
  );
}

/**
 * Opens a PostgreSQL database for an import: refused when a Hearth server is connected, when it is at another schema
 * level than this build's, or when it keeps another master key's fingerprint than `masterKey`'s; migrated when it
 * has no Hearth schema yet.
 */
export async function openPgArchiveTarget(url: string, options: { masterKey: MasterKeyCheck }): Promise<ArchiveTarget> {
  const where = describeDatabase(url);
  const client = await connect(url, 'hearth-import');
  const facts = pgTableFacts();
  /** Tables whose identity column a written row named: their sequences are moved past it before the commit. */
  const identityWritten = new Set<string>();
  let inTransaction = false;
  try {
    const servers = (
      await client.query<{ pid: number; application_name: string }>(
        'SELECT pid, application_name FROM pg_stat_activity WHERE datname = current_database() AND application_name = ANY($1::text[]) AND pid <> pg_backend_pid()',
        [SERVER_APPLICATIONS],
      )
    ).rows;
    if (servers.length > 0)
      throw new Error(
        `A Hearth server is connected to ${where} (backend pid ${servers[0]!.pid}): stop every instance before importing (they keep state in memory)`,
      );
    await schemaState(url, { migrate: true });
    // db/key-check.ts's rule: the fingerprint the database keeps, else a stored secret that must decrypt with the key
    const stored = (await client.query<{ fingerprint: string }>('SELECT fingerprint FROM master_key_check WHERE id = 1')).rows[0]?.fingerprint;
    const secret = (await client.query<{ value: string }>('SELECT auth_token_enc AS value FROM workspaces LIMIT 1')).rows[0]?.value;
    const why =
      stored !== undefined
        ? stored !== options.masterKey.fingerprint && 'its fingerprint differs from the one the database keeps'
        : secret !== undefined && !options.masterKey.decrypts(secret) && 'a workspace token does not decrypt with it';
    if (why)
      throw new Error(
        `${where} keeps its secrets under another master key than ${options.masterKey.path} (${why}): secrets imported under it could not be read there. ` +
          'Import with the data dir (master key) the database was made with. Nothing was changed.',
      );
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }

  const attempt = async (write: () => Promise<unknown>): Promise<string | undefined> => {
    try {
      await write();
      return undefined;
    } catch (error) {
      return describePgError(error);
    }
  };

  return {
    file: where,
    attachDeliveries: () => undefined,
    async begin() {
      await client.query('BEGIN');
      inTransaction = true;
    },
    async putAttachment(storageKey, bytes, replace) {
      await client.query(
        `INSERT INTO attachment_blobs (storage_key, bytes, created_at) VALUES ($1, $2, $3) ON CONFLICT (storage_key) DO ${replace ? 'UPDATE SET bytes = EXCLUDED.bytes' : 'NOTHING'}`,
        [storageKey, bytes, Date.now()],
      );
    },
    defaultWorkspaceId: async () => (await client.query<{ id: string }>('SELECT id FROM workspaces WHERE is_default ORDER BY id LIMIT 1')).rows[0]?.id,
    table(table, identityColumns) {
      const known = facts.get(table.name);
      if (!known) throw new Error(`${where} has no table ${table.name} in this build's PostgreSQL schema: its rows cannot be imported there`);
      const target = quote(table.name);
      const identityWhere = (offset: number) => identityColumns.map((c, i) => `${quote(c)} = $${offset + i + 1}`).join(' AND ');
      return {
        exists: async (identity) =>
          (
            await client.query(
              `SELECT 1 FROM ${target} WHERE ${identityWhere(0)} LIMIT 1`,
              identity.map((v, i) => pgValue(known, identityColumns[i]!, v)),
            )
          ).rows.length > 0,
        insert(values) {
          const columns = [...values.keys()];
          if (known.identity && values.get(known.identity) !== undefined && values.get(known.identity) !== null) identityWritten.add(table.name);
          return attempt(() =>
            client.query(
              `INSERT INTO ${target} (${columns.map(quote).join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
              columns.map((c) => pgValue(known, c, values.get(c)!)),
            ),
          );
        },
        replace(values, identity) {
          const columns = [...values.keys()];
          if (known.identity && values.get(known.identity) !== undefined && values.get(known.identity) !== null) identityWritten.add(table.name);
          return attempt(async () => {
            await client.query(`UPDATE ${target} SET ${columns.map((c, i) => `${quote(c)} = $${i + 1}`).join(', ')} WHERE ${identityWhere(columns.length)}`, [
              ...columns.map((c) => pgValue(known, c, values.get(c)!)),
              ...identity.map((v, i) => pgValue(known, identityColumns[i]!, v)),
            ]);
            // the document's state is the archive's merged update now: the log written after the old snapshot goes
            if (table.name === 'crdt_documents')
              await client.query('DELETE FROM crdt_updates WHERE api_key_id = $1 AND organization_id = $2 AND document_id = $3 AND editor_id = $4', [
                ...identity,
              ]);
          });
        },
      };
    },
    async commit() {
      for (const name of identityWritten) await advanceIdentity(client, name, facts.get(name)!.identity!);
      // the secrets are sealed under this key now: the database keeps its fingerprint (a server's check, key-check.ts)
      await client.query('INSERT INTO master_key_check (id, fingerprint) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [options.masterKey.fingerprint]);
      await client.query('COMMIT');
      inTransaction = false;
    },
    async rollback() {
      if (!inTransaction) return;
      inTransaction = false;
      await client.query('ROLLBACK').catch(() => undefined);
    },
    async close() {
      await client.end().catch(() => undefined);
    },
  };
}
