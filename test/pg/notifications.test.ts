// The notifications repository on PostgreSQL answers as on SQLite (test/helpers/pg-parity.ts): prelude, channel
// settings, inserts with recipients, every page shape (by document, by recipient with a private comment's
// notification hidden, with a location, ids, a cursor, both orders) byte for byte, edits, read marks, deletes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationsPg } from '../../server/db/pg/repos/notifications.ts';
import type { NotificationFilters } from '../../server/db/repos/notification-page.ts';
import { type ChannelRow, type NotificationRow, type NotificationsRepo, notificationsRepo, type Prelude } from '../../server/db/repos/notifications.ts';
import { type BothEngines, bothEngines, onBoth } from '../helpers/pg-parity.ts';

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
  for (const key of ['k1', 'k2']) {
    await both.insertBoth('INSERT INTO organizations (api_key_id, id, name, disabled, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      key,
      'acme',
      'Acme',
      false,
      '{}',
      1,
      1,
    ]);
    for (const doc of ['d1', 'd2'])
      await both.insertBoth(
        'INSERT INTO documents (api_key_id, organization_id, id, name, access_type, disabled, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [key, 'acme', doc, doc, 'organizationPrivate', false, '{}', 1, 1],
      );
  }
  // the prelude's facts for k1: d3 two folders down (its chain's members), members of d1 and of the organization (one
  // expired: members are who holds a row, access decides the rest), profiles, and an endpoint that takes d3's events
  const folderSql =
    'INSERT INTO folders (api_key_id, organization_id, id, name, parent_id, ancestors, path, inherit_access, access_type, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
  await both.insertBoth(folderSql, ['k1', 'acme', 'top', 'Top', 'root', '["root"]', '/top', true, 'organizationPrivate', 1, 1]);
  await both.insertBoth(folderSql, ['k1', 'acme', 'sub', 'Sub', 'top', '["root","top"]', '/top/sub', true, 'organizationPrivate', 1, 2]);
  await both.insertBoth(
    'INSERT INTO documents (api_key_id, organization_id, id, name, folder_id, access_type, disabled, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ['k1', 'acme', 'd3', 'd3', 'sub', 'restricted', false, '{"x":[1,"y"]}', 1, 1],
  );
  const memberSql =
    'INSERT INTO memberships (api_key_id, organization_id, level, resource_id, user_id, access_role, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)';
  for (const [level, resource, user, expires] of [
    ['document', 'd1', 'cy', null],
    ['document', 'd1', 'ann', null],
    ['document', 'd3', 'dee', null],
    ['folder', 'top', 'eve', null],
    ['folder', 'sub', 'ann', 5],
    ['folder', 'other', 'zed', null],
    ['organization', 'acme', 'bob', null],
  ] as const)
    await both.insertBoth(memberSql, ['k1', 'acme', level, resource, user, 'editor', expires, 1, 1]);
  await both.insertBoth('INSERT INTO users (api_key_id, id, internal_id, name, email, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
    'k1',
    'ann',
    'i-ann',
    'Ann',
    null,
    '{"b":2,"a":[1]}',
    3,
    4,
  ]);
  await both.insertBoth(
    'INSERT INTO webhook_configs (api_key_id, is_enabled, encrypt_data, encode_data, public_key, enable_data_protection, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ['k1', true, false, false, '', false, 1, 1],
  );
  await both.insertBoth(
    'INSERT INTO webhook_endpoints (id, api_key_id, url, description, filter_types, channels, disabled, metadata, secret_enc, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ['ep-d3', 'k1', 'https://h.test/', '', '["notification.add"]', '["d3"]', false, '{}', 's', 1, 1],
  );
  // a private thread of k1 in d1 that only ann may see (and its author, bob)
  await both.insertBoth(
    'INSERT INTO comment_annotations (api_key_id, organization_id, id, document_id, status_id, visibility, visible_to_user_ids, created_by_user_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ['k1', 'acme', 'secret-thread', 'd1', 'open', 'restricted', '["ann"]', 'bob', 1, 1],
  );
});
afterAll(() => both?.close());

