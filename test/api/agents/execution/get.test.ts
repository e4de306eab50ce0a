import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { errorOf, eventually, startTestServer, type TestServer, answerOf } from '../../../helpers/server.ts';

interface Execution {
  id: string;
  status: string;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/agents/create', { agentId: 'tone', name: 'Tone', model: 'claude-3-haiku', instructions: 'x' });
});
afterAll(() => t.close());

describe('/v2/agents/execution/get', () => {
  it('returns the execution with the provider failure as its message; NOT_FOUND across keys', async () => {
    const id = answerOf<Execution>(await t.callK('/v2/agents/execution/run', { agentId: 'tone', text: 'hello' })).id;
    const done = await eventually(async () => {
      const res = answerOf<Execution>(await t.callK('/v2/agents/execution/get', { executionId: id }));
      expect(res.status).toBe('error');
      return res;
    });
    expect(done).toMatchObject({ id, agentId: 'tone', message: 'No API key configured for provider: Anthropic', tokenUsage: null, findings: [] });
    const other = await createWorkspace(t);
    expect(errorOf(await t.callK('/v2/agents/execution/get', { executionId: id }, other.headersK))).toEqual({
      status: 'NOT_FOUND',
      message: `Execution not found: ${id}.`,
    });
    expect(errorOf(await t.callK('/v2/agents/execution/get', {})).status).toBe('INVALID_ARGUMENT');
  });
});
