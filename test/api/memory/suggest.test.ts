import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation } from '../../helpers/comments.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { reviewThread } from '../../helpers/judgments.ts';
import { errorOf, startTestServer, type TestServer, answerOf } from '../../helpers/server.ts';
import type { Suggestion } from '../../../server/services/memory.ts';

/** What memory/suggest answers: the recommended side, and the other side where it has support too. */
interface Suggestions {
  primary: Suggestion | null;
  conflict: Suggestion | null;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  // launch: two agree with removing the speed claim, one disagrees
  await reviewThread(t, 'launch', 'ann', 'Remove the superlative speed claim: there is no benchmark behind it.', { bob: '👍', carol: '👍', dave: '👎' });
  // pricing: split 3 to 2 about the discount wording
  await reviewThread(t, 'pricing', 'erin', 'The discount wording in the pricing table is confusing; say 20% off yearly plans.', {
    u1: '👍',
    u2: '👍',
    u3: '👍',
    u4: '👎',
    u5: '👎',
  });
  // two event-name proposals rejected through the comment status
  for (const [i, reviewer] of ['gina', 'hal'].entries()) {
    const { annotationId } = await addAnnotation(
      t,
      { commentData: [{ commentText: `Rename the launch event to Hearthfest (proposal ${i + 1})`, from: { userId: 'ivan' } }] },
      { documentId: 'events', createDocument: true },
    );
    await t.callK('/v2/commentannotations/update', {
      organizationId: 'acme',
      annotationIds: [annotationId],
      actionUser: { userId: reviewer, name: reviewer },
      updatedData: { status: { id: 'rejected', name: 'Rejected' } },
    });
  }
});
afterAll(() => t.close());

const suggest = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK('/v2/memory/suggest', data, headers);

describe('/v2/memory/suggest', () => {
  it('recommends the side with at least two supporting judgments in the narrowest scope', async () => {
    const res = await suggest({ query: 'should we keep the speed claim without a benchmark?', organizationId: 'acme', documentId: 'launch' });
    expect(res.status).toBe(200);
    expect(answerOf(res)).toEqual({
      primary: {
        recommendation: 'approve',
        confidence: 0.67,
        basedOn: 2,
        scope: 'document',
        scopeLabel: 'This document',
        topReasons: ['Remove the superlative speed claim: there is no benchmark behind it.'],
        uniqueReviewers: 2,
        caveats: [
          'A knowledge source was updated in the last 48 hours: 2 of the 2 supporting judgments are that recent, so the pattern may still be changing.',
        ],
      },
      conflict: null,
    });
  });

  it('fills conflict when both sides have two or more, with a minority note', async () => {
    const { primary, conflict } = answerOf<Suggestions>(await suggest({ query: 'discount wording pricing', organizationId: 'acme', documentId: 'pricing' }));
    expect(primary).toMatchObject({ recommendation: 'approve', confidence: 0.6, basedOn: 3, uniqueReviewers: 3, scope: 'document' });
    expect(primary!.caveats[0]).toBe('Evidence is split: 2 relevant judgments recommend reject, against 3 for approve.');
    expect(conflict).toMatchObject({
      recommendation: 'reject',
      confidence: 0.4,
      basedOn: 2,
      uniqueReviewers: 2,
      scope: 'document',
      scopeLabel: 'This document',
    });
    expect(conflict!.caveats).toEqual(['Minority view: 2 of 5 relevant judgments recommend reject.']);
  });

  it('widens to the organization, then to all content, when a narrower scope has too little', async () => {
    const org = answerOf<Suggestions>(await suggest({ query: 'discount wording', organizationId: 'acme', documentId: 'launch' })).primary;
    expect(org).toMatchObject({ scope: 'organization', scopeLabel: 'This organization', recommendation: 'approve' });
    const all = answerOf<Suggestions>(await suggest({ query: 'rename the launch event' })).primary;
    expect(all).toMatchObject({ scope: 'apiKey', scopeLabel: 'All content', recommendation: 'reject', basedOn: 2, uniqueReviewers: 2, confidence: 1 });
    expect([...all!.topReasons].sort()).toEqual(['Rename the launch event to Hearthfest (proposal 1)', 'Rename the launch event to Hearthfest (proposal 2)']);
  });

  it('answers null when nothing matches or fewer than two records support a side', async () => {
    expect(answerOf(await suggest({ query: 'quarterly tax filing' }))).toEqual({ primary: null, conflict: null });
    expect(answerOf(await suggest({ query: '" OR * NEAR(' }))).toEqual({ primary: null, conflict: null });
    // only dave disagrees in launch: one record on the reject side makes no conflict
    const res = answerOf<Suggestions>(await suggest({ query: 'superlative speed claim', organizationId: 'acme', documentId: 'launch' }));
    expect(res.conflict).toBeNull();
  });

  it('keeps API keys apart', async () => {
    const other = await createWorkspace(t);
    expect(answerOf(await suggest({ query: 'discount wording pricing' }, other.headersK))).toEqual({ primary: null, conflict: null });
  });

  it('refuses an empty query and a documentId without organizationId', async () => {
    expect(errorOf(await suggest({ query: '  ' }))).toEqual({ status: 'INVALID_ARGUMENT', message: 'query must not be empty.' });
    expect(errorOf(await suggest({}))).toEqual({ status: 'INVALID_ARGUMENT', message: 'query is required.' });
    expect(errorOf(await suggest({ query: 'x', documentId: 'launch' }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'organizationId is required when documentId is given.',
    });
  });
});
