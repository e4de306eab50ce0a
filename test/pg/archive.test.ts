// Moving a data dir up to PostgreSQL (issue 31): the demo data seeded into a SQLite data dir (plus a second workspace
// filled through the real API: webhook deliveries, AI provider keys, recordings, a live CRDT log) is exported with
// its secrets sealed by a passphrase, imported into a throwaway PostgreSQL, and exported from PostgreSQL again.
// Every table of the two archives is compared row by row (secrets opened with the passphrase), and every table of
// PostgreSQL with the SQLite original (secrets opened with each side's master key, digests recomputed). One
// workspace goes the same way into a database of its own. The import refuses a database whose secrets are under
// another master key, or that a server is connected to, and changes nothing then.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { createSecrets, type Secrets } from '../../server/security/secrets.ts';
import { archiveTables } from '../../server/tooling/archive-schema.ts';
import { openWithPassphrase, SECRET_COLUMNS, DIGEST_COLUMNS } from '../../server/tooling/archive-secrets.ts';
import { exportArchive, exportArchiveFromPostgres } from '../../server/tooling/export.ts';
import { importArchiveIntoPostgres } from '../../server/tooling/import.ts';
import { seedDataDir } from '../../server/tooling/seed.ts';
import type { Manifest } from '../../server/tooling/transfer.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/external-servers.ts';
import { AS_SQLITE_TYPES, canonicalRow } from '../helpers/pg-parity.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { serverOn, tempDirs } from '../helpers/transfer.ts';
import { populateKey } from '../helpers/transfer-fixture.ts';
import { FAST_WEBHOOKS } from '../helpers/webhooks.ts';

const temp = tempDirs();
const PASSPHRASE = 'correct horse battery staple';
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);

type Row = Record<string, unknown>;

const keyOf = (dir: string): Secrets => createSecrets(Buffer.from(readFileSync(join(dir, 'master.key'), 'utf8').trim(), 'base64'));
/** Rows as texts in one order. */
const sortedTexts = (rows: Row[]) => rows.map(canonicalRow).sort();

/** An archive's tables, row by row, secrets opened with the passphrase (each archive seals them under its own salt). */
function readArchive(dir: string): { manifest: Manifest; tables: Record<string, string[]> } {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  const opener = openWithPassphrase(manifest.secrets, PASSPHRASE);
  const tables: Record<string, string[]> = {};
  for (const table of manifest.tables) {
    const text = readFileSync(join(dir, table.file), 'utf8');
    const rows = text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const row = JSON.parse(line) as Row;
        for (const column of Object.keys(SECRET_COLUMNS[table.name] ?? {}))
          if (typeof row[column] === 'string') row[column] = `opened:${opener.decrypt(row[column] as string)}`;
        return row;
      });
    tables[table.name] = sortedTexts(rows);
  }
  return { manifest, tables };
}

async function pgRows(url: string, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url, types: AS_SQLITE_TYPES });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * A table's rows as the archive defines them, from either engine: secret columns opened with that side's master key,
 * lookup digests checked against the opened value under that key (then left out: each side has its own key), the
 * surrogate key left out, and a CRDT document's state as one merged update of its snapshot and log.
 */
async function comparableRows(table: string, rows: Row[], key: Secrets, crdtLog: (row: Row) => Promise<Buffer[]>): Promise<string[]> {
  const spec = archiveTables().find((t) => t.name === table)!;
  const out: Row[] = [];
  for (const row of rows) {
    const comparable: Row = {};
    for (const column of spec.columns) comparable[column.sql] = row[column.sql];
    for (const [secretKey, rule] of Object.entries(SECRET_COLUMNS[table] ?? {})) {
      const column = snake(secretKey);
      if (typeof row[column] !== 'string') continue;
      const plaintext = key.decrypt(row[column] as string);
      comparable[column] = `opened:${plaintext}`;
      if (rule.digest && DIGEST_COLUMNS[table]?.includes(rule.digest)) expect(row[snake(rule.digest)], `${table}.${rule.digest}`).toBe(key.digest(plaintext));
    }
    if (table === 'crdt_documents') {
      const parts = [...(row.snapshot ? [row.snapshot as Buffer] : []), ...(await crdtLog(row))];
      comparable.snapshot = parts.length === 0 ? null : Buffer.from(parts.length === 1 ? parts[0]! : Y.mergeUpdates(parts)).toString('base64');
      comparable.update_count = 0;
    }
    for (const [column, value] of Object.entries(comparable)) if (Buffer.isBuffer(value)) comparable[column] = `bytes:${value.toString('base64')}`;
    out.push(comparable);
  }
  return sortedTexts(out);
}

