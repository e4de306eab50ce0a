// Issue 31: the background work of a cluster's instances (docs/storage.md, "Leases on queued work"). Three instances
// in this process over one PostgreSQL database and one Redis: a starting instance leaves alone the work that live
// instances hold under leases; work whose holder stopped (a lease that ran out, written here as a holder that took
// it and died would have left it) is taken over by another instance's look for expired leases, with no request to
// wake it; the holder's late outcome is then refused (the fence); and every webhook event produced through the
// instances in turn reaches each endpoint once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionRow } from '../../server/db/repos/agents.ts';
import type { TenantScope } from '../../server/db/scope.ts';
import { LeaseLostError } from '../../server/db/repos/lease.ts';
import { erasureQueue } from '../../server/services/user-data.ts';
import { migrationQueue } from '../../server/services/migrations.ts';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { addAnnotation } from '../helpers/comments.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { eventually, type TestServer } from '../helpers/server.ts';
import { startSmtpServer } from '../helpers/smtp.ts';
import { enableWithEndpoint, FAST_WEBHOOKS } from '../helpers/webhooks.ts';

/** How often each instance looks for expired leases here: 5 min leases, a look every 30 s, are the defaults. */
const LOOK_MS = 100;

let cluster: Cluster;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let receiver: Receiver;
let a: TestServer;
let scope: TenantScope;
beforeAll(async () => {
  smtp = await startSmtpServer();
  receiver = await startReceiver();
  cluster = await startCluster(2, { smtpUrl: smtp.url, leases: { lookMs: LOOK_MS }, webhooks: FAST_WEBHOOKS });
  a = cluster.instances[0] as TestServer;
  scope = (await a.server.app.storage.keys.scopeFor(a.credentials.apiKey)) as TenantScope;
  await a.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [{ documentId: 'doc' }, { documentId: 'held' }, { documentId: 'stale' }],
  });
  await a.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'gone', name: 'Gone', email: 'gone@x.test' }] });
});
afterAll(async () => {
  await cluster?.close();
  await receiver?.close();
  await smtp?.close();
});

const storage = () => a.server.app.storage;
const exists = async (documentId: string) => (await storage().documents.find(scope, 'acme', documentId)) !== undefined;
const mailRow = async (id: string) => {
  const [row] = await a.query<{ status: string; lease_until: string | null }>('SELECT status, lease_until FROM mail_outbox WHERE id = ?', [id]);
  // bigint: text from the test's own client
  return row && { status: row.status, lease_until: row.lease_until === null ? null : Number(row.lease_until) };
};
const execution = (id: string, leaseUntil: number): ExecutionRow => ({
  apiKeyId: scope.apiKeyId,
  id,
  agentId: 'agent',
  agentName: 'Agent',
  agentVersion: 1,
  organizationId: null,
  documentId: null,
  editorId: null,
  status: 'running',
  message: 'Running.',
  trigger: 'standalone',
  llmModel: 'model',
  input: 'text',
  ranBy: null,
  startedAt: Date.now(),
  completedAt: null,
  durationMs: null,
  tokenUsage: null,
  findings: null,
  leaseUntil,
});

