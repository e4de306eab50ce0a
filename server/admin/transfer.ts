// Emulator comforts while the server runs, for one API key: export its data as one JSON file, import such a file,
// and reset it to the seeded state (`hearth seed`'s small set). The SQL of these lives here (with queries.ts,
// the admin's only database access). Loaded Yjs documents of the key are dropped first (their clients reconnect
// and sync with what is stored), so that memory never holds what the database does not.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { apiKeys } from '../db/schema.ts';
import { attachmentsDir } from '../services/recordings.ts';
import { createEndpoint, updateAdvancedConfig } from '../services/webhooks.ts';
import { generateSet, planOrganizations, type GeneratedSet } from '../tooling/seed-generate.ts';
import { SEED_SIZES } from '../tooling/seed-options.ts';
import { dice, seededRandom } from '../tooling/seed-text.ts';
import { createBulkWriter } from '../db/bulk.ts';

/** The tables an export holds, parents first (the order an import writes them in). */
export const EXPORT_TABLES = [
  'organizations',
  'folders',
  'documents',
  'users',
  'memberships',
  'user_groups',
  'user_group_members',
  'notifications',
  'notification_recipients',
  'notification_configs',
  'activities',
  'comment_annotations',
  'comments',
  'comment_reads',
  'reactions',
  'crdt_documents',
  'crdt_updates',
  'agents',
  'workflow_definitions',
] as const;
/** Above this many rows the UI's export (one JSON answer in memory) refers to `hearth export`. */
export const EXPORT_MAX_ROWS = 250_000;
export const EXPORT_FORMAT = 'hearth-admin-export';

type Value = string | number | null | { $base64: string };
export interface Archive {
  format: typeof EXPORT_FORMAT;
  version: 1;
  exportedAt: string;
  apiKey: string;
  tables: Record<string, Array<Record<string, Value>>>;
}

export class TransferRefused extends Error {}

const encode = (value: unknown): Value => (Buffer.isBuffer(value) || value instanceof Uint8Array ? { $base64: Buffer.from(value).toString('base64') } : (value as Value));
const decode = (value: Value): unknown => (value !== null && typeof value === 'object' ? Buffer.from(value.$base64, 'base64') : value);

function columnsOf(app: AppContext, table: string): string[] {
  return (app.sqlite.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name);
}

/** Drops the key's loaded Yjs documents: removes their rows (the caller writes new ones) and disconnects clients. */
function dropCrdt(app: AppContext, apiKeyId: string, only?: Array<{ organization_id: string; document_id: string; editor_id: string }>) {
  const rows = only ?? (app.sqlite.prepare('SELECT organization_id, document_id, editor_id FROM crdt_documents WHERE api_key_id = ?').all(apiKeyId) as Array<{ organization_id: string; document_id: string; editor_id: string }>);
  const remove = app.sqlite.prepare('DELETE FROM crdt_documents WHERE api_key_id = ? AND organization_id = ? AND document_id = ? AND editor_id = ?');
  for (const r of rows) {
    app.crdt.forget({ apiKeyId, organizationId: r.organization_id, documentId: r.document_id, editorId: r.editor_id });
    remove.run(apiKeyId, r.organization_id, r.document_id, r.editor_id);
  }
  return rows.length;
}

export async function exportKey(app: AppContext, apiKeyId: string): Promise<Archive> {
  const tables: Archive['tables'] = {};
  let total = 0;
  await app.crdt.flush();
  const read = app.sqlite.transaction(() => {
    for (const table of EXPORT_TABLES) {
      const n = (app.sqlite.prepare(`SELECT count(*) AS n FROM ${table} WHERE api_key_id = ?`).get(apiKeyId) as { n: number }).n;
      total += n;
      if (total > EXPORT_MAX_ROWS) throw new TransferRefused(`This key holds more than ${EXPORT_MAX_ROWS.toLocaleString('en-US')} rows: export it with \`npx hearth export --api-key ${apiKeyId}\` instead.`);
      const rows = app.sqlite.prepare(`SELECT * FROM ${table} WHERE api_key_id = ?`).all(apiKeyId) as Array<Record<string, unknown>>;
      tables[table] = rows.map((row) => {
        const out: Record<string, Value> = {};
        for (const [k, v] of Object.entries(row)) if (k !== 'api_key_id' && !(table === 'crdt_updates' && k === 'seq')) out[k] = encode(v);
        return out;
      });
    }
  });
  read();
  return { format: EXPORT_FORMAT, version: 1, exportedAt: new Date().toISOString(), apiKey: apiKeyId, tables };
}

