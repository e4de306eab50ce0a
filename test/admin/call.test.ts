import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../helpers/factories.ts';
import { adminCookie } from '../helpers/admin.ts';
import { answerOf, startTestServer, type TestServer } from '../helpers/server.ts';

/** agents/get's answer: the agent itself under `result`, as far as the test reads it. */
interface AgentAnswer {
  name: string;
}

let t: TestServer;
let cookie: string;
beforeAll(async () => {
  t = await startTestServer();
  cookie = await adminCookie(t);
});
afterAll(() => t.close());

const adminCall = (body: unknown, headers: Record<string, string> = { 'x-hearth-ui': '1' }) =>
  fetch(t.url + '/admin/api/call', { method: 'POST', headers: { cookie, ...headers }, body: JSON.stringify(body) });

describe('/admin/api/call (the API explorer)', () => {
  it("lists the workspace's API keys and calls operations with their credentials, added by the server", async () => {
    const keys = await (await fetch(t.url + '/admin/api/keys', { headers: { cookie } })).json();
    expect(keys.items.map((k: any) => k.apiKey)).toEqual([t.credentials.apiKey]);
    const created = await (
      await adminCall({ path: '/v2/agents/create', apiKey: t.credentials.apiKey, data: { agentId: 'via-ui', name: 'UI', model: 'gpt-4o', instructions: 'x' } })
    ).json();
    expect(created).toMatchObject({ status: 200, body: { result: { agentId: 'via-ui' } } });
    expect(answerOf<AgentAnswer>(await t.callK('/v2/agents/get', { agentId: 'via-ui' })).name).toBe('UI');
    // a workspace-level operation gets the workspace's own credentials
    const workspace = await (await adminCall({ path: '/v2/workspace/get', data: {} })).json();
    expect(workspace).toMatchObject({ status: 200, body: { result: { status: 'success' } } });
    // errors come back as the operation's own envelope
    const invalid = await (await adminCall({ path: '/v2/agents/get', apiKey: t.credentials.apiKey, data: {} })).json();
    expect(invalid).toMatchObject({ status: 400, body: { error: { status: 'INVALID_ARGUMENT', message: 'agentId is required.' } } });
  });

  it("refuses another workspace's key, unknown operations, calls without a session or the UI header", async () => {
    const other = await createWorkspace(t);
    const res = await adminCall({ path: '/v2/agents/list', apiKey: other.apiKey, data: {} });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toBe("Choose one of this workspace's API keys.");
    expect((await adminCall({ path: '/v2/nope', data: {} })).status).toBe(404);
    expect((await adminCall({ path: '/v2/ping' }, {})).status).toBe(403);
    expect((await fetch(t.url + '/admin/api/call', { method: 'POST', headers: { 'x-hearth-ui': '1' }, body: '{"path":"/v2/ping"}' })).status).toBe(401);
  });
});