/**
 * Rows of the tables neither the seed nor the API calls above fill (document migrations, user data jobs, agent
 * runs, mail), written into the data dir as the services write them, with the values that try a conversion: JSON
 * with non-ASCII text and its key order, NULLs, an integer past 2^32, a secret column.
 */
function fillTheRest(dataDir: string, workspaceId: string) {
  const db = new Database(join(dataDir, 'hearth.db'));
  try {
    const { id: apiKeyId } = db.prepare('SELECT id FROM api_keys WHERE workspace_id = ?').get(workspaceId) as { id: string };
    db.prepare(
      "INSERT INTO document_migrations (id, api_key_id, organization_id, from_document_id, to_document_id, status, error, attempts, created_at, started_at, completed_at) VALUES ('mig-1', ?, 'initech', 'spec', 'spec-2', 'failed', 'the target exists', 3, ?, ?, NULL)",
    ).run(apiKeyId, NOW - 5_000, NOW - 4_000);
    db.prepare(
      "INSERT INTO user_data_jobs (id, api_key_id, user_id, status, error, attempts, created_at, completed_at) VALUES ('job-1', ?, 'ann', 'completed', NULL, 1, ?, ?)",
    ).run(apiKeyId, NOW - 3_000, NOW - 2_000);
    // more rows than a page of the readers (1,000): a table read in several pages
    const job = db.prepare("INSERT INTO user_data_jobs (id, api_key_id, user_id, status, attempts, created_at) VALUES (?, ?, ?, 'pending', 0, ?)");
    for (let i = 0; i < 1_100; i++) job.run(`job-bulk-${String(i).padStart(4, '0')}`, apiKeyId, `user-${i % 7}`, NOW - i);
    db.prepare(
      `INSERT INTO agent_executions (api_key_id, id, agent_id, agent_name, agent_version, organization_id, document_id, editor_id, status, message, "trigger",
        llm_model, input, ran_by, started_at, completed_at, duration_ms, token_usage, findings)
        VALUES (?, 'run-1', 'tone', 'CHARLIE tone', 2, 'initech', 'spec', NULL, 'passed', 'ok', 'manual', 'gpt-4o', 'Grüße, ☃ and "quotes"', ?, ?, ?, ?, ?, ?)`,
    ).run(
      apiKeyId,
      '{"userId":"ann","name":"Ännchen ☃"}',
      NOW - 1_000,
      NOW,
      8_589_934_593,
      '{"promptTokens":12,"completionTokens":3,"totalTokens":15}',
      '[{"quote":null,"comment":"Zürich — “smart” quotes","severity":"low","annotationId":null}]',
    );
    const key = keyOf(dataDir);
    db.prepare(
      `INSERT INTO mail_outbox (id, workspace_id, api_key_id, kind, to_address, from_address, from_name, subject, body_enc, status, login_link_id, attempts, last_error, created_at, sent_at)
        VALUES ('mail-1', ?, NULL, 'login_link', 'ann@example.com', NULL, NULL, 'Sign in', ?, 'kept', NULL, 0, NULL, ?, NULL)`,
    ).run(workspaceId, key.encrypt(JSON.stringify({ text: 'Sign in: https://example.test/x', html: '<p>Sign in</p>' })), NOW - 500);
  } finally {
    db.close();
  }
}

let postgres: ThrowawayPostgres;
let sourceDir: string;
let pgDataDir: string;
let archiveFromSqlite: string;
let archiveFromPostgres: string;
let otherWorkspaceId: string;

beforeAll(async () => {
  sourceDir = temp('hearth-pg-archive-src-');
  await seedDataDir({ dataDir: sourceDir, size: 'small', now: NOW });
  // a second workspace through the real API: what the seed leaves empty (deliveries and attempts, AI provider keys,
  // domains, a live CRDT update log not yet compacted)
  const receiver = await startReceiver({ fallback: { status: 200 } });
  const t = await serverOn(sourceDir, { webhooks: FAST_WEBHOOKS });
  try {
    const other = await createWorkspace(t);
    otherWorkspaceId = other.workspaceId;
    await populateKey(t, { apiKey: other.apiKey, authToken: other.authToken, headersK: other.headersK }, 'initech', 'CHARLIE', {
      webhookReceiverUrl: receiver.url,
    });
  } finally {
    await t.server.close();
    await receiver.close();
  }
  fillTheRest(sourceDir, otherWorkspaceId);
  postgres = await startPostgres();
  archiveFromSqlite = join(temp('hearth-pg-archive-a-'), 'archive');
  await exportArchive({ dataDir: sourceDir, out: archiveFromSqlite, secrets: 'include', passphrase: PASSPHRASE });
}, 180_000);

