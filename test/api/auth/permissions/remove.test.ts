import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole, type UserAccess } from '../../../helpers/access.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

/** permissions/get by user id: the access of test/helpers/access.ts, and the context permissions as accessFields. */
type Permissions = Record<string, UserAccess & { context?: unknown }>;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [{ documentId: 'd', accessType: 'restricted' }],
  });
});
afterAll(() => t.close());

const change = (op: 'add' | 'remove', userId: string, resources: unknown[], headers?: Record<string, string>) =>
  t.callK(`/v2/auth/permissions/${op}`, { user: { userId }, permissions: { resources } }, headers);

describe('/v2/auth/permissions/remove', () => {
  it('removes the grants named, and only those', async () => {
    await change('add', 'pat', [
      { type: 'document', id: 'd', organizationId: 'acme' },
      { type: 'organization', id: 'acme' },
    ]);
    const res = await change('remove', 'pat', [{ type: 'document', id: 'd', organizationId: 'acme' }]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: { status: 'success', message: 'Permissions removed successfully.' } });
    expect(await documentRole(t, 'acme', 'pat', 'd')).toBeNull();
    const org = await t.callK('/v2/auth/permissions/get', { organizationId: 'acme', userIds: ['pat'] });
    expect(dataOf<Permissions>(org).pat!.organization.acme!.accessRole).toBe('editor');
  });

  it('also removes access given through /v2/users/add (one membership model)', async () => {
    await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'd', users: [{ userId: 'lee' }] });
    expect(await documentRole(t, 'acme', 'lee', 'd')).toBe('editor');
    await change('remove', 'lee', [{ type: 'document', id: 'd', organizationId: 'acme' }]);
    expect(await documentRole(t, 'acme', 'lee', 'd')).toBeNull();
  });

  it('is quiet about grants that do not exist', async () => {
    expect((await change('remove', 'nobody', [{ type: 'document', id: 'zzz', organizationId: 'acme' }])).status).toBe(200);
  });

  it('validates the input', async () => {
    expect(errorOf(await change('remove', 'x', [{ type: 'folder', id: 'f' }])).message).toBe(
      'permissions.resources[0].organizationId is required for a folder.',
    );
    expect(errorOf(await change('remove', 'x', [])).message).toBe('permissions needs resources or context.');
  });

  it('removes context permission values', async () => {
    await t.callK('/v2/auth/permissions/add', { user: { userId: 'ctx' }, permissions: { context: { access: { team: ['red', 'blue'], region: 'eu' } } } });
    await t.callK('/v2/auth/permissions/remove', { user: { userId: 'ctx' }, permissions: { context: { access: { team: 'red', region: 'eu' } } } });
    const res = await t.callK('/v2/auth/permissions/get', { organizationId: 'acme', userIds: ['ctx'] });
    expect(dataOf<Permissions>(res).ctx!.context).toEqual({ accessFields: ['team:blue'] });
  });

  it('takes context keys named like object properties (constructor, toString) as keys (found by fuzzing: a 500)', async () => {
    const access = (pairs: Record<string, unknown>) => ({ user: { userId: 'proto' }, permissions: { context: { access: pairs } } });
    const removed = await t.callK('/v2/auth/permissions/remove', access({ constructor: [], toString: 'z' }));
    expect(removed.status).toBe(200);
    expect((await t.callK('/v2/auth/permissions/add', access({ constructor: ['c', 'd'], toString: 'z', hasOwnProperty: 'h' }))).status).toBe(200);
    const got = await t.callK('/v2/auth/permissions/get', { organizationId: 'acme', userIds: ['proto'] });
    expect(dataOf<Permissions>(got).proto!.context).toEqual({ accessFields: ['constructor:c', 'constructor:d', 'toString:z', 'hasOwnProperty:h'] });
    expect((await t.callK('/v2/auth/permissions/remove', access({ constructor: 'c', hasOwnProperty: 'h' }))).status).toBe(200);
    const after = await t.callK('/v2/auth/permissions/get', { organizationId: 'acme', userIds: ['proto'] });
    expect(dataOf<Permissions>(after).proto!.context).toEqual({ accessFields: ['constructor:d', 'toString:z'] });
    // a "__proto__" key in the JSON body is dropped by validation (zod builds records by assignment): no error either
    const proto = await t.callK('/v2/auth/permissions/remove', access(JSON.parse('{"__proto__":["x"]}') as Record<string, unknown>));
    expect(proto.status).toBe(200);
  });

  it("cannot remove another API key's grants", async () => {
    await change('add', 'kim', [{ type: 'document', id: 'd', organizationId: 'acme' }]);
    const other = await createWorkspace(t);
    await change('remove', 'kim', [{ type: 'document', id: 'd', organizationId: 'acme' }], other.headersK);
    expect(await documentRole(t, 'acme', 'kim', 'd')).toBe('editor');
  });
});
