import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../../helpers/factories.ts';
import { dataOf, errorOf, eventually, resultOf, startTestServer, type TestServer } from '../../../../helpers/server.ts';

let t: TestServer;
let migrationId: string;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  migrationId = dataOf<{ migrationId: string }>(
    await t.callK('/v2/organizations/documents/migrate', { organizationId: 'acme', documentId: 'doc', newDocumentId: 'doc-2' }),
  ).migrationId;
});
afterAll(() => t.close());

const status = (data: unknown, headers?: Record<string, string>) => t.callK('/v2/organizations/documents/migrate/status', data, headers);

describe('/v2/organizations/documents/migrate/status', () => {
  it('reports the job state, ending in completed', async () => {
    const first = await status({ organizationId: 'acme', migrationId });
    expect(first.status).toBe(200);
    expect(resultOf(first).message).toBe('Migration status retrieved successfully.');
    expect(['pending', 'in_progress', 'completed']).toContain(dataOf<{ status: string }>(first).status);
    await eventually(async () => {
      const res = await status({ organizationId: 'acme', migrationId });
      expect(dataOf<unknown>(res)).toMatchObject({ migrationId, status: 'completed', documentId: 'doc', newDocumentId: 'doc-2', error: null });
    });
  });

  it('answers NOT_FOUND for an unknown id, another organization, or another API key', async () => {
    const unknown = await status({ organizationId: 'acme', migrationId: 'mig_nope' });
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown)).toEqual({ status: 'NOT_FOUND', message: 'Migration not found.' });
    expect((await status({ organizationId: 'other-org', migrationId })).status).toBe(404);
    const other = await createWorkspace(t);
    expect((await status({ organizationId: 'acme', migrationId }, other.headersK)).status).toBe(404);
  });

  it('validates the input', async () => {
    expect(errorOf(await status({ organizationId: 'acme' }))).toEqual({ status: 'INVALID_ARGUMENT', message: 'migrationId is required.' });
    expect(errorOf(await status({ migrationId })).message).toBe('organizationId is required.');
  });
});
