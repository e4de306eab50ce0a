import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type Headers_, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'acme' }] });
});
afterAll(() => t.close());

const path = '/v2/workspace/activityconfig/update';

/** activityconfig/get and /update answer this; apikeyconfig/get describes the same setting. */
interface ActivityConfig {
  activityServiceConfig: { isEnabled: boolean; enabledTime: number | null };
}
const get = async (headers?: Headers_) => dataOf<ActivityConfig>(await t.callK('/v2/workspace/activityconfig/get', {}, headers)).activityServiceConfig;
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
  dataOf<unknown[]>(await t.callK('/v2/activities/get', { organizationId: 'acme', activityIds: [id] }, headers));
const REFUSAL = 'Activity logs are disabled for this API key: enable activityServiceConfig.isEnabled with /v2/workspace/activityconfig/update.';

describe('/v2/workspace/activityconfig/update', () => {
  it('turns activity logs off: activities/add is refused and writes nothing; on again: accepted, enabledTime stamped', async () => {
    const { enabledTime: createdAt } = await get();
    const off = await t.callK(path, { activityServiceConfig: { isEnabled: false } });
    expect(off.status).toBe(200);
    expect(resultOf(off)).toEqual({
      status: 'success',
      message: 'Activity logs configuration updated successfully.',
      data: { activityServiceConfig: { isEnabled: false, enabledTime: createdAt } },
    });
    expect(await get()).toEqual(dataOf<ActivityConfig>(off).activityServiceConfig);

    const refused = await addActivity('while-off');
    expect({ status: refused.status, error: errorOf(refused) }).toEqual({ status: 400, error: { status: 'FAILED_PRECONDITION', message: REFUSAL } });
    expect(await stored('while-off')).toEqual([]);
    // the other activity operations still answer
    expect((await t.callK('/v2/activities/get', { organizationId: 'acme' })).status).toBe(200);

    const before = Date.now();
    const on = await t.callK(path, { activityServiceConfig: { isEnabled: true } });
    expect(dataOf<ActivityConfig>(on).activityServiceConfig.isEnabled).toBe(true);
    expect(dataOf<ActivityConfig>(on).activityServiceConfig.enabledTime).toBeGreaterThanOrEqual(before);
    expect(dataOf<ActivityConfig>(on).activityServiceConfig.enabledTime).toBeLessThanOrEqual(Date.now());
    expect((await addActivity('after-on')).status).toBe(200);
    expect(await stored('after-on')).toHaveLength(1);
  });

  it('updates partially: enabledTime alone keeps isEnabled, turning off keeps enabledTime, turning on again when on keeps it', async () => {
    const set = await t.callK(path, { activityServiceConfig: { enabledTime: 1_700_000_000_000 } });
    expect(dataOf<ActivityConfig>(set)).toEqual({ activityServiceConfig: { isEnabled: true, enabledTime: 1_700_000_000_000 } });
    expect(dataOf<ActivityConfig>(await t.callK(path, { activityServiceConfig: { isEnabled: true } })).activityServiceConfig).toEqual({
      isEnabled: true,
      enabledTime: 1_700_000_000_000,
    });
    expect(dataOf<ActivityConfig>(await t.callK(path, { activityServiceConfig: { isEnabled: false } })).activityServiceConfig).toEqual({
      isEnabled: false,
      enabledTime: 1_700_000_000_000,
    });
    // turned on with a given time: that time
    expect(
      dataOf<ActivityConfig>(await t.callK(path, { activityServiceConfig: { isEnabled: true, enabledTime: 1_800_000_000_000 } })).activityServiceConfig,
    ).toEqual({ isEnabled: true, enabledTime: 1_800_000_000_000 });
    expect(dataOf<ActivityConfig>(await t.callK('/v2/workspace/apikeyconfig/get', {})).activityServiceConfig).toEqual({
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
      expect({ data, status: res.status, error: errorOf(res) }).toEqual({ data, status: 400, error: { status: 'INVALID_ARGUMENT', message } });
    }
    expect(await get()).toEqual(before);
  });

  it("turning one key's activity logs off leaves every other key's on", async () => {
    const other = await createWorkspace(t);
    await t.callPublic('/v2/organizations/add', { organizations: [{ organizationId: 'acme' }] }, other.headersK);
    expect((await t.callK(path, { activityServiceConfig: { isEnabled: false } }, other.headersK)).status).toBe(200);
    expect(errorOf(await addActivity('theirs', other.headersK))).toEqual({ status: 'FAILED_PRECONDITION', message: REFUSAL });
    expect((await get()).isEnabled).toBe(true);
    expect((await addActivity('mine')).status).toBe(200);
    // and the other way round
    await t.callK(path, { activityServiceConfig: { isEnabled: false } });
    expect((await t.callK(path, { activityServiceConfig: { isEnabled: true } }, other.headersK)).status).toBe(200);
    expect((await addActivity('theirs', other.headersK)).status).toBe(200);
    expect(errorOf(await addActivity('mine-2')).status).toBe('FAILED_PRECONDITION');
    expect(await stored('mine-2')).toEqual([]);
  });
});
