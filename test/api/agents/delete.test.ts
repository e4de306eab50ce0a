import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { errorOf, eventually, startTestServer, type TestServer, answerOf } from '../../helpers/server.ts';

interface Execution {
  id: string;
  status: string;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/agents/create', { agentId: 'tone', name: 'Tone', model: 'gpt-4o', instructions: 'Be kind.' });
});
afterAll(() => t.close());

describe('/v2/agents/delete', () => {
  it('deletes the agent and keeps its executions', async () => {
    // no provider key: the run ends in `error` at once, which is all this test needs
    const run = answerOf<Execution>(await t.callK('/v2/agents/execution/run', { agentId: 'tone', text: 'hello' }));
    await eventually(async () => expect(answerOf<Execution>(await t.callK('/v2/agents/execution/get', { executionId: run.id })).status).toBe('error'));
    const other = await createWorkspace(t);
    expect(errorOf(await t.callK('/v2/agents/delete', { agentId: 'tone' }, other.headersK)).status).toBe('NOT_FOUND');
    expect(answerOf(await t.callK('/v2/agents/delete', { agentId: 'tone' }))).toEqual({ deleted: true, agentId: 'tone' });
    expect(errorOf(await t.callK('/v2/agents/get', { agentId: 'tone' })).status).toBe('NOT_FOUND');
    expect(errorOf(await t.callK('/v2/agents/delete', { agentId: 'tone' })).status).toBe('NOT_FOUND');
    expect(answerOf(await t.callK('/v2/agents/execution/get', { executionId: run.id }))).toMatchObject({
      agentId: 'tone',
      agentName: 'Tone',
      agentVersion: 1,
    });
  });
});
