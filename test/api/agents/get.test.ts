import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('/v2/agents/get', () => {
  it("returns the agent; NOT_FOUND for an unknown or another key's agent", async () => {
    const created = (await t.callK('/v2/agents/create', { name: 'Tone', model: 'gpt-4o', instructions: 'Be kind.' })).body.result;
    expect((await t.callK('/v2/agents/get', { agentId: created.agentId })).body.result).toEqual(created);
    expect((await t.callK('/v2/agents/get', { agentId: 'nope' })).body.error).toEqual({ status: 'NOT_FOUND', message: 'Agent not found: nope.' });
    const other = await createWorkspace(t);
    expect((await t.callK('/v2/agents/get', { agentId: created.agentId }, other.headersK)).body.error.status).toBe('NOT_FOUND');
    expect((await t.callK('/v2/agents/get', {})).body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'agentId is required.' });
  });
});
