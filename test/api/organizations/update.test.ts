import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import type { Outcomes } from '../../../server/services/organizations.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'acme', organizationName: 'Acme', metadata: { a: 1 } }] });
});
afterAll(() => t.close());

const get = async (headers?: Record<string, string>) =>
  dataOf<Array<{ organizationName: string }>>(await t.callK('/v2/organizations/get', { organizationIds: ['acme'] }, headers))[0];

describe('/v2/organizations/update', () => {
  it('renames and merges metadata, reporting missing ones per item', async () => {
    const res = await t.callK('/v2/organizations/update', {
      organizations: [{ organizationId: 'acme', organizationName: 'Acme Inc', metadata: { b: 2 } }, { organizationId: 'ghost' }],
    });
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Organization(s) updated successfully.',
      data: {
        acme: { success: true, id: 'acme', message: 'Updated Successfully' },
        ghost: { success: false, id: 'ghost', message: 'Organization does not exist' },
      },
    });
    expect(await get()).toMatchObject({ organizationName: 'Acme Inc', metadata: { a: 1, b: 2 } });
  });

  it('validates the input and keeps API keys apart', async () => {
    expect(errorOf(await t.callK('/v2/organizations/update', { organizations: [{ organizationName: 'x' }] })).message).toBe(
      'organizations[0].organizationId is required.',
    );
    const other = await createWorkspace(t);
    const res = await t.callPublic('/v2/organizations/update', { organizations: [{ organizationId: 'acme', organizationName: 'Hijacked' }] }, other.headersK);
    expect(dataOf<Outcomes>(res).acme!.success).toBe(false);
    expect((await get())!.organizationName).toBe('Acme Inc');
  });
});
