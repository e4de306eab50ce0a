/**
 * `hearth seed`: a realistic demo data set written into a data dir, so that a new user sees a populated admin UI
 * at once and the benchmarks have a large, known data set (`large`: 100k documents, 1M notifications).
 *
 * The rows are written directly in bulk (the storage's bulk load, db/bulk.ts: prepared statements, 10k rows per
 * transaction) in the services' shape; see seed-generate.ts. That is why a data dir a running server holds is refused: the server caches documents
 * and would not see rows written under it. The same random source gives the same data; a seed already present
 * in the API key is refused (another seed adds a second, separate set).
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { resolveConfig } from '../config.ts';
import type { AppContext } from '../context.ts';
import { attachmentsDir, CREDENTIALS_FILE, DATABASE_FILE, KEY_FILE } from '../data-files.ts';
import type { TenantScope } from '../db/scope.ts';
import { openApp } from '../index.ts';
import { runningServer } from '../server-lock.ts';
import { ensureDefaultCredentials } from '../services/bootstrap.ts';
import { createEndpoint, updateAdvancedConfig } from '../services/webhooks.ts';
import { CONTENT_KEY, EDITOR_ID, generateSet, planOrganizations, type GeneratedSet } from './seed-generate.ts';
import { SEED_SIZES, SeedRefusedError, type SeedCounts, type SeedSize } from './seed-options.ts';
import { dice, seededRandom, type Random } from './seed-text.ts';

export { SEED_SIZES, SeedRefusedError, type SeedCounts, type SeedSize };

export interface SeedOptions {
  dataDir: string;
  size: SeedSize;
  /** The API key to fill (default: the default workspace's testing key, made first if the data dir is new). */
  apiKeyId?: string;
  onProgress?: (done: number, total: number, label: string) => void;
  /** The random source every choice is drawn from (default: seed 1). */
  random?: () => number;
  /** The clock the data's timestamps are spread back from (the last 60 days); default now. */
  now?: number;
  /** Overrides of the size's counts (the tests use a reduced `large`). */
  counts?: Partial<SeedCounts>;
  /** Rows per transaction (default 10,000). */
  batchRows?: number;
}

export interface SeedSummary {
  dataDir: string;
  workspaceId: string;
  apiKeyId: string;
  size: SeedSize;
  organizations: Array<{ id: string; name: string; documents: number; crdtDocuments: number }>;
  /** Rows written per table. */
  rows: Record<string, number>;
  /** Ids of the webhook endpoints made (disabled, pointing at nothing): empty when advanced webhooks were turned off by the user. */
  webhookEndpoints: string[];
  notes: string[];
  /** The editor id and content key of every seeded document's collaborative content. */
  crdt: { editorId: string; contentKey: string };
  durationMs: number;
  /** The database file plus the attachments, after a WAL checkpoint. */
  databaseBytes: number;
  attachmentBytes: number;
  credentialsFile: string;
}

export async function seedDataDir(options: SeedOptions): Promise<SeedSummary> {
  const started = performance.now();
  const dataDir = resolve(options.dataDir);
  const running = runningServer(dataDir);
  if (running)
    throw new SeedRefusedError(
      `A Hearth server (pid ${running.pid}, ${running.url}) is running on ${dataDir}: stop it before seeding (the seed writes the database directly, in bulk).`,
    );
  const counts = { ...SEED_SIZES[options.size], ...options.counts };
  for (const [name, value] of Object.entries(counts)) {
    if (!Number.isInteger(value) || value < 0) throw new SeedRefusedError(`counts.${name} must be a whole number ≥ 0, not ${String(value)}.`);
  }
  if (counts.organizations < 1 || counts.usersPerOrganization < 2 || counts.documents < counts.organizations) {
    throw new SeedRefusedError('A seed needs at least one organization, two users per organization and one document per organization.');
  }

  if (existsSync(join(dataDir, DATABASE_FILE)) && !existsSync(join(dataDir, KEY_FILE))) {
    throw new SeedRefusedError(`${dataDir} has a database but no ${KEY_FILE}: restore the key (or a backup) before seeding it.`);
  }
  const app = await openApp(resolveConfig({ dataDir, logLevel: 'warn' }));
  try {
    const credentials = await ensureDefaultCredentials(app);
    const apiKeyId = options.apiKeyId ?? credentials.apiKey;
    const apiKey = await app.storage.seed.apiKey(apiKeyId);
    if (!apiKey) throw new SeedRefusedError(`No API key ${apiKeyId} in ${dataDir}.`);
    const scope = app.storage.keys.scopeOf(apiKey);

    const d = dice(options.random ?? seededRandom(1));
    const plan = planOrganizations(d, counts.organizations);
    const present = await app.storage.seed.presentOrganization(
      scope,
      plan.map((o) => o.id),
    );
    if (present)
      throw new SeedRefusedError(`API key ${apiKeyId} already holds this seed's demo set (organization ${present}): pass another --seed to add a second set.`);

    const total = counts.documents + Math.min(counts.crdtDocuments, counts.documents) + counts.annotations + counts.recordings + counts.notifications;
    const report = progressReporter(total, options.onProgress);
    const writer = app.storage.seed.openBulkLoad({ batchRows: options.batchRows ?? 10_000 });
    const set = emptySet();
    const tag = plan[0]?.tag ?? 'demo';
    const now = options.now ?? Date.now();
    try {
      generateSet({ writer, apiKey, d, now, counts, plan, progress: report.tick, out: set });
      // the bytes before the rows that point at them (as /v2/recordings/add stores them)
      await app.storage.attachments.put(set.attachments);
      await writer.commit();
      const webhooks = await seedWebhooks(app, scope, tag, set);
      report.finish();
      await writer.finish();
      const attachmentBytes = set.attachments.reduce((sum, a) => sum + a.bytes.length, 0);
      return {
        dataDir,
        workspaceId: credentials.workspaceId,
        apiKeyId,
        size: options.size,
        organizations: set.organizations.map((o) => ({ id: o.id, name: o.name, documents: o.documentIds.length, crdtDocuments: o.crdtDocuments.length })),
        rows: { ...set.rows, webhookEndpoints: webhooks.endpoints.length },
        webhookEndpoints: webhooks.endpoints,
        notes: webhooks.notes,
        crdt: { editorId: EDITOR_ID, contentKey: CONTENT_KEY },
        durationMs: Math.round(performance.now() - started),
        databaseBytes: await app.storage.databaseBytes(),
        attachmentBytes,
        credentialsFile: join(dataDir, CREDENTIALS_FILE),
      };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      try {
        await writer.rollback();
        await removeSet(
          app,
          scope,
          plan.map((o) => o.id),
          set,
        );
      } catch (undo) {
        throw new Error(
          `Seeding failed (${reason}), and undoing it failed too (${undo instanceof Error ? undo.message : String(undo)}): delete the organizations ${plan.map((o) => o.id).join(', ')} by hand`,
          { cause: error },
        );
      }
      throw new Error(`Seeding failed and was undone: ${reason}`, { cause: error });
    }
  } finally {
    app.crdt.close();
    await app.jobs.close();
    await app.mail.close();
    await app.storage.close();
  }
}

