import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { configureProviders, startProviders, userText, type Providers } from '../../../helpers/ai-providers.ts';
import { dataOf, errorOf, eventually, startTestServer, type TestServer, answerOf } from '../../../helpers/server.ts';

interface Execution {
  id: string;
  status: string;
  startedAt: number;
  completedAt: number;
  durationMs: number;
  resultsSummary: { totalAnnotationsCreated: number };
  findings: Array<{ annotationId: string | null; comment: string; severity: string }>;
}
interface Annotation {
  annotationId: string;
  comments: Array<{ from: unknown; commentText: string }>;
  context: unknown;
}

let t: TestServer;
let providers: Providers;
let mode: 'review' | 'prose' | 'hang' | 'late' = 'review';
/** In 'late' mode the model answers only once this is resolved. */
let release: () => void = () => {};

const REVIEW = {
  decision: 'fail',
  summary: 'Two claims need a source.',
  findings: [
    { quote: 'the fastest database ever', comment: 'Superlative without a benchmark: cite one or soften it.', severity: 'high' },
    { quote: null, comment: 'No conclusion paragraph.', severity: 'low' },
  ],
};

beforeAll(async () => {
  const review = () => ({ text: '```json\n' + JSON.stringify(REVIEW) + '\n```', usage: { prompt: 120, completion: 40 } });
  providers = await startProviders(async () => {
    if (mode === 'hang') return 'hang';
    if (mode === 'late') {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return review();
    }
    if (mode === 'prose') return { text: 'I think it is fine.' };
    return review();
  });
  t = await startTestServer();
  await configureProviders(t, providers);
  await t.callK('/v2/agents/create', { agentId: 'claims', name: 'Claims checker', model: 'gpt-4o', instructions: 'Flag unsupported claims.' });
  await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'launch', editorId: 'body', type: 'text', data: 'Hearth is the fastest database ever.' });
  await t.callK('/v2/crdt/add', {
    organizationId: 'acme',
    documentId: 'launch',
    editorId: 'title',
    type: 'xml',
    contentKey: 'default',
    data: '<paragraph>Launch post</paragraph>',
  });
});
afterAll(async () => {
  await t.close();
  await providers.close();
});

const finished = (id: string) =>
  eventually(async () => {
    const res = answerOf<Execution>(await t.callK('/v2/agents/execution/get', { executionId: id }));
    expect(res.status).not.toBe('running');
    return res;
  });

