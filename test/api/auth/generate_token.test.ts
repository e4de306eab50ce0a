import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { verifyUserToken } from '../../../server/services/permissions.ts';
import type { userTokenAnswer } from '../../../shared/schemas/answers.ts';
import { documentRole } from '../../helpers/access.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';

type UserToken = z.infer<typeof userTokenAnswer>;

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

const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

describe('/v2/auth/generate_token', () => {
  it('returns a 48-hour HS256 JWT for the user and grants the permissions it names', async () => {
    const res = await t.callK('/v2/auth/generate_token', {
      userId: 'ava',
      userProperties: { name: 'Ava', email: 'ava@example.com', isAdmin: false },
      permissions: { resources: [{ type: 'document', id: 'd', organizationId: 'acme', accessRole: 'viewer' }] },
    });
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('Token generated successfully.');
    const token: string = dataOf<UserToken>(res).token;
    const [header, payload] = token.split('.');
    expect(decode(header!)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = decode(payload!);
    expect(claims).toMatchObject({
      sub: 'ava',
      userId: 'ava',
      apiKey: t.credentials.apiKey,
      aud: t.credentials.apiKey,
      iss: 'hearth',
      name: 'Ava',
      email: 'ava@example.com',
      isAdmin: false,
    });
    expect(claims.exp - claims.iat).toBe(48 * 3600);
    expect(await documentRole(t, 'acme', 'ava', 'd')).toBe('viewer');

    // the token verifies for this API key only (this is what the CRDT websocket will check)
    expect((await verifyUserToken(t.server.app, t.credentials.apiKey, token))?.userId).toBe('ava');
    const other = await createWorkspace(t);
    expect(await verifyUserToken(t.server.app, other.apiKey, token)).toBeNull();
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, userId: 'mallory' })).toString('base64url')}.${token.split('.')[2]}`;
    expect(await verifyUserToken(t.server.app, t.credentials.apiKey, tampered)).toBeNull();
  });

  it('grants context permissions given with the token', async () => {
    await t.callK('/v2/auth/generate_token', { userId: 'ctx-user', permissions: { context: { access: { project: 'apollo' } } } });
    const res = await t.callK('/v2/auth/permissions/get', { organizationId: 'acme', userIds: ['ctx-user'] });
    expect(dataOf<Record<string, { context?: unknown }>>(res)['ctx-user']!.context).toEqual({ accessFields: ['project:apollo'] });
  });

  it('works without permissions or properties', async () => {
    const res = await t.callK('/v2/auth/generate_token', { userId: 'bare' });
    expect(res.status).toBe(200);
    expect(decode(dataOf<UserToken>(res).token.split('.')[1]!).userId).toBe('bare');
  });

  it('refuses unknown resources without issuing a token', async () => {
    const res = await t.callK('/v2/auth/generate_token', {
      userId: 'zed',
      permissions: { resources: [{ type: 'document', id: 'nope', organizationId: 'acme' }] },
    });
    expect(res.status).toBe(404);
    expect(errorOf(res).message).toBe('Document does not exist: nope in organization acme.');
  });

  it('validates the input', async () => {
    expect(errorOf(await t.callK('/v2/auth/generate_token', {}))).toEqual({ status: 'INVALID_ARGUMENT', message: 'userId is required.' });
    expect(errorOf(await t.callK('/v2/auth/generate_token', { userId: 'a', userProperties: { isAdmin: 'yes' } })).message).toBe(
      'userProperties.isAdmin must be a boolean, not a string.',
    );
  });

  it("cannot grant on another API key's documents", async () => {
    const other = await createWorkspace(t);
    const res = await t.callPublic(
      '/v2/auth/generate_token',
      { userId: 'spy', permissions: { resources: [{ type: 'document', id: 'd', organizationId: 'acme' }] } },
      other.headersK,
    );
    expect(res.status).toBe(404);
  });
});
