// Writes of one tenant at once on PostgreSQL (issue 31): SERIALIZABLE units of work that read and insert the same
// ranges refuse each other. 16 notifications/add at a time to one document (the cluster bench's seed) met
// "could not serialize access" past every retry, answered 500; a unit refused once now runs again alone in its
// instance (server/db/pg/gate.ts), and every write succeeds.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dataOf, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

it('adds 400 notifications to one document, 16 at a time, every one answered 200 and stored', async () => {
  const statuses: number[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < 400; i = next++) {
      const res = await t.callK('/v2/notifications/add', {
        organizationId: 'org',
        createOrganization: true,
        documentId: 'doc',
        createDocument: true,
        actionUser: { userId: 'actor' },
        displayHeadlineMessageTemplate: '{actionUser} pinged you',
        displayBodyMessage: `hello ${i}`,
        notifyUsers: [{ userId: `reader-${i % 20}` }],
      });
      statuses.push(res.status);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  expect(statuses.filter((s) => s !== 200)).toEqual([]);
  const [row] = await t.query<{ n: number | string }>('SELECT count(*) AS n FROM notifications');
  expect(Number(row?.n)).toBe(400);
  expect(dataOf<unknown[]>(await t.callK('/v2/notifications/get', { organizationId: 'org', documentId: 'doc', pageSize: 50 }))).toHaveLength(50);
});