type SeedWrites = GeneratedSet & { webhookEndpointIds: string[]; webhookConfigCreated: boolean };
const emptySet = (): SeedWrites => ({ organizations: [], userIds: [], attachments: [], rows: {}, webhookEndpointIds: [], webhookConfigCreated: false });

/**
 * Advanced webhooks: turned on when the key has no configuration yet, with two endpoints that are disabled (so
 * nothing is ever sent) and point at a local address where nothing listens. A user who turned webhooks off keeps
 * them off, and gets no endpoints.
 */
async function seedWebhooks(app: AppContext, scope: TenantScope, tag: string, set: SeedWrites) {
  const created = set.webhookEndpointIds;
  const config = await app.storage.seed.webhookConfig(scope);
  if (config && !config.isEnabled)
    return { endpoints: [] as string[], notes: ['Advanced webhooks are turned off for this API key: no demo endpoints were added.'] };
  if (!config) {
    await updateAdvancedConfig(app, scope, { isEnabled: true });
    set.webhookConfigCreated = true;
  }
  const endpoints = [
    {
      uid: `hearth-demo-${tag}-comments`,
      url: `http://127.0.0.1:9/hearth-demo/${tag}/comments`,
      description: 'Demo endpoint for comment events (disabled: point it at your receiver, then enable it)',
      filterTypes: ['comment_annotation.add', 'comment.add'] as const,
    },
    {
      uid: `hearth-demo-${tag}-all`,
      url: `http://127.0.0.1:9/hearth-demo/${tag}/all`,
      description: 'Demo endpoint for every event (disabled: point it at your receiver, then enable it)',
      filterTypes: undefined,
    },
  ];
  for (const e of endpoints) {
    created.push(
      (
        await createEndpoint(app, scope, {
          url: e.url,
          description: e.description,
          filterTypes: e.filterTypes ? [...e.filterTypes] : undefined,
          disabled: true,
          uid: e.uid,
          metadata: { seededBy: 'hearth seed' },
        })
      ).id,
    );
  }
  return {
    endpoints: [...created],
    notes: [
      'Demo webhook endpoints are disabled and point at http://127.0.0.1:9 (nothing listens there): nothing is sent until you change their URL and enable them.',
    ],
  };
}

/** Undoes a failed seed: what the committed batches wrote, and the attachments' bytes. */
async function removeSet(app: AppContext, scope: TenantScope, organizationIds: string[], set: SeedWrites) {
  await app.storage.seed.remove(scope, {
    organizationIds,
    userIds: set.userIds,
    webhookEndpointIds: set.webhookEndpointIds,
    webhookConfigCreated: set.webhookConfigCreated,
  });
  await app.storage.attachments.remove(set.attachments.map((a) => a.key));
  // the attachments folder the seed made, when nothing else is in it
  const dir = attachmentsDir(app.config.dataDir);
  if (existsSync(dir) && readdirSync(dir).length === 0) rmSync(dir, { recursive: true, force: true });
}

/** Turns the generator's per-row ticks into at most a few hundred progress calls. */
function progressReporter(total: number, onProgress: SeedOptions['onProgress']) {
  let done = 0;
  let reported = 0;
  let lastLabel = '';
  const step = Math.max(1, Math.floor(total / 200));
  return {
    tick(units: number, label: string) {
      done += units;
      if (!onProgress) return;
      if (label !== lastLabel || done - reported >= step) {
        lastLabel = label;
        reported = done;
        onProgress(Math.min(done, total), total, label);
      }
    },
    finish() {
      onProgress?.(total, total, 'done');
    },
  };
}

export { seededRandom, type Random };