afterAll(async () => {
  await postgres?.stop();
});

describe('a whole data dir moved up to PostgreSQL', () => {
  it('imports every row of the archive into a new PostgreSQL database (migrated by the import)', async () => {
    pgDataDir = temp('hearth-pg-archive-pgdir-');
    const summary = await importArchiveIntoPostgres(archiveFromSqlite, { databaseUrl: postgres.url, dataDir: pgDataDir, passphrase: PASSPHRASE });
    const manifest = JSON.parse(readFileSync(join(archiveFromSqlite, 'manifest.json'), 'utf8')) as Manifest;
    expect(summary.rows).toEqual({ inserted: manifest.tables.reduce((sum, t) => sum + t.rows, 0), replaced: 0, skipped: 0 });
    expect(summary.generatedSecrets).toEqual([]);
    expect(summary.files).toBe(manifest.tables.find((t) => t.name === 'recording_attachments')!.rows);
    // the attachments' bytes are in the database, where every instance of a cluster reads them, not in the data dir
    expect(await pgRows(postgres.url, 'SELECT count(*) AS n FROM attachment_blobs')).toEqual([{ n: summary.files }]);
    expect(existsSync(join(pgDataDir, 'attachments'))).toBe(false);
    // the fixture fills every table the archive holds, so that no comparison below is of two empty sets, and one
    // past a page of the readers
    expect(manifest.tables.filter((t) => t.rows === 0).map((t) => t.name)).toEqual([]);
    expect(Math.max(...manifest.tables.map((t) => t.rows))).toBeGreaterThan(1_000);
  }, 120_000);

  it('exports the same archive back from PostgreSQL: every table, row by row, secrets included', async () => {
    archiveFromPostgres = join(temp('hearth-pg-archive-b-'), 'archive');
    const summary = await exportArchiveFromPostgres(archiveFromPostgres, {
      databaseUrl: postgres.url,
      dataDir: pgDataDir,
      secrets: 'include',
      passphrase: PASSPHRASE,
    });
    const a = readArchive(archiveFromSqlite);
    const b = readArchive(archiveFromPostgres);
    expect(summary.scope).toEqual({ kind: 'all' });
    expect(b.manifest.schemaLevel).toBe(a.manifest.schemaLevel);
    expect(b.manifest.tables).toEqual(a.manifest.tables);
    expect(Object.keys(b.tables)).toEqual(Object.keys(a.tables));
    for (const table of Object.keys(a.tables)) expect(b.tables[table], table).toEqual(a.tables[table]);
    // the attachment files are the same bytes
    const files = (m: Manifest) => Object.fromEntries(Object.entries(m.files).filter(([path]) => path.startsWith('files/')));
    expect(files(b.manifest)).toEqual(files(a.manifest));
    expect(Object.keys(files(a.manifest)).length).toBeGreaterThan(0);
  }, 120_000);

  it("holds every table's rows as the SQLite original stores them (JSON text byte for byte, booleans, integers, bytes, NULLs)", async () => {
    const sqlite = new Database(join(sourceDir, 'hearth.db'), { readonly: true });
    sqlite.prepare('ATTACH DATABASE ? AS deliveries').run(join(sourceDir, 'webhooks.db'));
    const sourceKey = keyOf(sourceDir);
    const pgKey = keyOf(pgDataDir);
    try {
      const sqliteLog = sqlite.prepare<unknown[], { update: Buffer }>(
        'SELECT "update" FROM crdt_updates WHERE api_key_id = ? AND organization_id = ? AND document_id = ? AND editor_id = ? ORDER BY seq',
      );
      for (const spec of archiveTables()) {
        const qualified = spec.database === 'deliveries' ? `deliveries."${spec.name}"` : `"${spec.name}"`;
        const original = await comparableRows(spec.name, sqlite.prepare(`SELECT * FROM ${qualified}`).all() as Row[], sourceKey, async (row) =>
          sqliteLog.all(row.api_key_id, row.organization_id, row.document_id, row.editor_id).map((r) => r.update),
        );
        const moved = await comparableRows(spec.name, await pgRows(postgres.url, `SELECT * FROM "${spec.name}"`), pgKey, async (row) =>
          (
            await pgRows(
              postgres.url,
              'SELECT "update" FROM crdt_updates WHERE api_key_id = $1 AND organization_id = $2 AND document_id = $3 AND editor_id = $4 ORDER BY seq',
              [row.api_key_id, row.organization_id, row.document_id, row.editor_id],
            )
          ).map((r) => r.update as Buffer),
        );
        expect(moved.length, spec.name).toBeGreaterThan(0);
        expect(moved, spec.name).toEqual(original);
      }
      // the values' types as PostgreSQL holds them: JSON as the text written, booleans as booleans
      const [json] = await pgRows(postgres.url, 'SELECT settings::text AS t, pg_typeof(settings)::text AS type FROM api_keys ORDER BY id LIMIT 1');
      const [sqliteJson] = sqlite.prepare('SELECT settings AS t FROM api_keys ORDER BY id LIMIT 1').all() as Row[];
      expect(json).toEqual({ t: sqliteJson!.t, type: 'json' });
      const [flag] = await pgRows(
        postgres.url,
        'SELECT pg_typeof(is_default)::text AS type, count(*) FILTER (WHERE is_default) AS n FROM workspaces GROUP BY 1',
      );
      expect(flag).toEqual({ type: 'boolean', n: 1 });
    } finally {
      sqlite.close();
    }
  }, 120_000);

  it('keeps the order of identity columns and lets later inserts take new values (judgments.seq, crdt_updates.seq)', async () => {
    const sqlite = new Database(join(sourceDir, 'hearth.db'), { readonly: true });
    const original = (sqlite.prepare('SELECT id FROM judgments ORDER BY seq').all() as Array<{ id: string }>).map((r) => r.id);
    sqlite.close();
    const moved = (await pgRows(postgres.url, 'SELECT id FROM judgments ORDER BY seq')).map((r) => r.id);
    expect(moved.length).toBeGreaterThan(0);
    expect(moved).toEqual(original);
    const [top] = await pgRows(postgres.url, 'SELECT max(seq) AS m FROM judgments');
    const [judgment] = await pgRows(
      postgres.url,
      `INSERT INTO judgments (id, api_key_id, decision, reviewer_id, subject, scope_terms, source, source_id, created_at)
        SELECT 'after-import', api_key_id, decision, reviewer_id, subject, scope_terms, source, source_id, created_at FROM judgments ORDER BY seq LIMIT 1
        RETURNING seq`,
    );
    expect(judgment!.seq as number).toBeGreaterThan(top!.m as number);
    const [update] = await pgRows(
      postgres.url,
      `INSERT INTO crdt_updates (api_key_id, organization_id, document_id, editor_id, "update", created_at)
        SELECT api_key_id, organization_id, document_id, editor_id, '\\x00'::bytea, 0 FROM crdt_documents LIMIT 1 RETURNING seq`,
    );
    expect(update!.seq).toEqual(expect.any(Number));
    await pgRows(postgres.url, "DELETE FROM judgments WHERE id = 'after-import'");
    await pgRows(postgres.url, 'DELETE FROM crdt_updates WHERE seq = $1', [update!.seq]);
  });

  it('refuses a database whose secrets are under another master key, or that a server is connected to, and changes nothing', async () => {
    const count = async () => (await pgRows(postgres.url, 'SELECT (SELECT count(*) FROM workspaces) + (SELECT count(*) FROM organizations) AS n'))[0]!.n;
    const before = await count();
    await expect(
      importArchiveIntoPostgres(archiveFromSqlite, {
        databaseUrl: postgres.url,
        dataDir: temp('hearth-pg-archive-otherkey-'),
        passphrase: PASSPHRASE,
        conflict: 'skip',
      }),
    ).rejects.toThrow(/another master key .*fingerprint differs/);
    const server = new pg.Client({ connectionString: postgres.url, application_name: 'hearth' });
    await server.connect();
    try {
      await expect(
        importArchiveIntoPostgres(archiveFromSqlite, { databaseUrl: postgres.url, dataDir: pgDataDir, passphrase: PASSPHRASE, conflict: 'skip' }),
      ).rejects.toThrow(/A Hearth server is connected to PostgreSQL database hearth .*stop every instance/);
    } finally {
      await server.end();
    }
    expect(await count()).toBe(before);
    // with the right key and no server, the same import skips every row it finds there already
    const again = await importArchiveIntoPostgres(archiveFromSqlite, {
      databaseUrl: postgres.url,
      dataDir: pgDataDir,
      passphrase: PASSPHRASE,
      conflict: 'skip',
    });
    expect(again.rows.inserted).toBe(0);
    expect(again.rows.skipped).toBeGreaterThan(0);
    expect(await count()).toBe(before);
  }, 120_000);
});

