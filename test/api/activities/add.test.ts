import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, pgTablesHolding, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';
import { sqliteEngineOf } from '../../../server/db/repos/index.ts';

let t: TestServer;
interface Activity {
  id: string;
  actionType: string;
  timestamp: number;
}
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'acme' }] });
});
afterAll(() => t.close());

const actionUser = { userId: 'ann', name: 'Ann', email: 'ann@example.com' };
const add = (activities: unknown[], extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  t.callK('/v2/activities/add', { organizationId: 'acme', documentId: 'doc', activities, ...extra }, headers);
const get = async (activityIds: string[]) => dataOf<Activity[]>(await t.callK('/v2/activities/get', { organizationId: 'acme', activityIds }));

describe('/v2/activities/add', () => {
  it('stores custom and feature activities with every field', async () => {
    const res = await add([
      {
        id: 'act-1',
        featureType: 'custom',
        actionType: 'custom.approved',
        actionUser,
        targetEntityId: 'ticket-9',
        targetSubEntityId: 'step-2',
        changes: { status: { from: 'open', to: 'approved' } },
        entityData: { title: 'T' },
        entityTargetData: { x: 1 },
        displayMessageTemplate: '{{user}} approved {{ticket}}',
        displayMessageTemplateData: { user: 'Ann', ticket: 'T-9' },
        actionIcon: 'check',
      },
      { featureType: 'comment', actionType: 'comment.add', actionUser },
    ]);
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('Activity(s) added successfully.');
    expect(dataOf(res)).toMatchObject({ success: true, message: 'Activity(s) added successfully.' });
    const [, generated] = dataOf<{ activityIds: string[] }>(res).activityIds;
    expect(generated).toMatch(/^[A-Za-z0-9]{20}$/);
    const [stored] = await get(['act-1']);
    expect(stored).toMatchObject({
      id: 'act-1',
      featureType: 'custom',
      actionType: 'custom.approved',
      actionUser,
      targetEntityId: 'ticket-9',
      targetSubEntityId: 'step-2',
      changes: { status: { from: 'open', to: 'approved' } },
      entityData: { title: 'T' },
      entityTargetData: { x: 1 },
      displayMessageTemplate: '{{user}} approved {{ticket}}',
      displayMessageTemplateData: { user: 'Ann', ticket: 'T-9' },
      actionIcon: 'check',
      metadata: { apiKey: t.credentials.apiKey, documentId: 'doc', organizationId: 'acme' },
    });
    expect(typeof stored!.timestamp).toBe('number');
  });

  it('overwrites the record when the id is given again', async () => {
    await add([{ id: 'act-2', featureType: 'custom', actionType: 'custom.a', actionUser, targetEntityId: 'x', displayMessageTemplate: 'first' }]);
    await add([{ id: 'act-2', featureType: 'custom', actionType: 'custom.b', actionUser, targetEntityId: 'x', displayMessageTemplate: 'second' }]);
    const found = await get(['act-2']);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ actionType: 'custom.b', displayMessageTemplate: 'second' });
    // any id the read operations take (reference §3.8 names no character rule), trimmed as ids are
    for (const id of ['act.3', 'jira:PROJ-1', 'with space']) {
      await add([{ id: ` ${id} `, featureType: 'custom', actionType: 'custom.a', actionUser, targetEntityId: 'x' }]);
      expect((await get([id])).map((a) => a.id)).toEqual([id]);
    }
  });

  it('resolver mode keeps no personal data of the acting user', async () => {
    await add([
      {
        id: 'act-r',
        featureType: 'custom',
        actionType: 'custom.viewed',
        actionUser: { userId: 'ghost', name: 'Gina Hidden', email: 'gina.hidden@example.com' },
        targetEntityId: 'x',
        isActivityResolverUsed: true,
      },
    ]);
    expect((await get(['act-r']))[0]).toMatchObject({ actionUser: { userId: 'ghost' }, isActivityResolverUsed: true });
    if (t.server.app.storage.engine.kind === 'postgres') {
      // no row of the database holds the e-mail (the scan does find what the activity keeps)
      expect(await pgTablesHolding(t, 'gina.hidden@example.com')).toEqual([]);
      expect(await pgTablesHolding(t, 'custom.viewed')).toContain('activities');
    } else {
      sqliteEngineOf(t.server.app.storage).main.sqlite.pragma('wal_checkpoint(TRUNCATE)');
      expect(readFileSync(join(t.dataDir, 'hearth.db')).includes('gina.hidden@example.com')).toBe(false);
    }
  });

  it('validates the input, naming the field', async () => {
    const cases: Array<[unknown[], string]> = [
      [[{ featureType: 'custom', actionType: 'custom.x', actionUser }], 'activities[0].targetEntityId is required when featureType is custom.'],
      [[{ featureType: 'poll', actionType: 'poll.vote', actionUser }], 'activities[0].featureType must be one of: comment, reaction, recorder, crdt, custom.'],
      [[{ featureType: 'comment', actionUser }], 'activities[0].actionType is required.'],
      [[{ featureType: 'comment', actionType: 'comment.add' }], 'activities[0].actionUser is required.'],
      [[{ id: ' ', featureType: 'comment', actionType: 'comment.add', actionUser }], 'activities[0].id must not be empty.'],
      [[], 'activities must have at least 1 item(s).'],
    ];
    for (const [activities, message] of cases) {
      const res = await add(activities);
      expect({ status: res.status, error: errorOf(res) }).toEqual({ status: 400, error: { status: 'INVALID_ARGUMENT', message } });
    }
    const noOrg = await t.callK('/v2/activities/add', {
      organizationId: 'nope',
      activities: [{ featureType: 'comment', actionType: 'comment.add', actionUser }],
    });
    expect(noOrg.status).toBe(404);
  });

  it('keeps API keys apart', async () => {
    const other = await createWorkspace(t);
    await t.callPublic('/v2/organizations/add', { organizations: [{ organizationId: 'acme' }] }, other.headersK);
    await add([{ id: 'act-1', featureType: 'custom', actionType: 'custom.hijack', actionUser, targetEntityId: 'x' }], {}, other.headersK);
    expect((await get(['act-1']))[0]!.actionType).toBe('custom.approved');
  });
});
