import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/agents/create', { agentId: 'tone', name: 'Tone', model: 'gpt-4o', instructions: 'Be kind.', description: 'first' });
});
afterAll(() => t.close());

describe('/v2/agents/update', () => {
  it('changes the given fields and bumps the version', async () => {
    const res = await t.callK('/v2/agents/update', { agentId: 'tone', instructions: 'Be very kind.', description: null });
    expect(res.body.result).toMatchObject({ agentId: 'tone', name: 'Tone', model: 'gpt-4o', instructions: 'Be very kind.', description: null, version: 2 });
    expect((await t.callK('/v2/agents/get', { agentId: 'tone' })).body.result.version).toBe(2);
  });

  it('needs a change, a known agent, and stays within the key', async () => {
    expect((await t.callK('/v2/agents/update', { agentId: 'tone' })).body.error).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'At least one of name, description, model or instructions must be provided.',
    });
    expect((await t.callK('/v2/agents/update', { agentId: 'nope', name: 'x' })).body.error.status).toBe('NOT_FOUND');
    const other = await createWorkspace(t);
    expect((await t.callK('/v2/agents/update', { agentId: 'tone', name: 'hijack' }, other.headersK)).body.error.status).toBe('NOT_FOUND');
    expect((await t.callK('/v2/agents/get', { agentId: 'tone' })).body.result.name).toBe('Tone');
  });
});
