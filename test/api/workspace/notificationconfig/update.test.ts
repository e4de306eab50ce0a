import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type Headers_, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const path = '/v2/workspace/notificationconfig/update';

/** notificationconfig/get and /update answer this. */
interface NotificationConfig {
  useNotificationService: boolean;
  notificationServiceConfig: { triggers: Record<string, boolean> };
}
/** apikeyconfig/get's answer (the fields read here): the same settings. */
interface KeyConfig {
  useNotificationService: boolean;
  notificationTriggers: Record<string, boolean> | null;
}
const get = async (headers?: Headers_) => dataOf<NotificationConfig>(await t.callK('/v2/workspace/notificationconfig/get', {}, headers));
const DEFAULT_TRIGGERS = { comment: true, reply: true, mention: true, statusChange: true, reaction: false, huddle: true };

describe('/v2/workspace/notificationconfig/update', () => {
  it('turns the service on, seeding the default triggers for a key that has none; get and apikeyconfig/get agree', async () => {
    expect(await get()).toEqual({ useNotificationService: false, notificationServiceConfig: { triggers: {} } });
    const on = await t.callK(path, { useNotificationService: true });
    expect(on.status).toBe(200);
    expect(resultOf(on)).toEqual({
      status: 'success',
      message: 'Notification configuration updated successfully.',
      data: { useNotificationService: true, notificationServiceConfig: { triggers: DEFAULT_TRIGGERS } },
    });
    expect(await get()).toEqual(dataOf<NotificationConfig>(on));
    const config = dataOf<KeyConfig>(await t.callK('/v2/workspace/apikeyconfig/get', {}));
    expect([config.useNotificationService, config.notificationTriggers]).toEqual([true, DEFAULT_TRIGGERS]);
  });

  it('updates partially: triggers merge, either field alone leaves the other, turning on again does not re-seed', async () => {
    const merged = await t.callK(path, { notificationServiceConfig: { triggers: { reaction: true, comment: false } } });
    expect(dataOf<NotificationConfig>(merged)).toEqual({
      useNotificationService: true,
      notificationServiceConfig: { triggers: { ...DEFAULT_TRIGGERS, reaction: true, comment: false } },
    });

    const off = await t.callK(path, { useNotificationService: false });
    expect(dataOf<NotificationConfig>(off)).toEqual({
      useNotificationService: false,
      notificationServiceConfig: { triggers: { ...DEFAULT_TRIGGERS, reaction: true, comment: false } },
    });

    const again = await t.callK(path, { useNotificationService: true, notificationServiceConfig: {} });
    expect(dataOf<NotificationConfig>(again).notificationServiceConfig.triggers).toEqual({ ...DEFAULT_TRIGGERS, reaction: true, comment: false });
  });

  it('seeds nothing when turning the service off, and keeps only the triggers given on a key without any', async () => {
    const other = await createWorkspace(t);
    const res = await t.callK(path, { useNotificationService: false, notificationServiceConfig: { triggers: { huddle: false } } }, other.headersK);
    expect(dataOf<NotificationConfig>(res)).toEqual({ useNotificationService: false, notificationServiceConfig: { triggers: { huddle: false } } });
  });

  it('refuses an empty update and bad fields with the hosted message or one naming the field, changing nothing', async () => {
    const before = await get();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'At least one of useNotificationService or notificationServiceConfig must be provided'],
      [{ useNotificationService: 'yes' }, 'useNotificationService must be a boolean, not a string.'],
      [{ notificationServiceConfig: 'x' }, 'notificationServiceConfig must be an object, not a string.'],
      [
        { useNotificationService: false, notificationServiceConfig: { triggers: { comment: 'on' } } },
        'notificationServiceConfig.triggers.comment must be a boolean, not a string.',
      ],
      [
        { useNotificationService: false, notificationServiceConfig: { triggers: { carrierPigeon: true } } },
        'notificationServiceConfig.triggers has unknown field(s): carrierPigeon.',
      ],
      [{ useNotificationService: false, notificationServiceConfig: { triggers: [] } }, 'notificationServiceConfig.triggers must be an object, not an array.'],
    ];
    for (const [data, message] of cases) {
      const res = await t.callK(path, data);
      expect({ data, status: res.status, error: errorOf(res) }).toEqual({
        data,
        status: 400,
        error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining(message) },
      });
    }
    expect(errorOf(await t.callK(path, {})).message).toBe('At least one of useNotificationService or notificationServiceConfig must be provided');
    expect(await get()).toEqual(before);
  });

  it("changes only the calling key's settings", async () => {
    const other = await createWorkspace(t);
    const mine = await get();
    await t.callK(path, { useNotificationService: true, notificationServiceConfig: { triggers: { mention: false } } }, other.headersK);
    expect(await get()).toEqual(mine);
    await t.callK(path, { useNotificationService: !mine.useNotificationService, notificationServiceConfig: { triggers: { huddle: false } } });
    expect(await get(other.headersK)).toEqual({
      useNotificationService: true,
      notificationServiceConfig: { triggers: { ...DEFAULT_TRIGGERS, mention: false } },
    });
  });
});
