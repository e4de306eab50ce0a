import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import type { Outcomes } from '../../../server/services/organizations.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';

interface Organization {
  id: string;
  organizationName: string;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('/v2/organizations/add', () => {
  it('adds organizations, reporting existing ones per item', async () => {
    const res = await t.callK('/v2/organizations/add', {
      organizations: [{ organizationId: 'acme', organizationName: 'Acme', metadata: { plan: 'gold' } }, { organizationId: 'beta' }],
    });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Organization(s) added successfully.',
      data: { acme: { success: true, id: 'acme', message: 'Added Successfully' }, beta: { success: true, id: 'beta', message: 'Added Successfully' } },
    });
    const again = await t.callK('/v2/organizations/add', {
      organizations: [{ organizationId: 'acme', organizationName: 'Other' }, { organizationId: 'gamma' }],
    });
    expect(dataOf<Outcomes>(again)).toEqual({
      acme: { success: false, id: 'acme', message: 'Organization already exists' },
      gamma: { success: true, id: 'gamma', message: 'Added Successfully' },
    });
    const got = await t.callK('/v2/organizations/get', { organizationIds: ['acme'] });
    expect(dataOf<Organization[]>(got)[0]).toMatchObject({ id: 'acme', organizationName: 'Acme', disabled: false, metadata: { plan: 'gold' } });
  });

  it('validates the input', async () => {
    expect(errorOf(await t.callK('/v2/organizations/add', {}))).toEqual({ status: 'INVALID_ARGUMENT', message: 'organizations is required.' });
    expect(errorOf(await t.callK('/v2/organizations/add', { organizations: [{}] })).message).toBe('organizations[0].organizationId is required.');
    expect(errorOf(await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'x' }, { organizationId: 'x' }] })).message).toBe(
      'organizations lists an id more than once.',
    );
  });

  it('keeps API keys apart: the same id is a different organization for another key', async () => {
    const other = await createWorkspace(t);
    const res = await t.callPublic('/v2/organizations/add', { organizations: [{ organizationId: 'acme', organizationName: 'Theirs' }] }, other.headersK);
    expect(dataOf<Outcomes>(res).acme!.success).toBe(true);
    expect(dataOf<Organization[]>(await t.callK('/v2/organizations/get', { organizationIds: ['acme'] }))[0]!.organizationName).toBe('Acme');
  });
});
