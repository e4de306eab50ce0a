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

describe('/v2/agents/create', () => {
  it('creates an agent at version 1 with a generated or given id', async () => {
    const res = await t.callK('/v2/agents/create', { name: 'Tone checker', model: 'gpt-4o-mini', instructions: 'Flag informal language.' });
    expect(res.status).toBe(200);
    expect(answerOf(res)).toEqual({
      agentId: expect.stringMatching(/^agent_[0-9a-f]{16}$/),
      name: 'Tone checker',
      description: null,
      version: 1,
      model: 'gpt-4o-mini',
      instructions: 'Flag informal language.',
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    const named = await t.callK('/v2/agents/create', {
      agentId: 'legal-review',
      name: 'Legal',
      model: 'claude-sonnet-4-5',
      instructions: 'Check claims.',
      description: 'Legal claims',
    });
    expect(answerOf<Agent>(named).agentId).toBe('legal-review');
    expect(answerOf<Agent>(named).description).toBe('Legal claims');
  });

  it('refuses a taken id, bad input and unknown fields', async () => {
    const again = await t.callK('/v2/agents/create', { agentId: 'legal-review', name: 'Legal', model: 'gpt-4o', instructions: 'x' });
    expect(errorOf(again)).toEqual({ status: 'ALREADY_EXISTS', message: 'Agent already exists: legal-review.' });
    expect(errorOf(await t.callK('/v2/agents/create', { name: 'x', model: 'gpt-4o' }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'instructions is required.',
    });
    expect(errorOf(await t.callK('/v2/agents/create', { name: ' ', model: 'gpt-4o', instructions: 'x' })).message).toBe('name must not be empty.');
    expect(errorOf(await t.callK('/v2/agents/create', { agentId: 'A!', name: 'x', model: 'gpt-4o', instructions: 'x' })).status).toBe('INVALID_ARGUMENT');
    expect(errorOf(await t.callK('/v2/agents/create', { name: 'x', model: 'gpt-4o', instructions: 'x', colour: 'red' }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'data has unknown field(s): colour.',
    });
  });

  it('keeps API keys apart: the same id is free under another key', async () => {
    const other = await createWorkspace(t);
    const res = await t.callK('/v2/agents/create', { agentId: 'legal-review', name: 'Theirs', model: 'gpt-4o', instructions: 'x' }, other.headersK);
    expect(answerOf<Agent>(res).name).toBe('Theirs');
    expect(answerOf<Agent>(await t.callK('/v2/agents/get', { agentId: 'legal-review' })).name).toBe('Legal');
  });
});
