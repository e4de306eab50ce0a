import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import type { Outcomes } from '../../../../server/services/organizations.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('/v2/organizations/usergroups/add', () => {
  it('adds groups, creating the organization when asked; an existing group is reported per item', async () => {
    const res = await t.callK('/v2/organizations/usergroups/add', {
      organizationId: 'acme',
      createOrganization: true,
      organizationUserGroups: [{ groupId: 'eng', groupName: 'Engineering' }, { groupId: 'ops' }],
    });
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Organization User Groups added successfully.',
      data: {
        eng: { success: true, id: 'eng', message: 'Organization user group added.' },
        ops: { success: true, id: 'ops', message: 'Organization user group added.' },
      },
    });
    const again = await t.callK('/v2/organizations/usergroups/add', { organizationId: 'acme', organizationUserGroups: [{ groupId: 'eng' }] });
    expect(dataOf<Outcomes>(again).eng).toEqual({ success: false, id: 'eng', message: 'Organization user group already exists.' });
  });

  it('needs an existing organization without createOrganization', async () => {
    const res = await t.callK('/v2/organizations/usergroups/add', { organizationId: 'nope', organizationUserGroups: [{ groupId: 'g' }] });
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'Organization does not exist: nope. Pass createOrganization: true to create it.' });
  });

  it('validates the input and keeps API keys apart', async () => {
    expect(errorOf(await t.callK('/v2/organizations/usergroups/add', { organizationId: 'acme', organizationUserGroups: [{ groupName: 'x' }] })).message).toBe(
      'organizationUserGroups[0].groupId is required.',
    );
    // a group named twice: its one keyed outcome could not tell both, so the call is refused and writes nothing
    const twice = await t.callK('/v2/organizations/usergroups/add', {
      organizationId: 'acme',
      organizationUserGroups: [
        { groupId: 'twice', groupName: 'A' },
        { groupId: 'twice', groupName: 'B' },
      ],
    });
    expect(errorOf(twice)).toEqual({ status: 'INVALID_ARGUMENT', message: 'organizationUserGroups lists an id more than once.' });
    expect(
      dataOf<Outcomes>(await t.callK('/v2/organizations/usergroups/add', { organizationId: 'acme', organizationUserGroups: [{ groupId: 'twice' }] })).twice!
        .success,
    ).toBe(true);
    const other = await createWorkspace(t);
    expect(
      (await t.callPublic('/v2/organizations/usergroups/add', { organizationId: 'acme', organizationUserGroups: [{ groupId: 'g' }] }, other.headersK)).status,
    ).toBe(404);
  });
});
