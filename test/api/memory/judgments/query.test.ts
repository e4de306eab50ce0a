import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation } from '../../../helpers/comments.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { reviewThread } from '../../../helpers/judgments.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

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
    const items = res.body.result.items;
    // the 🎉 reaction is not a decision and records nothing
    expect(items.map((j: any) => [j.decision, j.reviewer.userId, j.source.type])).toEqual([
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
    expect(res.body.result.nextCursor).toBeNull();
  });

  it('filters by decision, reviewer, scope and full-text query, and pages', async () => {
    expect((await query({ decision: 'agree' })).body.result.items.map((j: any) => j.reviewer.userId)).toEqual(['bob']);
    expect((await query({ reviewerId: 'ann' })).body.result.items).toHaveLength(2);
    expect((await query({ query: 'intro' })).body.result.items.map((j: any) => j.decision)).toEqual(['resolve', 'comment']);
    expect((await query({ organizationId: 'acme', documentId: 'elsewhere' })).body.result.items).toEqual([]);
    const first = (await query({ pageSize: 3 })).body.result;
    expect(first.items).toHaveLength(3);
    const second = (await query({ pageSize: 3, cursor: first.nextCursor })).body.result;
    expect(second).toMatchObject({ items: [expect.objectContaining({ decision: 'comment' })], nextCursor: null });
    expect((await query({ pageSize: 3, decision: 'agree', cursor: first.nextCursor })).body.error).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'Invalid cursor.',
    });
    expect((await query({ pageSize: 3, cursor: null })).body.result).toEqual(first);
  });

  it('keeps API keys apart and validates filters', async () => {
    const other = await createWorkspace(t);
    expect((await query({}, other.headersK)).body.result).toEqual({ items: [], nextCursor: null });
    expect((await query({ decision: 'maybe' })).body.error.status).toBe('INVALID_ARGUMENT');
    expect((await query({ documentId: 'launch' })).body.error.message).toBe('organizationId is required when documentId is given.');
  });
});
