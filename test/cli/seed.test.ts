import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import * as Y from 'yjs';
import { afterAll, describe, expect, it } from 'vitest';
import { SeedRefusedError, seedDataDir, seededRandom, type SeedSummary } from '../../server/tooling/seed.ts';
import { startCliServer } from '../helpers/cli.ts';
import { apiKeyHeaders, call, dataOf, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const hearth = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', join(ROOT, 'server', 'cli.ts'), ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn' } });
type Failed = { code: number; stderr: string; stdout: string };

// The data of the operations the seeded server is read with, as far as the tests read it.
interface OrganizationItem {
  id: string;
  organizationName: string;
}
interface FolderItem {
  subFolders?: unknown[];
}
interface DocumentItem {
  id: string;
  documentName: string;
}
interface AnnotationItem {
  comments: Array<{ commentText: string; reactionAnnotations: unknown[] }>;
}
interface ActivityItem {
  featureType: string;
}
interface NotificationItem {
  displayHeadlineMessageTemplate: string;
}
interface RecordingItem {
  attachments: Array<{ url: string; size: number; mimeType: string }>;
}
interface EndpointList {
  endpoints: Array<{ disabled: boolean }>;
}
interface CrdtItem {
  contentKey: string;
  type: string;
  data: unknown;
}
const dirs: string[] = [];
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-seed-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The seeded tables, each row as JSON with the API key id (random per data dir) and what derives from it masked. */
const SEEDED_TABLES = [
  'organizations',
  'users',
  'memberships',
  'user_groups',
  'user_group_members',
  'folders',
  'documents',
  'crdt_documents',
  'activities',
  'notifications',
  'notification_recipients',
  'comment_annotations',
  'comments',
  'comment_reads',
  'reactions',
  'recordings',
  'recording_attachments',
];
function dump(dataDir: string, apiKeyId: string) {
  const db = new Database(join(dataDir, 'hearth.db'), { readonly: true });
  try {
    return Object.fromEntries(
      SEEDED_TABLES.map((table) => {
        const rows = db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2, 3, 4`).all() as Array<Record<string, unknown>>;
        const masked = rows.map((row) => {
          const { internal_id: _derivedFromTheKey, ...rest } = row;
          return JSON.stringify(rest, (_key, value: unknown) => (value === apiKeyId ? '<apiKey>' : Buffer.isBuffer(value) ? value.toString('base64') : value));
        });
        return [table, masked];
      }),
    );
  } finally {
    db.close();
  }
}

function count(dataDir: string, sql: string): number {
  const db = new Database(join(dataDir, 'hearth.db'), { readonly: true });
  try {
    return (db.prepare(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('hearth seed (small)', () => {
  let dataDir: string;
  let summary: SeedSummary;
  let server: TestServer;

  it('fills a new data dir that a server then serves: every area through its get operation', async () => {
    dataDir = temp();
    const progress: number[] = [];
    summary = await seedDataDir({ dataDir, size: 'small', now: NOW, onProgress: (done) => progress.push(done) });
    expect(summary.organizations).toHaveLength(3);
    expect(progress.length).toBeGreaterThan(3);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(existsSync(join(dataDir, 'credentials.json'))).toBe(true);

    server = await startTestServer({ dataDir });
    expect(server.credentials.apiKey).toBe(summary.apiKeyId);
    const ok = async <T>(path: string, data: unknown) => {
      const res = await server.callK(path, data);
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      return dataOf<T>(res);
    };

    const orgs = await ok<OrganizationItem[]>('/v2/organizations/get', {});
    expect(orgs.map((o: { id: string }) => o.id).sort()).toEqual(summary.organizations.map((o) => o.id).sort());
    expect(orgs[0]!.organizationName).toMatch(/^[A-Z][a-z]+/);
    const organizationId = summary.organizations[0]!.id;

    const tree = await ok<FolderItem[]>('/v2/organizations/folders/get', { organizationId });
    expect(tree.length).toBe(3);
    expect(tree.some((f: { subFolders?: unknown[] }) => (f.subFolders ?? []).length > 0)).toBe(true);

    const docs = await ok<DocumentItem[]>('/v2/organizations/documents/get', { organizationId });
    expect(docs).toHaveLength(summary.organizations[0]!.documents);
    expect(docs[0]!.documentName).toMatch(/[a-z]/);

    const annotations = await ok<AnnotationItem[]>('/v2/commentannotations/get', { organizationId });
    expect(annotations.length).toBeGreaterThan(0);
    const withReactions = annotations
      .flatMap((a: { comments: Array<{ reactionAnnotations: unknown[] }> }) => a.comments)
      .filter((c: { reactionAnnotations: unknown[] }) => c.reactionAnnotations.length > 0);
    expect(withReactions.length).toBeGreaterThan(0);
    expect(annotations[0]!.comments[0]!.commentText).toMatch(/[a-z]/);

    const activities = await ok<ActivityItem[]>('/v2/activities/get', { organizationId });
    const features = new Set(activities.map((a: { featureType: string }) => a.featureType));
    for (const feature of ['custom', 'comment', 'reaction', 'recorder']) expect(features).toContain(feature);

    // a recipient's inbox, as the admin UI's feed shows it
    const db = new Database(join(dataDir, 'hearth.db'), { readonly: true });
    const recipient = db
      .prepare('SELECT user_id AS userId, count(*) AS n FROM notification_recipients WHERE organization_id = ? GROUP BY user_id ORDER BY n DESC LIMIT 1')
      .get(organizationId) as { userId: string; n: number };
    db.close();
    const inbox = await ok<NotificationItem[]>('/v2/notifications/get', { organizationId, userId: recipient.userId });
    expect(inbox).toHaveLength(recipient.n);
    expect(inbox[0]!.displayHeadlineMessageTemplate).toContain('{actionUser}');

    // recordings, and their attachment URL serving the stored file
    const recordings = await ok<RecordingItem[]>('/v2/recordings/get', { organizationId });
    expect(recordings.length).toBe(2);
    for (const recording of recordings) {
      const attachment = recording.attachments[0]!;
      const res = await fetch(attachment.url);
      expect(res.status).toBe(200);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.length).toBe(attachment.size);
      expect(res.headers.get('content-type')).toContain(attachment.mimeType);
      if (attachment.mimeType === 'audio/wav') expect(bytes.subarray(0, 4).toString('latin1') + bytes.subarray(8, 12).toString('latin1')).toBe('RIFFWAVE');
      else expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    }

    const endpoints = await ok<EndpointList>('/v2/workspace/advancedwebhook/endpoints/list', {});
    expect(endpoints.endpoints).toHaveLength(2);
    expect(endpoints.endpoints.every((e: { disabled: boolean }) => e.disabled)).toBe(true);
  }, 60_000);

  it('stores CRDT content that /v2/crdt/get and a y-websocket client both load', async () => {
    const organizationId = summary.organizations[0]!.id;
    const docs = await server.callK('/v2/organizations/documents/get', { organizationId });
    const byType = new Map<string, { documentId: string; data: unknown }>();
    for (const doc of dataOf<DocumentItem[]>(docs)) {
      const res = await server.callK('/v2/crdt/get', { organizationId, documentId: doc.id, editorId: 'main' });
      expect(res.status).toBe(200);
      const item = dataOf<CrdtItem[]>(res)[0]!;
      expect(item.contentKey).toBe('content');
      byType.set(item.type, { documentId: doc.id, data: item.data });
    }
    expect(byType.has('xml')).toBe(true);
    for (const [type, { documentId, data }] of byType) {
      if (type === 'xml') expect(data).toMatch(/^<heading level="1">.+<\/heading><paragraph>/);
      const client = connectYjs(
        server.url,
        { organizationId, documentId, editorId: 'main' },
        { apiKey: server.credentials.apiKey, authToken: server.credentials.authToken },
      );
      try {
        await client.synced;
        const shared =
          type === 'text'
            ? client.doc.getText('content')
            : type === 'map'
              ? client.doc.getMap('content')
              : type === 'array'
                ? client.doc.getArray('content')
                : client.doc.getXmlFragment('content');
        const seen = shared instanceof Y.Text || shared instanceof Y.XmlFragment ? shared.toString() : shared.toJSON();
        expect(seen, type).toEqual(data);
      } finally {
        client.close();
      }
    }
  });

  it('refuses to seed the data dir while the server runs on it, and writes nothing', async () => {
    const before = count(dataDir, 'SELECT count(*) AS n FROM organizations');
    const refused = await seedDataDir({ dataDir, size: 'small', random: seededRandom(2) }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SeedRefusedError);
    expect((refused as Error).message).toMatch(/server \(pid \d+, http:\/\/127\.0\.0\.1:\d+\) is running on .*stop it before seeding/);
    expect(count(dataDir, 'SELECT count(*) AS n FROM organizations')).toBe(before);
    await server.close();
  });

  it('leaves a consistent database: integrity_check ok, no foreign key violations, the rows the summary counts', () => {
    const db = new Database(join(dataDir, 'hearth.db'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.pragma('foreign_key_check')).toEqual([]);
      expect((db.prepare('SELECT count(*) AS n FROM notifications').get() as { n: number }).n).toBe(summary.rows.notifications);
      expect(summary.rows.notifications).toBe(150);
      expect((db.prepare('SELECT count(*) AS n FROM activities').get() as { n: number }).n).toBe(summary.rows.activities);
      // every attachment row has its file, with the recorded digest
      const attachments = db.prepare('SELECT storage_key AS key, sha256 FROM recording_attachments').all() as Array<{ key: string; sha256: string }>;
      expect(attachments).toHaveLength(summary.rows.recordings!);
      for (const a of attachments)
        expect(
          createHash('sha256')
            .update(readFileSync(join(dataDir, 'attachments', a.key)))
            .digest('hex'),
        ).toBe(a.sha256);
    } finally {
      db.close();
    }
  });

  it('seeding again: the same seed is refused with a clear message; another seed adds a second set beside the first', async () => {
    const again = await seedDataDir({ dataDir, size: 'small', now: NOW }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(SeedRefusedError);
    expect((again as Error).message).toMatch(/already holds this seed's demo set .*pass another --seed/);
    const second = await seedDataDir({ dataDir, size: 'small', now: NOW, random: seededRandom(2) });
    const ids = [...summary.organizations, ...second.organizations].map((o) => o.id);
    expect(new Set(ids).size).toBe(6);
    expect(count(dataDir, 'SELECT count(*) AS n FROM organizations')).toBe(6);
    expect(count(dataDir, 'SELECT count(*) AS n FROM webhook_endpoints')).toBe(4);
  });
});

describe('hearth seed: reproducible, atomic, and the large generator at a reduced count', () => {
  it('gives the same data for the same seed and clock, and other data for another seed', async () => {
    const [a, b, c] = [temp(), temp(), temp()];
    const first = await seedDataDir({ dataDir: a, size: 'small', now: NOW, random: seededRandom(7) });
    const second = await seedDataDir({ dataDir: b, size: 'small', now: NOW, random: seededRandom(7) });
    const other = await seedDataDir({ dataDir: c, size: 'small', now: NOW, random: seededRandom(8) });
    expect(first.apiKeyId).not.toBe(second.apiKeyId);
    const dumpA = dump(a, first.apiKeyId);
    expect(dumpA.documents!.length).toBe(36);
    expect(dump(b, second.apiKeyId)).toEqual(dumpA);
    expect(dump(c, other.apiKeyId).organizations).not.toEqual(dumpA.organizations);
  }, 60_000);

  it('undoes a seed that fails half-way (in the bulk rows, or after them): no rows, endpoints or files of the set are left', async () => {
    // learn which ids seed 11 makes, then put one of them in the way in fresh data dirs
    const probe = temp();
    const probed = await seedDataDir({ dataDir: probe, size: 'small', now: NOW, random: seededRandom(11) });
    const tag = probed.organizations[0]!.id.split('-').at(-1);
    const db = new Database(join(probe, 'hearth.db'), { readonly: true });
    const users = db.prepare('SELECT id FROM users ORDER BY created_at, id').all() as Array<{ id: string }>;
    db.close();

    const nothingLeft = (dataDir: string) => {
      expect(count(dataDir, "SELECT count(*) AS n FROM organizations WHERE id != 'existing-org'")).toBe(0);
      expect(count(dataDir, 'SELECT count(*) AS n FROM documents')).toBe(0);
      expect(count(dataDir, 'SELECT count(*) AS n FROM crdt_documents')).toBe(0);
      expect(count(dataDir, "SELECT count(*) AS n FROM users WHERE name != 'Already Here'")).toBe(0);
      expect(existsSync(join(dataDir, 'attachments')) ? readdirSync(join(dataDir, 'attachments')) : []).toEqual([]);
    };

    // 1. a user id taken: the insert fails inside the batches (small batches: some were committed already)
    const inRows = temp();
    let server = await startTestServer({ dataDir: inRows });
    const added = await server.callK('/v2/users/add', {
      organizationId: 'existing-org',
      createOrganization: true,
      users: [{ userId: users.at(-1)!.id, name: 'Already Here' }],
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    await server.close();
    const failed = await seedDataDir({ dataDir: inRows, size: 'small', now: NOW, random: seededRandom(11), batchRows: 5 }).catch((e: unknown) => e);
    expect((failed as Error).message).toMatch(/^Seeding failed and was undone: UNIQUE constraint failed: users/);
    nothingLeft(inRows);
    expect(count(inRows, "SELECT count(*) AS n FROM users WHERE name = 'Already Here'")).toBe(1);
    expect(count(inRows, 'SELECT count(*) AS n FROM webhook_configs')).toBe(0);

    // 2. a webhook endpoint uid taken: everything was committed and the files written when it fails
    const afterRows = temp();
    server = await startTestServer({ dataDir: afterRows });
    expect((await server.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true })).status).toBe(200);
    const mine = await server.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: 'http://127.0.0.1:9/mine', uid: `hearth-demo-${tag}-all` });
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    await server.close();
    const late = await seedDataDir({ dataDir: afterRows, size: 'small', now: NOW, random: seededRandom(11) }).catch((e: unknown) => e);
    expect((late as Error).message).toMatch(/^Seeding failed and was undone: An endpoint with this uid already exists/);
    nothingLeft(afterRows);
    // the user's own endpoint and configuration stay; the seed's first endpoint is gone
    expect(count(afterRows, 'SELECT count(*) AS n FROM webhook_endpoints')).toBe(1);
    expect(count(afterRows, "SELECT count(*) AS n FROM webhook_endpoints WHERE url = 'http://127.0.0.1:9/mine'")).toBe(1);
    expect(count(afterRows, 'SELECT count(*) AS n FROM webhook_configs WHERE is_enabled = 1')).toBe(1);
  }, 60_000);

  it('writes the large set in batched transactions at a reduced count, with every table in proportion', async () => {
    const dataDir = temp();
    const totals: number[] = [];
    const summary = await seedDataDir({
      dataDir,
      size: 'large',
      now: NOW,
      batchRows: 1_000,
      counts: { documents: 3_000, crdtDocuments: 300, notifications: 20_000, annotations: 300, recordings: 4, usersPerOrganization: 12 },
      onProgress: (done, total) => totals.push(done, total),
    });
    expect(summary.organizations).toHaveLength(10);
    expect(count(dataDir, 'SELECT count(*) AS n FROM documents')).toBe(3_000);
    expect(count(dataDir, 'SELECT count(*) AS n FROM crdt_documents WHERE snapshot IS NOT NULL')).toBe(300);
    expect(count(dataDir, 'SELECT count(*) AS n FROM notifications')).toBe(20_000);
    expect(count(dataDir, 'SELECT count(*) AS n FROM notification_recipients')).toBe(summary.rows.notificationRecipients);
    expect(count(dataDir, 'SELECT count(DISTINCT organization_id) AS n FROM notifications')).toBe(10);
    expect(totals.at(-2)).toBe(totals.at(-1));
    const db = new Database(join(dataDir, 'hearth.db'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.pragma('foreign_key_check')).toEqual([]);
    } finally {
      db.close();
    }
  }, 180_000);
});

describe('hearth seed (the command)', () => {
  it('documents every option in --help, and rejects bad options with a one-line message and exit code 2', async () => {
    const { stdout } = await hearth('seed', '--help');
    for (const option of ['--size small|large', '--api-key ID', '--seed N', '--data-dir DIR', '--json', 'Example:']) expect(stdout).toContain(option);
    const dataDir = temp();
    const badSize = (await hearth('seed', '--size', 'huge', '--data-dir', dataDir).catch((e: Failed) => e)) as Failed;
    expect(badSize).toMatchObject({ code: 2, stderr: 'hearth: --size takes small or large, not "huge"\n' });
    const badSeed = (await hearth('seed', '--seed', 'abc', '--data-dir', dataDir).catch((e: Failed) => e)) as Failed;
    expect(badSeed).toMatchObject({ code: 2, stderr: expect.stringContaining('--seed takes a whole number') });
    const badKey = (await hearth('seed', '--api-key', 'nope', '--data-dir', dataDir).catch((e: Failed) => e)) as Failed;
    expect(badKey).toMatchObject({ code: 2, stderr: expect.stringContaining('No API key nope in') });
  }, 120_000);

  it('seeds with progress lines, prints a JSON summary with --json, and is refused while a server runs on the data dir', async () => {
    const dataDir = temp();
    const plain = await hearth('seed', '--data-dir', dataDir, '--seed', '3');
    expect(plain.stderr).toMatch(/Seeding \(small\) \d+\/\d+ \(100%\)/);
    // one closing line, not the same 100 % twice
    expect(plain.stderr.match(/\(100%\)/g)).toHaveLength(1);
    expect(plain.stdout).toMatch(/Seeded API key \S+ in .* \(size small, seed 3\)/);
    // the next step named as it can be typed in the project (hearth itself is not on the PATH)
    expect(plain.stdout).toContain(`Start it with: npm start -- --data-dir ${dataDir}`);
    const json = await hearth('seed', '--data-dir', dataDir, '--seed', '4', '--json');
    expect(json.stderr).toBe('');
    const summary = JSON.parse(json.stdout) as SeedSummary & { seed: number };
    expect(summary).toMatchObject({ seed: 4, size: 'small', rows: { organizations: 3, documents: 36, notifications: 150 } });

    const server = await startCliServer(dataDir);
    try {
      const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
      const orgs = await call(server.url, '/v2/organizations/get', {}, apiKeyHeaders(creds));
      expect(dataOf<unknown[]>(orgs)).toHaveLength(6);
      const refused = (await hearth('seed', '--data-dir', dataDir, '--seed', '5').catch((e: Failed) => e)) as Failed;
      expect(refused).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/^hearth: A Hearth server \(pid \d+, http:\/\/127\.0\.0\.1:\d+\) is running on .*: stop it before seeding/),
      });
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 180_000);
});
