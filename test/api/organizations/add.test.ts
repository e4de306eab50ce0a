import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

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
    expect(res.body.result).toEqual({
      status: 'success',
      message: 'Organization(s) added successfully.',
      data: { acme: { success: true, id: 'acme', message: 'Added Successfully' }, beta: { success: true, id: 'beta', message: 'Added Successfully' } },
    });
    const again = await t.callK('/v2/organizations/add', {
      organizations: [{ organizationId: 'acme', organizationName: 'Other' }, { organizationId: 'gamma' }],
    });
    expect(again.body.result.data).toEqual({
      acme: { success: false, id: 'acme', message: 'Organization already exists' },
      gamma: { success: true, id: 'gamma', message: 'Added Successfully' },
    });
    const got = await t.callK('/v2/organizations/get', { organizationIds: ['acme'] });
    expect(got.body.result.data[0]).toMatchObject({ id: 'acme', organizationName: 'Acme', disabled: false, metadata: { plan: 'gold' } });
  });

  it('validates the input', async () => {
    expect((await t.callK('/v2/organizations/add', {})).body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'organizations is required.' });
    expect((await t.callK('/v2/organizations/add', { organizations: [{}] })).body.error.message).toBe('organizations[0].organizationId is required.');
    expect((await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'x' }, { organizationId: 'x' }] })).body.error.message).toBe(
      'organizations lists an id more than once.',
    );
  });

  it('keeps API keys apart: the same id is a different organization for another key', async () => {
    const other = await createWorkspace(t);
    const res = await t.callPublic('/v2/organizations/add', { organizations: [{ organizationId: 'acme', organizationName: 'Theirs' }] }, other.headersK);
    expect(res.body.result.data.acme.success).toBe(true);
    expect((await t.callK('/v2/organizations/get', { organizationIds: ['acme'] })).body.result.data[0].organizationName).toBe('Acme');
  });
});
