import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { errorOf, startTestServer, type TestServer, answerOf } from '../../helpers/server.ts';

interface AgentPage {
  items: Array<{ agentId: string }>;
  nextCursor: string | null;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  for (let i = 0; i < 7; i++) await t.callK('/v2/agents/create', { agentId: `agent-${i}`, name: `Agent ${i}`, model: 'gpt-4o', instructions: 'x' });
});
afterAll(() => t.close());

describe('/v2/agents/list', () => {
  it('pages through the agents, oldest first, each once', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await t.callK('/v2/agents/list', { pageSize: 3, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      seen.push(...answerOf<AgentPage>(res).items.map((a) => a.agentId));
      cursor = answerOf<AgentPage>(res).nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(['agent-0', 'agent-1', 'agent-2', 'agent-3', 'agent-4', 'agent-5', 'agent-6']);
  });

  it("lists only the key's own agents and refuses a bad cursor", async () => {
    const other = await createWorkspace(t);
    expect(answerOf(await t.callK('/v2/agents/list', {}, other.headersK))).toEqual({ items: [], nextCursor: null });
    expect(errorOf(await t.callK('/v2/agents/list', { cursor: 'garbage' }))).toEqual({ status: 'INVALID_ARGUMENT', message: 'Invalid cursor.' });
    // the null nextCursor of a last page, sent back, reads the first page (as pageToken: null does)
    expect(answerOf(await t.callK('/v2/agents/list', { cursor: null }))).toEqual(answerOf(await t.callK('/v2/agents/list', {})));
    expect(errorOf(await t.callK('/v2/agents/list', { pageSize: 0 })).status).toBe('INVALID_ARGUMENT');
  });
});