describe('/v2/agents/execution/run', () => {
  it("runs the agent over a document's editor content and writes its findings as comment annotations", async () => {
    mode = 'review';
    const started = await t.callK('/v2/agents/execution/run', { agentId: 'claims', organizationId: 'acme', documentId: 'launch', userId: 'ann' });
    expect(started.status).toBe(200);
    expect(answerOf(started)).toMatchObject({
      id: expect.stringMatching(/^exec_\d+_[0-9a-f]{16}$/),
      status: 'running',
      agentName: 'Claims checker',
      agentVersion: 1,
      completedAt: null,
      durationMs: null,
      trigger: 'standalone',
      ranBy: { userId: 'ann' },
    });
    const done = await finished(answerOf<Execution>(started).id);
    expect(done).toMatchObject({
      status: 'failed',
      message: 'Two claims need a source.',
      llmModel: 'gpt-4o',
      tokenUsage: { promptTokens: 120, completionTokens: 40, totalTokens: 160 },
      resultsSummary: { totalFindings: 2, totalAnnotationsCreated: 2, severityCounts: { high: 1, medium: 0, low: 1 } },
      metadata: { organizationId: 'acme', documentId: 'launch', editorId: null },
    });
    expect(done.completedAt).toBeGreaterThanOrEqual(done.startedAt);
    expect(done.durationMs).toBe(done.completedAt - done.startedAt);
    // the model got the agent's instructions as the system prompt and both editors' text
    const request = providers.received.at(-1)!;
    expect(request.body.messages![0]!.content).toMatch(/^Flag unsupported claims\.\n\nReview the text/);
    expect(userText(request)).toBe('Hearth is the fastest database ever.\n\nLaunch post');
    // findings are annotations by the agent, on the document
    const annotations = dataOf<Annotation[]>(await t.callK('/v2/commentannotations/get', { organizationId: 'acme', documentId: 'launch' }));
    expect(annotations).toHaveLength(2);
    const byId = new Map(annotations.map((a) => [a.annotationId, a] as const));
    for (const finding of done.findings) {
      const annotation = byId.get(finding.annotationId!)!;
      expect(annotation.comments[0]!.from).toMatchObject({ userId: 'agent:claims', name: 'Claims checker' });
      expect(annotation.comments[0]!.commentText).toContain(finding.comment);
      expect(annotation.context).toMatchObject({ agentExecutionId: done.id, severity: finding.severity });
    }
    // and the agent's decision is a judgment
    const judgments = answerOf<{ items: unknown[] }>(await t.callK('/v2/memory/judgments/query', { reviewerId: 'agent:claims' })).items;
    expect(judgments[0]).toMatchObject({
      decision: 'rejected',
      source: { type: 'agent', id: done.id },
      scope: { organizationId: 'acme', documentId: 'launch' },
    });
  });

  it('reviews a given text without touching any document', async () => {
    const started = answerOf<Execution>(await t.callK('/v2/agents/execution/run', { agentId: 'claims', text: 'A plain sentence.' }));
    const done = await finished(started.id);
    expect(done.status).toBe('failed');
    expect(done.resultsSummary.totalAnnotationsCreated).toBe(0);
    expect(done.findings.every((f) => f.annotationId === null)).toBe(true);
    expect(userText(providers.received.at(-1)!)).toBe('A plain sentence.');
  });

  it('ends in error when the model answers prose, and skipped when the document has no content', async () => {
    mode = 'prose';
    const prose = await finished(answerOf<Execution>(await t.callK('/v2/agents/execution/run', { agentId: 'claims', text: 'x' })).id);
    expect(prose).toMatchObject({ status: 'error', message: 'The model did not answer with the expected JSON: I think it is fine.' });
    const skipped = answerOf(await t.callK('/v2/agents/execution/run', { agentId: 'claims', organizationId: 'acme', documentId: 'empty-doc' }));
    expect(skipped).toMatchObject({ status: 'skipped', message: 'The document has no editor content to review.', durationMs: 0 });
  });

  it('marks an execution a crash left running as error at restart', async () => {
    mode = 'hang';
    const started = answerOf<Execution>(await t.callK('/v2/agents/execution/run', { agentId: 'claims', text: 'x' }));
    await eventually(() => expect(providers.received.length).toBeGreaterThan(0));
    await t.restart();
    const after = answerOf<Execution>(await t.callK('/v2/agents/execution/get', { executionId: started.id }));
    expect(after).toMatchObject({ status: 'error', message: 'The server stopped while this execution was running.' });
    expect(after.durationMs).toBeGreaterThanOrEqual(0);
    mode = 'review';
  });

  it('drops the outcome of an execution ended as abandoned while the model was awaited (the fence on completion)', async () => {
    mode = 'late';
    const before = answerOf<{ items: unknown[] }>(await t.callK('/v2/memory/judgments/query', { reviewerId: 'agent:claims' })).items.length;
    const annotations = async () => dataOf<Annotation[]>(await t.callK('/v2/commentannotations/get', { organizationId: 'acme', documentId: 'launch' })).length;
    const annotated = await annotations();
    const warn = vi.spyOn(t.server.app.log, 'warn');
    const requests = providers.received.length;
    const started = answerOf<Execution>(await t.callK('/v2/agents/execution/run', { agentId: 'claims', organizationId: 'acme', documentId: 'launch' }));
    await eventually(() => expect(providers.received.length).toBe(requests + 1));
    // what a look for expired leases does to it, as if its runner had stalled past its lease
    await t.server.app.storage.agents.endAbandoned('The server stopped while this execution was running.', Date.now(), Number.MAX_SAFE_INTEGER);
    release();
    // the runner's answer comes back and is dropped: neither the outcome, the findings nor the judgment is kept
    await eventually(() => expect(warn).toHaveBeenCalledWith('agent execution outcome dropped', expect.objectContaining({ executionId: started.id })));
    warn.mockRestore();
    expect(answerOf<Execution>(await t.callK('/v2/agents/execution/get', { executionId: started.id }))).toMatchObject({
      status: 'error',
      message: 'The server stopped while this execution was running.',
    });
    expect(answerOf<{ items: unknown[] }>(await t.callK('/v2/memory/judgments/query', { reviewerId: 'agent:claims' })).items).toHaveLength(before);
    expect(await annotations()).toBe(annotated);
    mode = 'review';
  });

  it('validates its input', async () => {
    expect(errorOf(await t.callK('/v2/agents/execution/run', { agentId: 'claims' }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'text is required when documentId is not given.',
    });
    expect(errorOf(await t.callK('/v2/agents/execution/run', { agentId: 'claims', documentId: 'launch' }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'organizationId is required with documentId.',
    });
    expect(errorOf(await t.callK('/v2/agents/execution/run', { agentId: 'nope', text: 'x' }))).toEqual({
      status: 'NOT_FOUND',
      message: 'Agent not found: nope.',
    });
  });
});
