import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { errorOf, startTestServer, type TestServer, answerOf } from '../../../helpers/server.ts';
import { REVIEW_FLOW } from '../../../helpers/workflows.ts';

interface DefinitionPage {
  items: Array<{ definitionId: string }>;
  nextCursor: string | null;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  for (let i = 0; i < 12; i++) await t.callK('/v2/workflow/definitions/create', { definitionId: `flow-${String(i).padStart(2, '0')}`, ...REVIEW_FLOW });
  await t.callK('/v2/workflow/definitions/delete', { definitionId: 'flow-05' });
});
afterAll(() => t.close());

describe('/v2/workflow/definitions/list', () => {
  it('pages through the active definitions by id, each once', async () => {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await t.callK('/v2/workflow/definitions/list', { pageSize: 5, ...(cursor ? { cursor } : {}) });
      expect(Object.keys(answerOf<DefinitionPage>(res)).sort()).toEqual(['items', 'nextCursor']);
      ids.push(...answerOf<DefinitionPage>(res).items.map((d) => d.definitionId));
      cursor = answerOf<DefinitionPage>(res).nextCursor ?? undefined;
    } while (cursor);
    expect(ids).toEqual(Array.from({ length: 12 }, (_, i) => `flow-${String(i).padStart(2, '0')}`).filter((id) => id !== 'flow-05'));
  });

  it('keeps API keys apart and refuses bad paging', async () => {
    const other = await createWorkspace(t);
    expect(answerOf(await t.callK('/v2/workflow/definitions/list', {}, other.headersK))).toEqual({ items: [], nextCursor: null });
    expect(errorOf(await t.callK('/v2/workflow/definitions/list', { pageSize: 501 })).status).toBe('INVALID_ARGUMENT');
    expect(errorOf(await t.callK('/v2/workflow/definitions/list', { cursor: 'x' }))).toEqual({ status: 'INVALID_ARGUMENT', message: 'Invalid cursor.' });
    expect(answerOf(await t.callK('/v2/workflow/definitions/list', { cursor: null }))).toEqual(answerOf(await t.callK('/v2/workflow/definitions/list', {})));
  });
});
