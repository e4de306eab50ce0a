import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole, permissionsOf } from '../../../../helpers/access.ts';
import { createWorkspace } from '../../../../helpers/factories.ts';
import type { Outcomes } from '../../../../../server/services/organizations.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [{ documentId: 'd', accessType: 'organizationPrivate' }],
  });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'ann' }] });
});
afterAll(() => t.close());

const path = '/v2/organizations/access/disablestate/update';

describe(path, () => {
  it('makes a disabled organization read-only for everyone, and re-enabling restores it', async () => {
    const res = await t.callK(path, { organizationIds: ['acme', 'ghost'], disabled: true });
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Updated disable state for Organization(s) successfully.',
      data: {
        acme: { success: true, id: 'acme', message: 'Organization disable state updated.' },
        ghost: { success: false, id: 'ghost', message: 'Organization does not exist' },
      },
    });
    expect(dataOf<Array<{ disabled: boolean }>>(await t.callK('/v2/organizations/get', { organizationIds: ['acme'] }))[0]!.disabled).toBe(true);
    expect(await documentRole(t, 'acme', 'ann', 'd')).toBe('viewer');
    const data = await permissionsOf(t, 'acme', ['ann'], { documentIds: ['d'] });
    expect(data.ann!.documents.d!.reasons).toContain('read-only: the organization is disabled');
    await t.callK(path, { organizationIds: ['acme'], disabled: false });
    expect(await documentRole(t, 'acme', 'ann', 'd')).toBe('editor');
  });

  it('validates the input and keeps API keys apart', async () => {
    expect(errorOf(await t.callK(path, { organizationIds: ['acme'] }))).toEqual({ status: 'INVALID_ARGUMENT', message: 'disabled is required.' });
    const other = await createWorkspace(t);
    const res = await t.callPublic(path, { organizationIds: ['acme'], disabled: true }, other.headersK);
    expect(dataOf<Outcomes>(res).acme!.success).toBe(false);
    expect(await documentRole(t, 'acme', 'ann', 'd')).toBe('editor');
  });
});
