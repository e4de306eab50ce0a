import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { eventually, startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/agents/create', { agentId: 'tone', name: 'Tone', model: 'gpt-4o', instructions: 'Be kind.' });
});
afterAll(() => t.close());

describe('/v2/agents/delete', () => {
  it('deletes the agent and keeps its executions', async () => {
    // no provider key: the run ends in `error` at once, which is all this test needs
    const run = (await t.callK('/v2/agents/execution/run', { agentId: 'tone', text: 'hello' })).body.result;
    await eventually(async () => expect((await t.callK('/v2/agents/execution/get', { executionId: run.id })).body.result.status).toBe('error'));
    const other = await createWorkspace(t);
    expect((await t.callK('/v2/agents/delete', { agentId: 'tone' }, other.headersK)).body.error.status).toBe('NOT_FOUND');
    expect((await t.callK('/v2/agents/delete', { agentId: 'tone' })).body.result).toEqual({ deleted: true, agentId: 'tone' });
    expect((await t.callK('/v2/agents/get', { agentId: 'tone' })).body.error.status).toBe('NOT_FOUND');
    expect((await t.callK('/v2/agents/delete', { agentId: 'tone' })).body.error.status).toBe('NOT_FOUND');
    expect((await t.callK('/v2/agents/execution/get', { executionId: run.id })).body.result).toMatchObject({
      agentId: 'tone',
      agentName: 'Tone',
      agentVersion: 1,
    });
  });
});
