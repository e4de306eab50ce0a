import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation } from '../../../helpers/comments.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { reviewThread } from '../../../helpers/judgments.ts';
import { errorOf, startTestServer, type TestServer, answerOf } from '../../../helpers/server.ts';

interface Judgment {
  decision: string;
  reviewer: { userId: string };
  source: { type: string };
}
interface JudgmentPage {
  items: Judgment[];
  nextCursor: string | null;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await reviewThread(t, 'launch', 'ann', 'Cut the speed claim.', { bob: '👍', carol: '🎉' });
  const { annotationId } = await addAnnotation(t, { commentData: [{ commentText: 'Tighten the intro.', from: { userId: 'ann' } }] }, { documentId: 'launch' });
  await t.callK('/v2/commentannotations/update', {
    organizationId: 'acme',
    annotationIds: [annotationId],
    actionUser: { userId: 'dave' },
    updatedData: { status: { id: 'resolved', name: 'Resolved' } },
  });
});
afterAll(() => t.close());

const query = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK('/v2/memory/judgments/query', data, headers);

describe('/v2/memory/judgments/query', () => {
  it('lists the judgments recorded from comments, reactions with a decision and status changes, newest first', async () => {
    const res = await query({});
    expect(res.status).toBe(200);
    const items = answerOf<JudgmentPage>(res).items;
    // the 🎉 reaction is not a decision and records nothing
    expect(items.map((j) => [j.decision, j.reviewer.userId, j.source.type])).toEqual([
      ['resolve', 'dave', 'annotation_status'],
      ['comment', 'ann', 'comment'],
      ['agree', 'bob', 'reaction'],
      ['comment', 'ann', 'comment'],
    ]);
    expect(items[2]).toMatchObject({
      judgmentId: expect.stringMatching(/^jdg_/),
      subject: 'Cut the speed claim.',
      reasoning: 'Cut the speed claim.',
      scope: { organizationId: 'acme', documentId: 'launch' },
      createdAt: expect.any(Number),
    });
    expect(items[0]).toMatchObject({ subject: 'Tighten the intro.', reasoning: 'Tighten the intro.' });
    expect(answerOf<JudgmentPage>(res).nextCursor).toBeNull();
  });

  it('filters by decision, reviewer, scope and full-text query, and pages', async () => {
    expect(answerOf<JudgmentPage>(await query({ decision: 'agree' })).items.map((j) => j.reviewer.userId)).toEqual(['bob']);
    expect(answerOf<JudgmentPage>(await query({ reviewerId: 'ann' })).items).toHaveLength(2);
    expect(answerOf<JudgmentPage>(await query({ query: 'intro' })).items.map((j) => j.decision)).toEqual(['resolve', 'comment']);
    expect(answerOf<JudgmentPage>(await query({ organizationId: 'acme', documentId: 'elsewhere' })).items).toEqual([]);
    const first = answerOf<JudgmentPage>(await query({ pageSize: 3 }));
    expect(first.items).toHaveLength(3);
    const second = answerOf<JudgmentPage>(await query({ pageSize: 3, cursor: first.nextCursor }));
    expect(second).toMatchObject({ items: [expect.objectContaining({ decision: 'comment' })], nextCursor: null });
    expect(errorOf(await query({ pageSize: 3, decision: 'agree', cursor: first.nextCursor }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'Invalid cursor.',
    });
    expect(answerOf(await query({ pageSize: 3, cursor: null }))).toEqual(first);
  });

  it('keeps API keys apart and validates filters', async () => {
    const other = await createWorkspace(t);
    expect(answerOf(await query({}, other.headersK))).toEqual({ items: [], nextCursor: null });
    expect(errorOf(await query({ decision: 'maybe' })).status).toBe('INVALID_ARGUMENT');
    expect(errorOf(await query({ documentId: 'launch' })).message).toBe('organizationId is required when documentId is given.');
  });
});
