import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole, type UserAccess } from '../../../helpers/access.ts';
import { startCliServer } from '../../../helpers/cli.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { freshTestDatabase, testPostgres } from '../../../helpers/pg-database.ts';
import { INTERNAL_JOB_FAILURE } from '../../../../server/services/jobs.ts';
import { apiKeyHeaders, call, dataOf, errorOf, eventually, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

/** A job as /v2/organizations/documents/migrate/status answers it (the fields these tests read). */
interface MigrationStatus {
  status: string;
  createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/folders/add', { organizationId: 'acme', createOrganization: true, folders: [{ folderId: 'f' }] });
});
afterAll(() => t.close());

const migrate = (data: unknown, headers?: Record<string, string>) => t.callK('/v2/organizations/documents/migrate', data, headers);
const status = (migrationId: string) => t.callK('/v2/organizations/documents/migrate/status', { organizationId: 'acme', migrationId });
const completed = (migrationId: string) =>
  eventually(async () => {
    const res = await status(migrationId);
    expect(dataOf<MigrationStatus>(res).status).toBe('completed');
    return dataOf<MigrationStatus>(res);
  });

describe('/v2/organizations/documents/migrate', () => {
  it('moves the document and its memberships to the new id in the background', async () => {
    await t.callK('/v2/organizations/documents/add', {
      organizationId: 'acme',
      folderId: 'f',
      documents: [{ documentId: 'old', documentName: 'Plan', accessType: 'restricted' }],
    });
    await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'old', users: [{ userId: 'ann', accessRole: 'viewer' }, { userId: 'bob' }] });

    const res = await migrate({ organizationId: 'acme', documentId: 'old', newDocumentId: 'new' });
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('Document migration started successfully.');
    const { migrationId } = dataOf<{ migrationId: string }>(res);
    expect(migrationId).toMatch(/^mig_/);

    const done = await completed(migrationId);
    expect(done.startedAt).toBeGreaterThanOrEqual(done.createdAt);
    expect(done.completedAt).toBeGreaterThanOrEqual(done.startedAt!);

    const moved = await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: ['new'] });
    expect(dataOf<unknown[]>(moved)[0]).toMatchObject({ id: 'new', documentName: 'Plan', accessType: 'restricted', folderId: 'f' });
    expect((await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: ['old'] })).status).toBe(404);
    expect(await documentRole(t, 'acme', 'ann', 'new')).toBe('viewer');
    expect(await documentRole(t, 'acme', 'bob', 'new')).toBe('editor');
    expect(await documentRole(t, 'acme', 'ann', 'old')).toBeNull();
  });

  it('refuses a missing source, an existing target and the same id', async () => {
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', documents: [{ documentId: 'a' }, { documentId: 'b' }] });
    const missing = await migrate({ organizationId: 'acme', documentId: 'nope', newDocumentId: 'z' });
    expect(missing.status).toBe(404);
    expect(errorOf(missing)).toEqual({ status: 'NOT_FOUND', message: 'Document does not exist: nope.' });
    const taken = await migrate({ organizationId: 'acme', documentId: 'a', newDocumentId: 'b' });
    expect(taken.status).toBe(409);
    expect(errorOf(taken)).toEqual({ status: 'ALREADY_EXISTS', message: 'A document with id b already exists.' });
    expect(errorOf(await migrate({ organizationId: 'acme', documentId: 'a', newDocumentId: 'a' }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'newDocumentId must differ from documentId.',
    });
    expect(errorOf(await migrate({ organizationId: 'acme', documentId: 'a' })).message).toBe('newDocumentId is required.');
  });

  it("cannot migrate another API key's document", async () => {
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', documents: [{ documentId: 'mine' }] });
    const other = await createWorkspace(t);
    expect((await migrate({ organizationId: 'acme', documentId: 'mine', newDocumentId: 'stolen' }, other.headersK)).status).toBe(404);
  });
});

/** Writes a job row as a crash would have left it (the server is stopped meanwhile). */
async function insertJob(row: { id: string; from: string; to: string; status: string; attempts: number }, apiKey: string) {
  await t.query(
    `INSERT INTO document_migrations (id, api_key_id, organization_id, from_document_id, to_document_id, status, attempts, created_at, started_at)
     VALUES (?, ?, 'acme', ?, ?, ?, ?, ?, ?)`,
    [row.id, apiKey, row.from, row.to, row.status, row.attempts, Date.now(), row.status === 'in_progress' ? Date.now() : null],
  );
}