describe('importing again into the same PostgreSQL database', () => {
  it('fails on the first row that is there already, naming the database; replaces every row (and drops the log after a replaced CRDT state)', async () => {
    await expect(
      importArchiveIntoPostgres(archiveFromSqlite, { databaseUrl: postgres.url, dataDir: pgDataDir, passphrase: PASSPHRASE, conflict: 'fail' }),
    ).rejects.toThrow(
      /tables\/workspaces\.jsonl line 1: workspaces id=.* exists already in PostgreSQL database hearth on 127\.0\.0\.1:\d+; nothing was imported/,
    );
    const [room] = await pgRows(postgres.url, 'SELECT api_key_id, organization_id, document_id, editor_id FROM crdt_documents ORDER BY 1, 2, 3, 4 LIMIT 1');
    await pgRows(
      postgres.url,
      `INSERT INTO crdt_updates (api_key_id, organization_id, document_id, editor_id, "update", created_at) VALUES ($1, $2, $3, $4, '\\x00'::bytea, 0)`,
      [room!.api_key_id, room!.organization_id, room!.document_id, room!.editor_id],
    );
    const manifest = JSON.parse(readFileSync(join(archiveFromSqlite, 'manifest.json'), 'utf8')) as Manifest;
    const replaced = await importArchiveIntoPostgres(archiveFromSqlite, {
      databaseUrl: postgres.url,
      dataDir: pgDataDir,
      passphrase: PASSPHRASE,
      conflict: 'replace',
    });
    expect(replaced.rows).toEqual({ inserted: 0, replaced: manifest.tables.reduce((sum, t) => sum + t.rows, 0), skipped: 0 });
    expect(await pgRows(postgres.url, 'SELECT count(*) AS n FROM crdt_updates')).toEqual([{ n: 0 }]);
    const again = join(temp('hearth-pg-archive-c-'), 'archive');
    await exportArchiveFromPostgres(again, { databaseUrl: postgres.url, dataDir: pgDataDir, secrets: 'include', passphrase: PASSPHRASE });
    const a = readArchive(archiveFromSqlite);
    const c = readArchive(again);
    for (const table of Object.keys(a.tables)) expect(c.tables[table], table).toEqual(a.tables[table]);
  }, 120_000);
});

