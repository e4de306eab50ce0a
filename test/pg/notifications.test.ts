// The notifications repository on PostgreSQL answers as on SQLite (test/helpers/pg-parity.ts): prelude, channel
// settings, inserts with recipients, every page shape (by document, by recipient with a private comment's
// notification hidden, with a location, ids, a cursor, both orders) byte for byte, edits, read marks, deletes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationsRepoPg } from '../../server/db/pg/repos/notifications.ts';
import type { NotificationFilters } from '../../server/db/repos/notification-page.ts';
import type { ChannelRow, NotificationRow, NotificationsRepo } from '../../server/db/repos/notifications.ts';
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
    const answers = await onBoth<NotificationsRepo>(both.storage.notifications, notificationsRepoPg(both.engine), async (repo) => {
      const out: unknown[] = [];
      out.push(await repo.prelude(k1, 'acme', 'd1', 'n1'), await repo.prelude(k1, 'nope', 'd1', 'n1'), await repo.prelude(k2, 'acme', 'missing', 'n1'));
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
      out.push(await repo.prelude(k1, 'acme', 'd1', 'n1'), await repo.prelude(k1, 'acme', 'd1', undefined));
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
    const cyPage = pages[7]!;
    expect(cyPage.map((x) => x.id)).not.toContain('n4');
    const annPage = pages[5]!;
    expect(annPage.map((x) => x.id)).toContain('n4');
  });
});