describe('migrations across restarts', () => {
  it('resumes a job that a crash left in_progress', async () => {
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', documents: [{ documentId: 'crash-src' }] });
    await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'crash-src', users: [{ userId: 'cat' }] });
    await t.server.close();
    await insertJob({ id: 'mig_interrupted', from: 'crash-src', to: 'crash-dst', status: 'in_progress', attempts: 1 }, t.credentials.apiKey);
    await t.restart();
    await completed('mig_interrupted');
    expect(await documentRole(t, 'acme', 'cat', 'crash-dst')).toBe('editor');
  });

  it('fails a job interrupted three times, leaving the document untouched', async () => {
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', documents: [{ documentId: 'cursed' }] });
    await t.server.close();
    await insertJob({ id: 'mig_cursed', from: 'cursed', to: 'cursed-2', status: 'in_progress', attempts: 3 }, t.credentials.apiKey);
    await t.restart();
    const res = await status('mig_cursed');
    expect(dataOf<MigrationStatus>(res)).toMatchObject({ status: 'failed', error: 'interrupted 3 times; not retried' });
    expect((await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: ['cursed'] })).status).toBe(200);
  });

  it('fails cleanly when the source disappeared before the job ran', async () => {
    await t.server.close();
    await insertJob({ id: 'mig_orphan', from: 'never-existed', to: 'x', status: 'pending', attempts: 0 }, t.credentials.apiKey);
    await t.restart();
    await eventually(async () =>
      expect(dataOf<MigrationStatus>(await status('mig_orphan'))).toMatchObject({ status: 'failed', error: 'the document never-existed no longer exists' }),
    );
  });

  it("fails a job whose storage refuses it with a message of its own, not the driver's (SQL, internal ids)", async () => {
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', documents: [{ documentId: 'refused' }] });
    const data = t.server.app.storage.documentData;
    const move = data.move;
    data.move = async () => {
      throw new Error('Failed query: delete from "crdt_documents" where "api_key_id" = $1\nparams: secret-ish-id');
    };
    try {
      const { migrationId } = dataOf<{ migrationId: string }>(await migrate({ organizationId: 'acme', documentId: 'refused', newDocumentId: 'refused-2' }));
      await eventually(async () => expect(dataOf<MigrationStatus>(await status(migrationId))).toMatchObject({ status: 'failed', error: INTERNAL_JOB_FAILURE }));
    } finally {
      data.move = move;
    }
    // nothing of it done: the unit of work rolled back
    expect((await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: ['refused'] })).status).toBe(200);
    expect((await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: ['refused-2'] })).status).toBe(404);
  });

  it('survives SIGKILL during a large migration: after restart it is complete, never half-done', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-migrate-kill-'));
    // the suite's PostgreSQL run: the child servers on a database of their own (DATABASE_URL)
    const postgres = testPostgres();
    const database = postgres ? await freshTestDatabase(postgres) : undefined;
    const env = database ? { DATABASE_URL: database.url } : {};
    try {
      let server = await startCliServer(dataDir, env);
      const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
      const K = apiKeyHeaders(creds);
      await call(server.url, '/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'big' }] }, K);
      const USERS = 20_000;
      for (let batch = 0; batch < USERS / 1000; batch++) {
        const users = Array.from({ length: 1000 }, (_, i) => ({ userId: `u${batch * 1000 + i}`, accessRole: i % 2 ? 'viewer' : 'editor' }));
        expect((await call(server.url, '/v2/users/add', { organizationId: 'acme', documentId: 'big', users }, K)).status).toBe(200);
      }
      const started = await call(server.url, '/v2/organizations/documents/migrate', { organizationId: 'acme', documentId: 'big', newDocumentId: 'big-2' }, K);
      const { migrationId } = dataOf<{ migrationId: string }>(started);
      server.child.kill('SIGKILL');
      await server.exited;

      server = await startCliServer(dataDir, env);
      try {
        await eventually(async () => {
          const res = await call(server.url, '/v2/organizations/documents/migrate/status', { organizationId: 'acme', migrationId }, K);
          expect(dataOf<MigrationStatus>(res).status).toBe('completed');
        }, 20_000);
        const sample = Array.from({ length: 100 }, (_, i) => `u${i * 199}`);
        const res = await call(server.url, '/v2/auth/permissions/get', { organizationId: 'acme', userIds: sample, documentIds: ['big', 'big-2'] }, K);
        for (const userId of sample) {
          expect(dataOf<Record<string, UserAccess>>(res)[userId]!.documents['big-2']!.accessRole).toBe(
            (Number(userId.slice(1)) % 1000) % 2 ? 'viewer' : 'editor',
          );
          expect(dataOf<Record<string, UserAccess>>(res)[userId]!.documents.big!.errorCode).toBe('does_not_exist');
        }
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
      const counting = `SELECT resource_id AS doc, COUNT(*) AS n FROM memberships WHERE level = 'document' GROUP BY resource_id`;
      if (database) {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          const counts = (await client.query<{ doc: string; n: string }>(counting)).rows.map((row) => ({ doc: row.doc, n: Number(row.n) }));
          expect(counts).toEqual([{ doc: 'big-2', n: USERS }]);
        } finally {
          await client.end();
        }
      } else {
        const db = new Database(join(dataDir, 'hearth.db'), { readonly: true });
        try {
          expect(db.prepare(counting).all()).toEqual([{ doc: 'big-2', n: USERS }]);
          expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        } finally {
          db.close();
        }
      }
    } finally {
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
