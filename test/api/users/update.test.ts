import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole } from '../../helpers/access.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';
import type { Outcomes } from '../../../server/services/organizations.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [{ documentId: 'plan', accessType: 'organizationPrivate' }],
  });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'jane', name: 'Jane' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'plan', users: [{ userId: 'dora' }] });
});
afterAll(() => t.close());

describe('/v2/users/update', () => {
  it('changes the role of a user at the level', async () => {
    const res = await t.callK('/v2/users/update', { organizationId: 'acme', users: [{ userId: 'jane', name: 'Jane D.', accessRole: 'viewer' }] });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'User(s) processed successfully.',
      data: { jane: { success: true, id: expect.stringMatching(/^[0-9a-f]{32}$/), message: 'User updated.' } },
    });
    expect(await documentRole(t, 'acme', 'jane', 'plan')).toBe('viewer');
  });

  it('reports users not present at that level as not existing, inside a success envelope', async () => {
    const res = await t.callK('/v2/users/update', {
      organizationId: 'acme',
      users: [
        { userId: 'ghost', name: 'G' },
        { userId: 'dora', accessRole: 'viewer' },
      ],
    });
    expect(res.status).toBe(200);
    expect(dataOf<Outcomes>(res).ghost).toEqual({ success: false, id: expect.any(String), message: 'User does not exist.' });
    // dora is a member of the document, not of the organization
    expect(dataOf<Outcomes>(res).dora!.message).toBe('User does not exist.');
    expect(await documentRole(t, 'acme', 'dora', 'plan')).toBe('editor');
    const atDoc = await t.callK('/v2/users/update', { organizationId: 'acme', documentId: 'plan', users: [{ userId: 'dora', accessRole: 'viewer' }] });
    expect(dataOf<Outcomes>(atDoc).dora!.message).toBe('User updated.');
    expect(await documentRole(t, 'acme', 'dora', 'plan')).toBe('viewer');
  });

  it('validates the input', async () => {
    expect(errorOf(await t.callK('/v2/users/update', { organizationId: 'acme' }))).toEqual({ status: 'INVALID_ARGUMENT', message: 'users is required.' });
    expect((await t.callK('/v2/users/update', { organizationId: 'acme', users: [{ userId: 'jane', accessRole: 'admin' }] })).status).toBe(400);
  });

  it("cannot update another API key's users", async () => {
    const other = await createWorkspace(t);
    const res = await t.callPublic('/v2/users/update', { organizationId: 'acme', users: [{ userId: 'jane', accessRole: 'editor' }] }, other.headersK);
    expect(dataOf<Outcomes>(res).jane!.success).toBe(false);
    expect(await documentRole(t, 'acme', 'jane', 'plan')).toBe('viewer');
  });
});