describe('leased work across instances', () => {
  // one piece of work of each kind, held by an instance under a lease that has ten minutes to run
  const held = Date.now() + 10 * 60_000;
  let mailId: string;

  it('a starting instance leaves alone the work live instances hold', async () => {
    await storage().documentMigrations.insert(scope, {
      id: 'mig_held',
      organizationId: 'acme',
      fromDocumentId: 'held',
      toDocumentId: 'held-moved',
      status: 'in_progress',
      error: null,
      attempts: 1,
      leaseUntil: held,
      createdAt: Date.now(),
      startedAt: Date.now(),
      completedAt: null,
    });
    await storage().userData.insertJob(scope, {
      id: 'del_held',
      userId: 'gone',
      status: 'in_progress',
      error: null,
      attempts: 1,
      createdAt: Date.now(),
      completedAt: null,
      leaseUntil: held,
    });
    await storage().agents.insertExecution(scope, execution('exec_held', held));
    // written as its holder's claim leaves it, in one statement: queued and then claimed here, another instance's
    // look could take it in between (seen in CI: the test's claim got nothing and the mail went out twice)
    mailId = 'mail_held';
    const body = a.server.app.secrets.encrypt(JSON.stringify({ text: 'held', html: '<p>held</p>' }));
    await a.query(
      "INSERT INTO mail_outbox (id, kind, to_address, subject, body_enc, status, created_at, attempts, lease_until) VALUES (?, 'notification', 'ed@x.test', 'Held', ?, 'queued', ?, 0, ?)",
      [mailId, body, Date.now(), held],
    );
    expect(await mailRow(mailId)).toEqual({ status: 'queued', lease_until: held });

    const c = await cluster.add();
    // what the new instance's start (and the looks of all three meanwhile) did: nothing
    await new Promise((resolve) => setTimeout(resolve, 4 * LOOK_MS));
    expect(await c.server.app.storage.documentMigrations.find(scope, 'acme', 'mig_held')).toMatchObject({ status: 'in_progress', leaseUntil: held });
    expect(await exists('held')).toBe(true);
    expect(await storage().userData.findJob(scope, 'del_held')).toMatchObject({ status: 'in_progress', leaseUntil: held });
    expect(await storage().agents.findExecution(scope, 'exec_held')).toMatchObject({ status: 'running', leaseUntil: held });
    expect(await mailRow(mailId)).toEqual({ status: 'queued', lease_until: held });
    expect(smtp.received).toHaveLength(0);
  });

  it("work whose holder's lease ran out is taken over by another instance's look, with no request to wake it", async () => {
    // the holder died: its leases run out in a moment (written on the rows, as its last renewal would have left them)
    const soon = Date.now() + 200;
    await a.query('UPDATE document_migrations SET lease_until = ? WHERE id = ?', [soon, 'mig_held']);
    await a.query('UPDATE user_data_jobs SET lease_until = ? WHERE id = ?', [soon, 'del_held']);
    await a.query('UPDATE agent_executions SET lease_until = ? WHERE id = ?', [soon, 'exec_held']);
    await a.query('UPDATE mail_outbox SET lease_until = ? WHERE id = ?', [soon, mailId]);
    await eventually(async () => {
      expect(await storage().documentMigrations.find(scope, 'acme', 'mig_held')).toMatchObject({ status: 'completed', attempts: 2 });
      expect(await storage().userData.findJob(scope, 'del_held')).toMatchObject({ status: 'completed', attempts: 2 });
      expect(await storage().agents.findExecution(scope, 'exec_held')).toMatchObject({
        status: 'error',
        message: 'The server stopped while this execution was running.',
        leaseUntil: null,
      });
      expect(await mailRow(mailId)).toEqual({ status: 'sent', lease_until: null });
    });
    expect(await exists('held')).toBe(false);
    expect(await exists('held-moved')).toBe(true);
    expect(smtp.received.map((m) => m.to)).toEqual([['ed@x.test']]);
  });

  it("a holder's completion after its job was taken over is refused, and nothing of it is kept", async () => {
    const deps = { storage: storage(), accessEvents: a.server.app.accessEvents };
    const erasures = erasureQueue(deps);
    const migrations = migrationQueue(deps);
    // taken by a holder that stalls past its short lease (no runner: the test is the holder). Written as its claim
    // leaves them: inserted pending and claimed here, the other instances' looks could claim them in between.
    const now = Date.now();
    const lease = { status: 'in_progress' as const, attempts: 1, leaseUntil: now + 150 };
    await storage().documentMigrations.insert(scope, {
      id: 'mig_stale',
      organizationId: 'acme',
      fromDocumentId: 'stale',
      toDocumentId: 'stale-moved',
      error: null,
      createdAt: now,
      startedAt: now,
      completedAt: null,
      ...lease,
    });
    await storage().userData.insertJob(scope, { id: 'del_stale', userId: 'gone', error: null, createdAt: now, completedAt: null, ...lease });
    const job = await storage().documentMigrations.find(scope, 'acme', 'mig_stale');
    const erasure = await storage().userData.findJob(scope, 'del_stale');
    expect(job).toMatchObject({ id: 'mig_stale', ...lease });
    expect(erasure).toMatchObject({ id: 'del_stale', ...lease });
    // another instance's look takes both back, and the jobs are done
    await eventually(async () => {
      expect(await storage().documentMigrations.find(scope, 'acme', 'mig_stale')).toMatchObject({ status: 'completed', attempts: 2 });
      expect(await storage().userData.findJob(scope, 'del_stale')).toMatchObject({ status: 'completed', attempts: 2 });
    });
    const done = await storage().userData.findJob(scope, 'del_stale');
    // the stalled holder wakes: its erasure is refused (its unit of work undone), its failure too
    await expect(erasures.run(erasure!)).rejects.toBeInstanceOf(LeaseLostError);
    expect(await storage().userData.findJob(scope, 'del_stale')).toEqual(done);
    await expect(migrations.run(job!)).rejects.toThrow('no longer exists');
    expect(await migrations.markFailed(job!, 'late')).toBe(false);
    expect(await storage().documentMigrations.find(scope, 'acme', 'mig_stale')).toMatchObject({ status: 'completed', error: null });
    expect(await exists('stale-moved')).toBe(true);
  });
});

describe('webhooks across instances', () => {
  it('delivers every event once per endpoint, whichever instance produced it', async () => {
    const instances = cluster.instances;
    expect(instances).toHaveLength(3);
    await enableWithEndpoint(a, `${receiver.url}/one`);
    await enableWithEndpoint(a, `${receiver.url}/two`);
    const EVENTS = 24;
    // produced through the instances in turn, a few at once
    for (let i = 0; i < EVENTS; i += 3) {
      await Promise.all(
        [0, 1, 2].map((n) =>
          addAnnotation(instances[n] as TestServer, {
            commentData: [{ commentText: `comment ${i + n}`, from: { userId: 'ann', name: 'Ann', email: 'ann@x.test' } }],
          }),
        ),
      );
    }
    const ids = (path: string) =>
      receiver.received.filter((r) => r.path === path && JSON.parse(r.body).event === 'comment_annotation.add').map((r) => String(r.headers['webhook-id']));
    await eventually(() => {
      expect(new Set(ids('/one')).size).toBe(EVENTS);
      expect(new Set(ids('/two')).size).toBe(EVENTS);
    }, 15_000);
    // time for a second delivery of any of them (retries, looks for expired leases) to arrive: none does
    await new Promise((resolve) => setTimeout(resolve, 10 * LOOK_MS));
    expect(ids('/one')).toHaveLength(EVENTS);
    expect(ids('/two')).toHaveLength(EVENTS);
    expect(new Set(ids('/one'))).toEqual(new Set(ids('/two')));
  });
});
