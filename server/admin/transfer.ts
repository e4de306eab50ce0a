// Emulator comforts while the server runs, for one API key: export its data as one JSON file, import such a file,
// and reset it to the seeded state (`hearth seed`'s small set). Their SQL is the storage layer's
// (db/repos/key-transfer.ts); this keeps the archive's format and the order of things. Loaded Yjs documents of the
// key are dropped in the unit of work that changes their rows (their clients are closed with 1012, which the stock
// y-websocket provider retries, and reconnect and sync with what is stored), so that memory never holds what the
// database does not.
import type { AppContext } from '../context.ts';
import { KEY_TABLES, type KeyTable } from '../db/repos/key-transfer.ts';
import { forgetRooms } from '../services/crdt.ts';
import type { TenantScope } from '../db/scope.ts';
import { createEndpoint, updateAdvancedConfig } from '../services/webhooks.ts';
import { generateSet, planOrganizations, type GeneratedSet } from '../tooling/seed-generate.ts';
import { SEED_SIZES } from '../tooling/seed-options.ts';
import { dice, seededRandom } from '../tooling/seed-text.ts';

/** The tables an export holds, parents first (the order an import writes them in). */
export const EXPORT_TABLES = KEY_TABLES;
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

const encode = (value: unknown): Value =>
  Buffer.isBuffer(value) || value instanceof Uint8Array ? { $base64: Buffer.from(value).toString('base64') } : (value as Value);

/**
 * A webhook endpoint's secrets (its signing secret and the previous one while a rotation overlaps, encrypted under
 * this data dir's master key) and its health (`failing_since`, this server's deliveries): never in the archive.
 */
const ENDPOINT_LOCAL = new Set(['secret_enc', 'previous_secret_enc', 'previous_secret_expires_at', 'failing_since']);

/**
 * Columns that belong to this data dir and are not exported: crdt_updates' `seq` (the log's order here, made anew
 * on import) and a webhook endpoint's secrets and health (an import gives each endpoint a new signing secret).
 */
export const local = (table: KeyTable, column: string) =>
  (table === 'crdt_updates' && column === 'seq') || (table === 'webhook_endpoints' && ENDPOINT_LOCAL.has(column));

export async function exportKey(app: Pick<AppContext, 'storage' | 'crdt'>, scope: TenantScope): Promise<Archive> {
  await app.crdt.flush();
  const rows = await app.storage.keyTransfer.exportRows(scope, EXPORT_MAX_ROWS);
  if (!rows)
    throw new TransferRefused(
      `This key holds more than ${EXPORT_MAX_ROWS.toLocaleString('en-US')} rows: export it with \`npx hearth export --api-key ${scope.apiKeyId}\` instead.`,
    );
  const tables: Archive['tables'] = {};
  for (const table of EXPORT_TABLES) {
    tables[table] = (rows[table] ?? []).map((row) => {
      const out: Record<string, Value> = {};
      for (const [k, v] of Object.entries(row)) if (!local(table, k)) out[k] = encode(v);
      return out;
    });
  }
  return { format: EXPORT_FORMAT, version: 1, exportedAt: new Date().toISOString(), apiKey: scope.apiKeyId, tables };
}

/**
 * Deletes everything of the key's data (organizations and what is in them, users, collaborative documents, agents,
 * workflow definitions, webhook endpoints and pending events) and writes `hearth seed`'s small set again.
 */
export async function resetKey(app: AppContext, scope: TenantScope): Promise<{ removed: Record<string, number>; seeded: Record<string, number> }> {
  const apiKey = await app.storage.keys.find(scope);
  if (!apiKey) throw new TransferRefused(`No API key ${scope.apiKeyId}.`);
  // the worker stops delivering to the endpoints first (it answers over its channel: not inside a unit of work)
  for (const id of await app.storage.keyTransfer.endpointIds(scope)) await app.webhooks.cancelTarget(scope.apiKeyId, id);
  const counts = SEED_SIZES.small;
  let plan: ReturnType<typeof planOrganizations> = [];
  let set: GeneratedSet = { organizations: [], userIds: [], attachments: [], rows: {} };
  // The wipe and the seed in one unit of work: the live documents' clients, closed once it commits, reconnect (in
  // 200 ms, y-websocket's first backoff) to the seeded rooms. With the seed written after the wipe's commit, a
  // client back sooner than the seed created its room empty, and the seed's row for it then failed the reset.
  const { removed, storageKeys } = await app.storage.transaction(async () => {
    // made here, not before: a unit of work PostgreSQL refused runs again, from the same dice
    const d = dice(seededRandom(1));
    plan = planOrganizations(d, counts.organizations);
    set = { organizations: [], userIds: [], attachments: [], rows: {} };
    const wiped = await app.storage.keyTransfer.wipe(scope);
    await app.storage.keyTransfer.fill(scope, (writer) =>
      generateSet({ writer, apiKey, d, now: Date.now(), counts, plan, progress: () => undefined, out: set }),
    );
    app.storage.afterCommit(() => forgetRooms(app, scope, wiped.rooms));
    return wiped;
  });
  await app.storage.attachments.remove(storageKeys);
  await app.storage.attachments.put(set.attachments);
  // the seed's demo endpoints: disabled, pointing where nothing listens (as `hearth seed` makes them)
  const config = await app.storage.seed.webhookConfig(scope);
  if (!config || config.isEnabled) {
    if (!config) await updateAdvancedConfig(app, scope, { isEnabled: true });
    const tag = plan[0]?.tag ?? 'demo';
    for (const [suffix, filterTypes] of [
      ['comments', ['comment_annotation.add', 'comment.add'] as Array<'comment_annotation.add' | 'comment.add'>],
      ['all', undefined],
    ] as const) {
      await createEndpoint(app, scope, {
        url: `http://127.0.0.1:9/hearth-demo/${tag}/${suffix}`,
        description: `Demo endpoint (${suffix}; disabled: point it at your receiver, then enable it)`,
        filterTypes: filterTypes ? [...filterTypes] : undefined,
        disabled: true,
        uid: `hearth-demo-${tag}-${suffix}`,
        metadata: { seededBy: 'hearth seed' },
      });
    }
    set.rows.webhookEndpoints = 2;
  }
  return { removed, seeded: set.rows };
}
