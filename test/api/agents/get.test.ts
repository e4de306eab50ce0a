import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { errorOf, startTestServer, type TestServer, answerOf } from '../../helpers/server.ts';

interface Agent {
  agentId: string;
  name: string;
  description: string | null;
  version: number;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('/v2/agents/get', () => {
  it("returns the agent; NOT_FOUND for an unknown or another key's agent", async () => {
    const created = answerOf<Agent>(await t.callK('/v2/agents/create', { name: 'Tone', model: 'gpt-4o', instructions: 'Be kind.' }));
    expect(answerOf(await t.callK('/v2/agents/get', { agentId: created.agentId }))).toEqual(created);
    expect(errorOf(await t.callK('/v2/agents/get', { agentId: 'nope' }))).toEqual({ status: 'NOT_FOUND', message: 'Agent not found: nope.' });
    const other = await createWorkspace(t);
    expect(errorOf(await t.callK('/v2/agents/get', { agentId: created.agentId }, other.headersK)).status).toBe('NOT_FOUND');
    expect(errorOf(await t.callK('/v2/agents/get', {}))).toEqual({ status: 'INVALID_ARGUMENT', message: 'agentId is required.' });
  });
});