describe('one workspace moved up to PostgreSQL', () => {
  it('imports only that workspace, and exports it back row for row', async () => {
    const scoped = join(temp('hearth-pg-archive-ws-'), 'archive');
    await exportArchive({ dataDir: sourceDir, out: scoped, workspaceId: otherWorkspaceId, secrets: 'include', passphrase: PASSPHRASE });
    const url = await postgres.createDatabase('one_workspace');
    const dataDir = temp('hearth-pg-archive-wsdir-');
    const summary = await importArchiveIntoPostgres(scoped, { databaseUrl: url, dataDir, passphrase: PASSPHRASE });
    expect(summary.scope).toEqual({ kind: 'workspace', workspaceId: otherWorkspaceId });
    expect((await pgRows(url, 'SELECT id FROM workspaces')).map((r) => r.id)).toEqual([otherWorkspaceId]);

    // the whole database exported back is the workspace's archive: nothing more came along, nothing was lost
    const back = join(temp('hearth-pg-archive-wsb-'), 'archive');
    await exportArchiveFromPostgres(back, { databaseUrl: url, dataDir, secrets: 'include', passphrase: PASSPHRASE });
    const a = readArchive(scoped);
    const b = readArchive(back);
    expect(b.manifest.tables.map((t) => [t.name, t.rows])).toEqual(a.manifest.tables.map((t) => [t.name, t.rows]));
    for (const table of Object.keys(a.tables)) expect(b.tables[table], table).toEqual(a.tables[table]);
    expect(a.tables.crdt_documents!.length).toBeGreaterThan(0);
    expect(a.tables.webhook_attempts!.length).toBeGreaterThan(0);
    expect(a.tables.user_data_jobs!.length).toBeGreaterThan(1_000);

    // and the same workspace exported from PostgreSQL with a workspace scope is the same archive again
    const scopedBack = join(temp('hearth-pg-archive-wsc-'), 'archive');
    await exportArchiveFromPostgres(scopedBack, {
      databaseUrl: postgres.url,
      dataDir: pgDataDir,
      workspaceId: otherWorkspaceId,
      secrets: 'include',
      passphrase: PASSPHRASE,
    });
    const c = readArchive(scopedBack);
    expect(c.manifest.scope).toEqual(a.manifest.scope);
    for (const table of Object.keys(a.tables)) expect(c.tables[table], table).toEqual(a.tables[table]);
  }, 120_000);
});