/** Writes an export's rows into the key (rows with the same keys are replaced), in one transaction. */
export function importKey(app: AppContext, apiKeyId: string, archive: Archive): Record<string, number> {
  const imported: Record<string, number> = {};
  const docs = (archive.tables.crdt_documents ?? []).map((r) => ({ organization_id: String(r.organization_id), document_id: String(r.document_id), editor_id: String(r.editor_id) }));
  const write = app.sqlite.transaction(() => {
    // documents being replaced: their old rows (and logs) go first, so the imported log is the only one
    dropCrdt(app, apiKeyId, docs);
    for (const table of EXPORT_TABLES) {
      const rows = archive.tables[table];
      if (!rows?.length) continue;
      const known = new Set(columnsOf(app, table));
      let n = 0;
      for (const row of rows) {
        const cols = Object.keys(row).filter((c) => known.has(c) && c !== 'api_key_id' && !(table === 'crdt_updates' && c === 'seq'));
        const sql = `INSERT OR REPLACE INTO ${table} (api_key_id, ${cols.join(', ')}) VALUES (?, ${cols.map(() => '?').join(', ')})`;
        app.sqlite.prepare(sql).run(apiKeyId, ...cols.map((c) => decode(row[c] as Value)));
        n++;
      }
      imported[table] = n;
    }
  });
  try {
    write();
  } catch (error) {
    throw new TransferRefused(`The import changed nothing: ${error instanceof Error ? error.message : String(error)}`);
  }
  return imported;
}

/**
 * Deletes everything of the key's data (organizations and what is in them, users, collaborative documents, agents,
 * workflow definitions, webhook endpoints and pending events) and writes `hearth seed`'s small set again.
 */
export async function resetKey(app: AppContext, apiKeyId: string): Promise<{ removed: Record<string, number>; seeded: Record<string, number> }> {
  const apiKey = app.db.select().from(apiKeys).where(eq(apiKeys.id, apiKeyId)).get();
  if (!apiKey) throw new TransferRefused(`No API key ${apiKeyId}.`);
  const removed: Record<string, number> = {};
  removed.crdt_documents = dropCrdt(app, apiKeyId);
  const endpoints = app.sqlite.prepare('SELECT id FROM webhook_endpoints WHERE api_key_id = ?').all(apiKeyId) as Array<{ id: string }>;
  for (const e of endpoints) await app.webhooks.cancelTarget(apiKeyId, e.id);
  const storageKeys = (app.sqlite.prepare('SELECT storage_key AS k FROM recording_attachments WHERE api_key_id = ?').all(apiKeyId) as Array<{ k: string }>).map((r) => r.k);
  const wipe = app.sqlite.transaction(() => {
    const count = (table: string) => (app.sqlite.prepare(`SELECT count(*) AS n FROM ${table} WHERE api_key_id = ?`).get(apiKeyId) as { n: number }).n;
    for (const table of ['organizations', 'documents', 'users', 'notifications', 'activities', 'comment_annotations', 'recordings']) removed[table] = count(table);
    // organizations cascade to everything in them; users, agents, workflows and endpoints are the key's own
    for (const table of ['organizations', 'users', 'agent_executions', 'agents', 'workflow_definitions', 'judgments', 'webhook_endpoints', 'user_data_jobs']) app.sqlite.prepare(`DELETE FROM ${table} WHERE api_key_id = ?`).run(apiKeyId);
    app.sqlite.prepare('DELETE FROM webhook_events WHERE api_key_id = ? AND dispatched_at IS NULL').run(apiKeyId);
    removed.webhook_endpoints = endpoints.length;
  });
  wipe();
  for (const key of storageKeys) rmSync(join(attachmentsDir(app.config.dataDir), key), { force: true });

  const counts = SEED_SIZES.small;
  const d = dice(seededRandom(1));
  const plan = planOrganizations(d, counts.organizations);
  const set: GeneratedSet = { organizations: [], userIds: [], storageKeys: [], rows: {} };
  const writer = createBulkWriter(app.sqlite, 10_000);
  try {
    generateSet({ writer, apiKey, dataDir: app.config.dataDir, d, now: Date.now(), counts, plan, progress: () => undefined, out: set });
    writer.commit();
  } catch (error) {
    writer.rollback();
    throw error;
  }
  // the seed's demo endpoints: disabled, pointing where nothing listens (as `hearth seed` makes them)
  const config = app.sqlite.prepare('SELECT is_enabled AS enabled FROM webhook_configs WHERE api_key_id = ?').get(apiKeyId) as { enabled: number } | undefined;
  if (!config || config.enabled === 1) {
    if (!config) updateAdvancedConfig(app, apiKeyId, { isEnabled: true });
    const tag = plan[0]?.tag ?? 'demo';
    for (const [suffix, filterTypes] of [
      ['comments', ['comment_annotation.add', 'comment.add'] as Array<'comment_annotation.add' | 'comment.add'>],
      ['all', undefined],
    ] as const) {
      createEndpoint(app, apiKeyId, { url: `http://127.0.0.1:9/hearth-demo/${tag}/${suffix}`, description: `Demo endpoint (${suffix}; disabled: point it at your receiver, then enable it)`, filterTypes: filterTypes ? [...filterTypes] : undefined, disabled: true, uid: `hearth-demo-${tag}-${suffix}`, metadata: { seededBy: 'hearth seed' } });
    }
    set.rows.webhookEndpoints = 2;
  }
  return { removed, seeded: set.rows };
}
