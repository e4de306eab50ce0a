import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type Headers_, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'acme' }] });
});
afterAll(() => t.close());

const path = '/v2/workspace/activityconfig/update';
const get = async (headers?: Headers_) => (await t.callK('/v2/workspace/activityconfig/get', {}, headers)).body.result.data.activityServiceConfig;
const addActivity = (id: string, headers?: Headers_) =>
  t.callK(
    '/v2/activities/add',
    {
      organizationId: 'acme',
      documentId: 'doc',
      activities: [{ id, featureType: 'custom', actionType: 'custom.x', actionUser: { userId: 'ann' }, targetEntityId: 'x' }],
    },
    headers,
  );
const stored = async (id: string, headers?: Headers_) =>
  (await t.callK('/v2/activities/get', { organizationId: 'acme', activityIds: [id] }, headers)).body.result.data as unknown[];
const REFUSAL = 'Activity logs are disabled for this API key: enable activityServiceConfig.isEnabled with /v2/workspace/activityconfig/update.';

describe('/v2/workspace/activityconfig/update', () => {
  it('turns activity logs off: activities/add is refused and writes nothing; on again: accepted, enabledTime stamped', async () => {
    const { enabledTime: createdAt } = await get();
    const off = await t.callK(path, { activityServiceConfig: { isEnabled: false } });
    expect(off.status).toBe(200);
    expect(off.body.result).toEqual({
      status: 'success',
      message: 'Activity logs configuration updated successfully.',
      data: { activityServiceConfig: { isEnabled: false, enabledTime: createdAt } },
    });
    expect(await get()).toEqual(off.body.result.data.activityServiceConfig);

    const refused = await addActivity('while-off');
    expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 400, error: { status: 'FAILED_PRECONDITION', message: REFUSAL } });
    expect(await stored('while-off')).toEqual([]);
    // the other activity operations still answer
    expect((await t.callK('/v2/activities/get', { organizationId: 'acme' })).status).toBe(200);

    const before = Date.now();
    const on = await t.callK(path, { activityServiceConfig: { isEnabled: true } });
    expect(on.body.result.data.activityServiceConfig.isEnabled).toBe(true);
    expect(on.body.result.data.activityServiceConfig.enabledTime).toBeGreaterThanOrEqual(before);
    expect(on.body.result.data.activityServiceConfig.enabledTime).toBeLessThanOrEqual(Date.now());
    expect((await addActivity('after-on')).status).toBe(200);
    expect(await stored('after-on')).toHaveLength(1);
  });

  it('updates partially: enabledTime alone keeps isEnabled, turning off keeps enabledTime, turning on again when on keeps it', async () => {
    const set = await t.callK(path, { activityServiceConfig: { enabledTime: 1_700_000_000_000 } });
    expect(set.body.result.data).toEqual({ activityServiceConfig: { isEnabled: true, enabledTime: 1_700_000_000_000 } });
    expect((await t.callK(path, { activityServiceConfig: { isEnabled: true } })).body.result.data.activityServiceConfig).toEqual({
      isEnabled: true,
      enabledTime: 1_700_000_000_000,
    });
    expect((await t.callK(path, { activityServiceConfig: { isEnabled: false } })).body.result.data.activityServiceConfig).toEqual({
      isEnabled: false,
      enabledTime: 1_700_000_000_000,
    });
    // turned on with a given time: that time
    expect(
      (await t.callK(path, { activityServiceConfig: { isEnabled: true, enabledTime: 1_800_000_000_000 } })).body.result.data.activityServiceConfig,
    ).toEqual({ isEnabled: true, enabledTime: 1_800_000_000_000 });
    expect((await t.callK('/v2/workspace/apikeyconfig/get', {})).body.result.data.activityServiceConfig).toEqual({
      isEnabled: true,
      enabledTime: 1_800_000_000_000,
    });
  });

  it('refuses an empty update and bad fields, naming them, changing nothing', async () => {
    const before = await get();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'activityServiceConfig is required.'],
      [{ activityServiceConfig: {} }, 'At least one of activityServiceConfig.isEnabled or activityServiceConfig.enabledTime must be provided'],
      [{ activityServiceConfig: { isEnabled: 'no' } }, 'activityServiceConfig.isEnabled must be a boolean, not a string.'],
      [{ activityServiceConfig: { isEnabled: false, enabledTime: -1 } }, 'activityServiceConfig.enabledTime must be at least 0.'],
      [{ activityServiceConfig: { isEnabled: false, enabledTime: 1.5 } }, 'activityServiceConfig.enabledTime must be an integer, not a number.'],
      [{ activityServiceConfig: { isEnabled: false, enabledTime: 'yesterday' } }, 'activityServiceConfig.enabledTime must be a number, not a string.'],
      [{ activityServiceConfig: [] }, 'activityServiceConfig must be an object, not an array.'],
    ];
    for (const [data, message] of cases) {
      const res = await t.callK(path, data);
      expect({ data, status: res.status, error: res.body.error }).toEqual({ data, status: 400, error: { status: 'INVALID_ARGUMENT', message } });
    }
    expect(await get()).toEqual(before);
  });

  it("turning one key's activity logs off leaves every other key's on", async () => {
    const other = await createWorkspace(t);
    await t.callPublic('/v2/organizations/add', { organizations: [{ organizationId: 'acme' }] }, other.headersK);
    expect((await t.callK(path, { activityServiceConfig: { isEnabled: false } }, other.headersK)).status).toBe(200);
    expect((await addActivity('theirs', other.headersK)).body.error).toEqual({ status: 'FAILED_PRECONDITION', message: REFUSAL });
    expect((await get()).isEnabled).toBe(true);
    expect((await addActivity('mine')).status).toBe(200);
    // and the other way round
    await t.callK(path, { activityServiceConfig: { isEnabled: false } });
    expect((await t.callK(path, { activityServiceConfig: { isEnabled: true } }, other.headersK)).status).toBe(200);
    expect((await addActivity('theirs', other.headersK)).status).toBe(200);
    expect((await addActivity('mine-2')).body.error.status).toBe('FAILED_PRECONDITION');
    expect(await stored('mine-2')).toEqual([]);
  });
});
