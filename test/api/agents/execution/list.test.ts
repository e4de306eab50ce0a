import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { errorOf, eventually, startTestServer, type TestServer, answerOf } from '../../../helpers/server.ts';

interface Execution {
  id: string;
  startedAt: number;
  metadata: { documentId: string | null };
}
interface ExecutionPage {
  items: Execution[];
  nextCursor: string | null;
  hasMore: boolean;
}

let t: TestServer;
const TOTAL = 1000;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/agents/create', { agentId: 'a', name: 'A', model: 'gpt-4o', instructions: 'x' });
  await t.callK('/v2/agents/create', { agentId: 'b', name: 'B', model: 'gpt-4o', instructions: 'x' });
  // no provider key: every run ends in `error` right away; ten at a time
  for (let i = 0; i < TOTAL; i += 10) {
    await Promise.all(
      Array.from({ length: 10 }, (_, j) =>
        t.callK('/v2/agents/execution/run', {
          agentId: (i + j) % 4 === 0 ? 'b' : 'a',
          text: `text ${i + j}`,
          ...((i + j) % 5 === 0 ? { organizationId: 'acme', documentId: 'doc' } : {}),
        }),
      ),
    );
  }
  await eventually(async () => expect(answerOf<ExecutionPage>(await t.callK('/v2/agents/execution/list', { status: 'running' })).items).toEqual([]), 20_000);
}, 60_000);
afterAll(() => t.close());

async function all(filters: Record<string, unknown>, pageSize: number) {
  const items: Execution[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await t.callK('/v2/agents/execution/list', { ...filters, pageSize, ...(cursor ? { cursor } : {}) });
    expect(res.status).toBe(200);
    const page = answerOf<ExecutionPage>(res);
    expect(Object.keys(page).sort()).toEqual(['hasMore', 'items', 'nextCursor']);
    items.push(...page.items);
    if (!page.hasMore) {
      expect(page.nextCursor).toBeNull();
      return items;
    }
    cursor = page.nextCursor!;
  }
}

describe('/v2/agents/execution/list', () => {
  it('pages over 1,000 executions by cursor, each exactly once, newest first by default', async () => {
    const desc = await all({}, 37);
    expect(desc).toHaveLength(TOTAL);
    expect(new Set(desc.map((e) => e.id)).size).toBe(TOTAL);
    for (let i = 1; i < desc.length; i++) expect(desc[i - 1]!.startedAt).toBeGreaterThanOrEqual(desc[i]!.startedAt);
    const asc = await all({ orderDirection: 'asc' }, 500);
    expect(asc.map((e) => e.id)).toEqual(desc.map((e) => e.id).reverse());
    // default page size is 50
    expect(answerOf<ExecutionPage>(await t.callK('/v2/agents/execution/list', {})).items).toHaveLength(50);
  }, 30_000);

  it('filters by agent, document, organization and status', async () => {
    expect(await all({ agentId: 'b' }, 100)).toHaveLength(TOTAL / 4);
    const inDoc = await all({ organizationId: 'acme', documentId: 'doc' }, 100);
    expect(inDoc).toHaveLength(TOTAL / 5);
    expect(inDoc.every((e) => e.metadata.documentId === 'doc')).toBe(true);
    expect(await all({ status: 'error' }, 500)).toHaveLength(TOTAL);
    expect(answerOf(await t.callK('/v2/agents/execution/list', { status: 'passed' }))).toEqual({ items: [], nextCursor: null, hasMore: false });
  });

  it('refuses out-of-range page sizes, bad or stale cursors and unknown fields', async () => {
    for (const pageSize of [0, 501, 2.5]) expect(errorOf(await t.callK('/v2/agents/execution/list', { pageSize })).status).toBe('INVALID_ARGUMENT');
    expect(errorOf(await t.callK('/v2/agents/execution/list', { cursor: 'nope' }))).toEqual({ status: 'INVALID_ARGUMENT', message: 'Invalid cursor.' });
    expect(answerOf(await t.callK('/v2/agents/execution/list', { pageSize: 5, cursor: null }))).toEqual(
      answerOf(await t.callK('/v2/agents/execution/list', { pageSize: 5 })),
    );
    const cursor = answerOf<ExecutionPage>(await t.callK('/v2/agents/execution/list', { pageSize: 5 })).nextCursor;
    expect(errorOf(await t.callK('/v2/agents/execution/list', { pageSize: 5, agentId: 'a', cursor })).message).toBe('Invalid cursor.');
    expect(errorOf(await t.callK('/v2/agents/execution/list', { pageToken: 'x' }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'data has unknown field(s): pageToken.',
    });
    expect(errorOf(await t.callK('/v2/agents/execution/list', { status: 'done' })).status).toBe('INVALID_ARGUMENT');
  });

  it("lists only the key's own executions", async () => {
    const other = await createWorkspace(t);
    expect(answerOf(await t.callK('/v2/agents/execution/list', {}, other.headersK))).toEqual({ items: [], nextCursor: null, hasMore: false });
  });
});
