import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

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
      seen.push(...res.body.result.items.map((a: any) => a.agentId));
      cursor = res.body.result.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(['agent-0', 'agent-1', 'agent-2', 'agent-3', 'agent-4', 'agent-5', 'agent-6']);
  });

  it("lists only the key's own agents and refuses a bad cursor", async () => {
    const other = await createWorkspace(t);
    expect((await t.callK('/v2/agents/list', {}, other.headersK)).body.result).toEqual({ items: [], nextCursor: null });
    expect((await t.callK('/v2/agents/list', { cursor: 'garbage' })).body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'Invalid cursor.' });
    // the null nextCursor of a last page, sent back, reads the first page (as pageToken: null does)
    expect((await t.callK('/v2/agents/list', { cursor: null })).body.result).toEqual((await t.callK('/v2/agents/list', {})).body.result);
    expect((await t.callK('/v2/agents/list', { pageSize: 0 })).body.error.status).toBe('INVALID_ARGUMENT');
  });
});