const row = (id: string, documentId: string, timestamp: number, extra: Partial<NotificationRow> = {}): Omit<NotificationRow, 'apiKeyId'> => ({
  organizationId: 'acme',
  id,
  documentId,
  locationId: timestamp % 2 ? 'loc-odd' : null,
  source: 'custom',
  sourceData: { z: 1, a: { nested: [1, 'two', null] } },
  actionUser: { userId: 'actor', name: 'Actor', email: 'a@x.test' },
  headlineTemplate: '{actionUser} did {thing}',
  headlineData: { thing: 'it' },
  body: 'body',
  resolver: timestamp % 3 === 0,
  contextAccess: timestamp % 2 ? { team: 'red', level: 2 } : null,
  timestamp,
  ...extra,
});

describe('notifications', () => {
  it('answers every call as on SQLite, pages byte for byte', async () => {
    const { k1, k2 } = both;
    const decide = (settings: ChannelRow[]) => ({
      // everyone in the inbox (the page's visibility rule is what is under test); the settings read are answered back
      inbox: ['ann', 'bob', 'cy'].map((userId) => ({ userId, explicit: userId !== 'cy' })),
      settings,
    });
    const page = async (repo: NotificationsRepo, f: Partial<NotificationFilters>, cursor: [number, string] | null = null, scope = k1) =>
      JSON.stringify(await repo.page(scope, { organizationId: 'acme', pageSize: 3, order: 'desc', ...f }, cursor));
    const answers = await onBoth<NotificationsRepo>(both.storage.notifications, notificationsRepo(both.pg, notificationsPg(both.engine)), async (repo) => {
      const out: unknown[] = [];
      const ask = (id: string | undefined, userIds: string[] = ['ann', 'bob', 'cy', 'nobody']) => ({ id, userIds, eventType: 'notification.add' });
      out.push(
        await repo.prelude(k1, 'acme', 'd1', ask('n1')),
        await repo.prelude(k1, 'acme', 'd3', ask(undefined)),
        await repo.prelude(k1, 'acme', 'd3', { ...ask(undefined, []), eventType: 'comment.add' }),
        await repo.prelude(k1, 'nope', 'd1', ask('n1')),
        await repo.prelude(k2, 'acme', 'missing', ask('n1')),
      );
      out.push(
        await repo.saveConfigs(
          k1,
          'acme',
          [
            { userId: 'cy', documentId: '' },
            { userId: 'ann', documentId: 'd1' },
          ],
          (current) => ({
            inbox: current ? 'ALL' : 'NONE',
            email: 'MINE',
            slack: 'ALL',
            channelsSet: 3,
          }),
          1_700_000_000_000,
        ),
      );
      out.push(await repo.channelRows(k1, 'acme', 'd1', ['ann', 'bob', 'cy']), await repo.channelRows(k1, 'acme', 'd1', []));
      // the settings now stored, in the prelude; an insert given some of them reads only the others'
      out.push(await repo.prelude(k1, 'acme', 'd1', ask(undefined)));
      const known = (await repo.prelude(k1, 'acme', 'd1', ask(undefined, ['ann']))).channels;
      out.push(await repo.insert(k1, row('n0', 'd1', 999), ['ann', 'bob', 'cy'], decide, { userIds: new Set(['ann']), rows: known }));
      for (let i = 1; i <= 8; i++) {
        const doc = i <= 6 ? 'd1' : 'd2';
        out.push(
          await repo.insert(
            k1,
            row(`n${i}`, doc, 1000 + (i % 5), i === 4 ? { source: 'comment', sourceData: { annotationId: 'secret-thread' } } : {}),
            ['ann', 'bob', 'cy'],
            decide,
          ),
        );
      }
      out.push(await repo.insert(k2, row('n1', 'd1', 5000), ['zed'], () => ({ inbox: [{ userId: 'zed', explicit: true }] })));
      // taken once stored; an id Hearth makes (undefined) is not looked up
      out.push(await repo.prelude(k1, 'acme', 'd1', ask('n1')), await repo.prelude(k1, 'acme', 'd1', ask(undefined)));
      out.push(await page(repo, { documentId: 'd1' }));
      out.push(await page(repo, { documentId: 'd1', order: 'asc', pageSize: 10 }));
      out.push(await page(repo, { documentId: 'd1' }, [1003, 'n8']));
      out.push(await page(repo, { documentId: 'd1', locationId: 'loc-odd', pageSize: 10 }));
      out.push(await page(repo, { documentId: 'd1', notificationIds: ['n2', 'n5', 'n7'], pageSize: 10 }));
      // by recipient: cy (not named in the private thread) does not see n4; bob wrote it, ann is on its list
      for (const userId of ['ann', 'bob', 'cy']) out.push(await page(repo, { userId, pageSize: 10 }));
      out.push(await page(repo, { userId: 'ann', documentId: 'd2', pageSize: 10 }));
      out.push(await page(repo, { userId: 'ann', pageSize: 2 }, [1002, 'n7']));
      out.push(await page(repo, { userId: 'zed', pageSize: 10 }), await page(repo, { userId: 'zed', pageSize: 10 }, null, k2));
      out.push(
        await repo.update(k1, 'acme', [
          {
            id: 'n1',
            change: (r) => ({ actionUser: r.actionUser, headlineTemplate: 'edited', headlineData: { b: 1, a: 2 }, body: r.body, sourceData: r.sourceData }),
            readBy: ['ann', 'bob'],
            readAt: 7,
          },
          { id: 'missing', change: (r) => r, readAt: 7 },
          { id: 'n1', change: (r) => r, unreadBy: ['bob'], readAt: 8 },
        ]),
      );
      out.push(await page(repo, { documentId: 'd1', notificationIds: ['n1'] }));
      // written at each engine's own Date.now(): compared as times
      const configs = async (scope: typeof k1, userId: string) =>
        (await repo.configs(scope, 'acme', userId)).map(({ updatedAt, ...rest }) => ({ ...rest, updatedAt: typeof updatedAt }));
      out.push(await configs(k1, 'ann'), await configs(k1, 'cy'), await configs(k2, 'ann'));
      // which ids a delete names is a set (SQLite's order follows its plan): compared sorted
      const sorted = (ids: string[]) => [...ids].sort();
      out.push(sorted(await repo.delete(k1, { organizationId: 'acme', documentId: 'd1', locationId: 'loc-odd' })));
      out.push(sorted(await repo.delete(k1, { organizationId: 'acme', userId: 'ann', notificationIds: ['n2', 'n8', 'n6'] })));
      out.push(await page(repo, { documentId: 'd1', pageSize: 10 }), await page(repo, { userId: 'cy', pageSize: 10 }));
      out.push(await page(repo, { userId: 'zed', pageSize: 10 }, null, k2));
      return out;
    });
    expect(answers.pg).toEqual(answers.sqlite);
    // what the answers must be, beyond being the same (pages in the order the script reads them: d1 newest first,
    // oldest first, after a cursor, by location, by ids, then ann's, bob's and cy's)
    const pages = answers.sqlite.filter((a): a is string => typeof a === 'string').map((a) => JSON.parse(a) as Array<{ id: string }>);
    // newest first, and one more than the page (it tells that a next page exists)
    expect(pages[0]!.map((x) => x.id)).toEqual(['n4', 'n3', 'n2', 'n6']);
    expect(answers.sqlite[0]).toMatchObject({ organization: { id: 'acme', name: 'Acme' }, document: { id: 'd1', organizationId: 'acme' }, taken: false });
    const member = (level: string, resourceId: string, userId: string) => ({ level, resourceId, userId });
    const [d1, d3, d3Comment] = answers.sqlite as Prelude[];
    expect(d1).toMatchObject({
      folder: undefined,
      members: [member('document', 'd1', 'ann'), member('document', 'd1', 'cy'), member('organization', 'acme', 'bob')],
    });
    expect([...d1!.profiles.values()]).toEqual([
      {
        apiKeyId: 'k1',
        id: 'ann',
        internalId: 'i-ann',
        name: 'Ann',
        email: null,
        initial: null,
        photoUrl: null,
        metadata: { b: 2, a: [1] },
        createdAt: 3,
        updatedAt: 4,
      },
    ]);
    expect(d1!.subscribed).toBe(false);
    // the chain's members (an expired one too: access decides), not another folder's
    expect(d3).toMatchObject({
      document: { id: 'd3', folderId: 'sub', metadata: { x: [1, 'y'] } },
      folder: { id: 'sub', ancestors: ['root', 'top'], inheritAccess: true },
      members: [member('document', 'd3', 'dee'), member('folder', 'sub', 'ann'), member('folder', 'top', 'eve'), member('organization', 'acme', 'bob')],
      subscribed: true,
    });
    expect(d3Comment).toMatchObject({ subscribed: false, channels: [] });
    expect(d3Comment!.profiles.size).toBe(0);
    const cyPage = pages[7]!;
    expect(cyPage.map((x) => x.id)).not.toContain('n4');
    const annPage = pages[5]!;
    expect(annPage.map((x) => x.id)).toContain('n4');
  });
});
