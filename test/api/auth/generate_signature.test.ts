import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalPermissions, permissionsSigned } from '../../../server/security/permission-signature.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { call, dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const PATH = '/v2/auth/generate_signature';
const permissions = [
  { userId: 'ava', resourceId: 'doc-1', type: 'document', hasAccess: true, accessRole: 'viewer', expiresAt: 1_900_000_000_000 },
  { userId: 'ava', resourceId: 'acme', type: 'organization', hasAccess: false },
];

const signatureOf = async (data: unknown, headers?: Record<string, string>) => {
  const res = await t.callK(PATH, data, headers);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return dataOf<{ signature: string }>(res).signature;
};

describe('/v2/auth/generate_signature', () => {
  it('answers the hosted message and a 64-hex HMAC-SHA256 of the canonical form, the same for the same decisions', async () => {
    const res = await t.callK(PATH, { permissions });
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('Signature generated successfully.');
    const { signature } = dataOf<{ signature: string }>(res);
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(await signatureOf({ permissions })).toBe(signature);

    // the canonical form is the documented one, and the key is the API key's derived secret
    expect(canonicalPermissions(permissions as never)).toBe(
      'hearth-permissions-v1\n[["ava","doc-1","document",true,"viewer",1900000000000],["ava","acme","organization",false,null,null]]',
    );
    const key = t.server.app.secrets.derive(`permission-signature:${t.credentials.apiKey}`);
    expect(signature).toBe(
      createHmac('sha256', key)
        .update(canonicalPermissions(permissions as never))
        .digest('hex'),
    );
    expect(permissionsSigned(t.server.app.secrets, t.credentials.apiKey, permissions as never, signature)).toBe(true);
  });

  it('signs every field: a changed decision, role, expiry, order or key order of the JSON changes (or keeps) it as it must', async () => {
    const base = await signatureOf({ permissions });
    const variants = [
      [{ ...permissions[0], hasAccess: false }, permissions[1]],
      [{ ...permissions[0], accessRole: 'editor' }, permissions[1]],
      [{ ...permissions[0], expiresAt: 1_900_000_000_001 }, permissions[1]],
      [{ ...permissions[0], userId: 'bob' }, permissions[1]],
      [permissions[1], permissions[0]],
    ];
    for (const variant of variants) expect(await signatureOf({ permissions: variant })).not.toBe(base);
    // the same values with the object keys in another order: the same signature
    const reordered = permissions.map((p) => Object.fromEntries(Object.entries(p).reverse()));
    expect(await signatureOf({ permissions: reordered })).toBe(base);
  });

  it('is per API key: another workspace signs the same decisions differently, and neither verifies for the other', async () => {
    const other = await createWorkspace(t);
    const mine = await signatureOf({ permissions });
    const theirs = dataOf<{ signature: string }>(await call(t.url, PATH, { permissions }, other.headersK)).signature;
    expect(theirs).toMatch(/^[0-9a-f]{64}$/);
    expect(theirs).not.toBe(mine);
    expect(permissionsSigned(t.server.app.secrets, other.apiKey, permissions as never, mine)).toBe(false);
    expect(permissionsSigned(t.server.app.secrets, t.credentials.apiKey, permissions as never, theirs)).toBe(false);
  });

  it('refuses each missing or invalid field with INVALID_ARGUMENT naming it', async () => {
    const one = permissions[0] as Record<string, unknown>;
    const without = (field: string) => Object.fromEntries(Object.entries(one).filter(([k]) => k !== field));
    const cases: Array<[unknown, RegExp]> = [
      [{}, /permissions/],
      [{ permissions: [] }, /permissions/],
      [{ permissions: 'x' }, /permissions/],
      [{ permissions: [without('userId')] }, /userId/],
      [{ permissions: [without('resourceId')] }, /resourceId/],
      [{ permissions: [without('type')] }, /type/],
      [{ permissions: [without('hasAccess')] }, /hasAccess/],
      [{ permissions: [{ ...one, userId: '' }] }, /userId/],
      [{ permissions: [{ ...one, type: 'workspace' }] }, /type/],
      [{ permissions: [{ ...one, hasAccess: 'yes' }] }, /hasAccess/],
      [{ permissions: [{ ...one, accessRole: 'owner' }] }, /accessRole/],
      [{ permissions: [{ ...one, expiresAt: 'soon' }] }, /expiresAt/],
      [{ permissions: [{ ...one, expiresAt: -1 }] }, /expiresAt/],
      [{ permissions: [{ ...(permissions[1] as object), accessRole: 'viewer' }] }, /accessRole is allowed for documents only/],
    ];
    for (const [data, message] of cases) {
      const res = await t.callK(PATH, data);
      expect(res.status, JSON.stringify(data)).toBe(400);
      expect(errorOf(res).status).toBe('INVALID_ARGUMENT');
      expect(errorOf(res).message).toMatch(message);
    }
  });

  it('needs the API key headers: missing is INVALID_ARGUMENT, wrong is PERMISSION_DENIED', async () => {
    const missing = await t.callPublic(PATH, { permissions });
    expect(missing.status).toBe(400);
    expect(errorOf(missing).status).toBe('INVALID_ARGUMENT');
    const wrong = await call(t.url, PATH, { permissions }, { 'x-svc-api-key': t.credentials.apiKey, 'x-svc-auth-token': 'nope' });
    expect(wrong.status).toBe(403);
    expect(errorOf(wrong).status).toBe('PERMISSION_DENIED');
  });
});
