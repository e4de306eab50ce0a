import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { verifyUserToken } from '../../../../server/services/permissions.ts';
import type { userTokenAnswer } from '../../../../shared/schemas/answers.ts';
import { permissionsOf } from '../../../helpers/access.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';
import { upgradeStatus } from '../../../helpers/yjs.ts';

type UserToken = z.infer<typeof userTokenAnswer>;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd' }] });
});
afterAll(() => t.close());

const path = '/v1/auth/token/get';
const decode = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
const orgRole = async (organizationId: string, userId: string, headers?: Record<string, string>) =>
  ((await permissionsOf(t, organizationId, [userId], {}, headers))[userId]!.organization[organizationId]?.accessRole as string | undefined) ?? null;

describe('/v1/auth/token/get (legacy)', () => {
  it('takes the credentials in the body, without auth headers, and returns a user token of the key', async () => {
    const res = await t.callPublic(path, {
      apiKey: t.credentials.apiKey,
      authToken: t.credentials.authToken,
      userId: 'leo',
      userProperties: { organizationId: 'acme', isAdmin: true, email: 'leo@example.com', name: 'Leo' },
    });
    expect(res.status).toBe(200);
    expect(resultOf(res).status).toBe('success');
    expect(resultOf(res).message).toBe('Token generated successfully.');
    const token = dataOf<UserToken>(res).token;
    expect(decode(token)).toMatchObject({
      sub: 'leo',
      userId: 'leo',
      apiKey: t.credentials.apiKey,
      organizationId: 'acme',
      isAdmin: true,
      email: 'leo@example.com',
      name: 'Leo',
    });
    expect((await verifyUserToken(t.server.app, t.credentials.apiKey, token))?.userId).toBe('leo');
    // the user now belongs to the organization, and the token opens its documents over the websocket
    expect(await orgRole('acme', 'leo')).toBe('editor');
    expect(await upgradeStatus(t.url, `/yjs/acme/d/e?apiKey=${t.credentials.apiKey}&token=${token}`)).toBe(101);
    const users = await t.callK('/v2/users/data/get', { organizationId: 'acme', userId: 'leo' });
    expect(JSON.stringify(users.body)).toContain('leo@example.com');
  });

  it("keeps an existing member's role (asking for a token never changes access), and creates a new organization", async () => {
    await t.callK('/v2/auth/permissions/add', {
      user: { userId: 'vic' },
      permissions: { resources: [{ type: 'organization', id: 'acme', accessRole: 'viewer' }] },
    });
    const res = await t.callPublic(path, {
      apiKey: t.credentials.apiKey,
      authToken: t.credentials.authToken,
      userId: 'vic',
      userProperties: { organizationId: 'acme' },
    });
    expect(res.status).toBe(200);
    expect(await orgRole('acme', 'vic')).toBe('viewer');
    const fresh = await t.callPublic(path, {
      apiKey: t.credentials.apiKey,
      authToken: t.credentials.authToken,
      userId: 'nia',
      userProperties: { organizationId: 'globex' },
    });
    expect(fresh.status).toBe(200);
    expect(await orgRole('globex', 'nia')).toBe('editor');
    // without an organization: a token that grants nothing
    const bare = await t.callPublic(path, { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken, userId: 'ola' });
    expect(bare.status).toBe(200);
    expect(decode(dataOf<UserToken>(bare).token).organizationId).toBeUndefined();
    expect(await orgRole('acme', 'ola')).toBeNull();
  });

  it("answers Auth token not found. for a wrong token, an unknown key or another key's token, and writes nothing", async () => {
    const other = await createWorkspace(t);
    for (const credentials of [
      { apiKey: t.credentials.apiKey, authToken: 'wrong' },
      { apiKey: 'no-such-key', authToken: t.credentials.authToken },
      { apiKey: t.credentials.apiKey, authToken: other.authToken },
    ]) {
      const res = await t.callPublic(path, { ...credentials, userId: 'eve', userProperties: { organizationId: 'acme' } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: { status: 'INVALID_ARGUMENT', message: 'Auth token not found.' } });
    }
    expect(await orgRole('acme', 'eve')).toBeNull();
  });

  it('names a missing field, and a token is only good for its own key', async () => {
    for (const [data, field] of [
      [{ authToken: 'x', userId: 'u' }, 'apiKey'],
      [{ apiKey: 'x', userId: 'u' }, 'authToken'],
      [{ apiKey: t.credentials.apiKey, authToken: t.credentials.authToken }, 'userId'],
    ] as const) {
      const res = await t.callPublic(path, data);
      expect(res.status).toBe(400);
      expect(errorOf(res).message).toContain(field);
    }
    const other = await createWorkspace(t);
    const res = await t.callPublic(path, { apiKey: other.apiKey, authToken: other.authToken, userId: 'leo', userProperties: { organizationId: 'acme' } });
    const token = dataOf<UserToken>(res).token;
    expect(await verifyUserToken(t.server.app, other.apiKey, token)).not.toBeNull();
    expect(await verifyUserToken(t.server.app, t.credentials.apiKey, token)).toBeNull();
    // the other key's organization acme is its own
    expect(await orgRole('acme', 'leo', other.headersK)).toBe('editor');
    expect(await orgRole('acme', 'leo')).toBe('editor');
  });
});
