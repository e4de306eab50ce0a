import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../helpers/factories.ts';
import { adminCookie } from '../helpers/admin.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let cookie: string;
beforeAll(async () => {
  t = await startTestServer();
  cookie = await adminCookie(t);
});
afterAll(() => t.close());

const save = (body: unknown, session = cookie) =>
  fetch(t.url + '/admin/api/workspaces/settings', { method: 'POST', headers: { cookie: session, 'x-hearth-ui': '1' }, body: JSON.stringify(body) });

/** Signs in as a workspace by its credentials. */
async function signIn(workspaceId: string, workspaceAuthToken: string) {
  const res = await fetch(t.url + '/admin/api/session', {
    method: 'POST',
    headers: { 'x-hearth-ui': '1' },
    body: JSON.stringify({ workspaceId, workspaceAuthToken }),
  });
  return (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
}

describe('admin plans and production-key settings', () => {
  it("lets the default workspace's session change any workspace's plan, with the limit applied at once", async () => {
    const other = await createWorkspace(t);
    const list = await (await fetch(t.url + '/admin/api/workspaces', { headers: { cookie } })).json();
    expect(list.items.find((w: any) => w.workspaceId === other.workspaceId)).toMatchObject({
      plan: 'free',
      selfServeProduction: false,
      maxProductionKeys: 0,
      isDefault: false,
    });
    const refused = await t.callW('/v2/workspace/apikey/create', { ownerEmail: other.ownerEmail, type: 'production' }, other.headersW);
    expect(refused.status).not.toBe(200);
    const res = await save({ workspaceId: other.workspaceId, plan: 'paid', selfServeProduction: true, maxProductionKeys: 2 });
    expect(await res.json()).toMatchObject({ workspaceId: other.workspaceId, plan: 'paid', selfServeProduction: true, maxProductionKeys: 2 });
    expect((await t.callW('/v2/workspace/apikey/create', { ownerEmail: other.ownerEmail, type: 'production' }, other.headersW)).status).toBe(200);
  });

  it("refuses other workspaces' sessions and bad values", async () => {
    const other = await createWorkspace(t);
    const theirs = await signIn(other.workspaceId, other.workspaceAuthToken);
    expect(theirs).toMatch(/^hearth_session=/);
    expect((await fetch(t.url + '/admin/api/workspaces', { headers: { cookie: theirs } })).status).toBe(403);
    expect((await save({ workspaceId: other.workspaceId, plan: 'paid' }, theirs)).status).toBe(403);
    expect((await save({ workspaceId: other.workspaceId, plan: 'gold' })).status).toBe(400);
    expect((await save({ workspaceId: other.workspaceId, maxProductionKeys: -1 })).status).toBe(400);
    expect((await save({ workspaceId: 'nope', plan: 'paid' })).status).toBe(400);
  });
});
