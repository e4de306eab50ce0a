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
  await t.callK('/v2/agents/create', { agentId: 'tone', name: 'Tone', model: 'gpt-4o', instructions: 'Be kind.', description: 'first' });
});
afterAll(() => t.close());

describe('/v2/agents/update', () => {
  it('changes the given fields and bumps the version', async () => {
    const res = await t.callK('/v2/agents/update', { agentId: 'tone', instructions: 'Be very kind.', description: null });
    expect(answerOf(res)).toMatchObject({ agentId: 'tone', name: 'Tone', model: 'gpt-4o', instructions: 'Be very kind.', description: null, version: 2 });
    expect(answerOf<Agent>(await t.callK('/v2/agents/get', { agentId: 'tone' })).version).toBe(2);
  });

  it('needs a change, a known agent, and stays within the key', async () => {
    expect(errorOf(await t.callK('/v2/agents/update', { agentId: 'tone' }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'At least one of name, description, model or instructions must be provided.',
    });
    expect(errorOf(await t.callK('/v2/agents/update', { agentId: 'nope', name: 'x' })).status).toBe('NOT_FOUND');
    const other = await createWorkspace(t);
    expect(errorOf(await t.callK('/v2/agents/update', { agentId: 'tone', name: 'hijack' }, other.headersK)).status).toBe('NOT_FOUND');
    expect(answerOf<Agent>(await t.callK('/v2/agents/get', { agentId: 'tone' })).name).toBe('Tone');
  });
});
