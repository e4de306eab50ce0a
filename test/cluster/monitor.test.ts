// Issue 31: the admin UI's request monitor of a cluster instance shows the calls of every instance
// (admin/monitor.ts): each instance publishes its calls' summaries over Redis every 100 ms, and the others keep them
// in the workspace's ring marked with the instance that answered. Bodies stay on that instance; a session still
// sees only its own workspace's calls.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallDetail, CallSummary } from '../../shared/admin.ts';
import { adminCookie } from '../helpers/admin.ts';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { call, eventually, type TestServer } from '../helpers/server.ts';

let cluster: Cluster;
let a: TestServer;
let b: TestServer;
let cookie: string;
beforeAll(async () => {
  cluster = await startCluster(2);
  [a, b] = cluster.instances as [TestServer, TestServer];
  // a session signed in to instance a, of the default workspace (the same on both: one database)
  cookie = await adminCookie(a);
});
afterAll(() => cluster?.close());

const UI = { 'x-hearth-ui': '1' };
const listOn = async (t: TestServer, session: string) =>
  ((await (await fetch(`${t.url}/admin/api/requests`, { headers: { ...UI, cookie: session } })).json()) as { items: CallSummary[] }).items;
const requestIdOf = (res: { headers: Headers }) => res.headers.get('x-request-id') as string;

describe('the request monitor across instances', () => {
  it('lists the calls another instance answered, marked with that instance, without their bodies', async () => {
    const bId = b.server.app.cluster?.instanceId;
    expect(bId).toMatch(/^[0-9a-f]+$/);
    // a's subscription is made in the background at its start: a call of b's shows once it is in place
    const answered = await eventually(async () => {
      const res = await b.callW('/v2/workspace/get', {});
      expect(res.status).toBe(200);
      const listed = await eventually(async () => {
        const found = (await listOn(a, cookie)).find((c) => c.requestId === requestIdOf(res));
        expect(found).toBeDefined();
        return found as CallSummary;
      }, 1_000);
      return listed;
    }, 10_000);
    expect(answered).toMatchObject({ method: 'POST', path: '/v2/workspace/get', status: 200, instance: bId, hasBodies: false });
    expect(answered.caller).toBe(a.credentials.workspaceId);

    // a's own calls carry no instance
    const own = await a.callK('/v2/users/add', { organizationId: 'mon', users: [{ userId: 'ann', name: 'Ann', email: 'ann@example.com' }] });
    const ownListed = (await listOn(a, cookie)).find((c) => c.requestId === requestIdOf(own));
    expect(ownListed).toMatchObject({ path: '/v2/users/add', caller: a.credentials.apiKey, hasBodies: false });
    expect(ownListed).not.toHaveProperty('instance');

    // the detail of b's call on a: its summary, its bodies left on b
    const detail = (await (await fetch(`${a.url}/admin/api/requests/${answered.id}`, { headers: { ...UI, cookie } })).json()) as CallDetail;
    expect(detail).toMatchObject({ requestId: answered.requestId, instance: bId });
    expect(detail.request).toBeUndefined();
    expect(detail.response).toBeUndefined();
  });

  it('sends calls of another instance to a live feed, and only to sessions of their workspace', async () => {
    const other = await createWorkspace(b);
    const controller = new AbortController();
    const res = await fetch(`${a.url}/admin/api/requests/stream`, { headers: { cookie }, signal: controller.signal });
    const reader = res.body!.getReader();
    let text = '';
    const reading = (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          text += new TextDecoder().decode(value);
        }
      } catch {
        // aborted
      }
    })();
    try {
      await eventually(() => expect(text).toContain(': connected'));
      const theirs = await call(b.url, '/v2/workspace/get', {}, other.headersW);
      const mine = await b.callW('/v2/workspace/get', {});
      await eventually(() => expect(text).toContain(requestIdOf(mine)));
      const events = text
        .split('\n\n')
        .filter((chunk) => chunk.startsWith('data: '))
        .map((chunk) => JSON.parse(chunk.slice(6)) as CallSummary);
      expect(events.find((e) => e.requestId === requestIdOf(mine))).toMatchObject({ instance: b.server.app.cluster?.instanceId, path: '/v2/workspace/get' });
      // the other workspace's call reached a too (it came first), and is kept for its own sessions only
      expect(events.some((e) => e.requestId === requestIdOf(theirs))).toBe(false);
      expect((await listOn(a, cookie)).some((c) => c.requestId === requestIdOf(theirs))).toBe(false);
      const theirSession = await adminCookie(a, other.workspaceId);
      expect((await listOn(a, theirSession)).map((c) => c.requestId)).toContain(requestIdOf(theirs));
    } finally {
      controller.abort();
      await reading;
    }
  });
});
