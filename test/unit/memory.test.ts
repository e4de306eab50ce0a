import { describe, expect, it } from 'vitest';
import { FRESH_MS, ftsQuery, reactionDecision, STALE_MS, statusDecision, suggestFrom } from '../../server/services/memory.ts';

const NOW = 1_800_000_000_000;
let seq = 0;
const j = (decision: string, reviewerId: string, ageMs: number, reasoning: string | null = null, rank = 1) =>
  ({
    seq: ++seq,
    id: `j${seq}`,
    apiKeyId: 'k',
    organizationId: 'o',
    documentId: 'd',
    decision,
    reviewerId,
    reviewerName: null,
    subject: 's',
    reasoning,
    source: 'reaction',
    sourceId: 'x',
    createdAt: NOW - ageMs,
    rank,
  }) as any;

const WEEK = 7 * 24 * 3600 * 1000;

describe('suggestFrom (reference.md 3.14 counting rules)', () => {
  it('counts only approve-side and reject-side decisions', () => {
    const r = suggestFrom(
      [j('approved', 'a', WEEK), j('endorse', 'b', WEEK), j('comment', 'c', WEEK), j('resolve', 'd', WEEK), j('in_progress', 'e', WEEK)],
      'apiKey',
      NOW,
    );
    expect(r.primary).toMatchObject({ recommendation: 'approve', basedOn: 2, confidence: 1, uniqueReviewers: 2, caveats: [] });
    expect(r.conflict).toBeNull();
  });

  it('gives no primary below two supporting records', () => {
    expect(suggestFrom([j('rejected', 'a', WEEK), j('comment', 'b', WEEK)], 'apiKey', NOW)).toEqual({ primary: null, conflict: null });
    expect(suggestFrom([], 'document', NOW)).toEqual({ primary: null, conflict: null });
  });

  it('counts records, not reviewers, and reports unique reviewers', () => {
    const r = suggestFrom([j('disagree', 'a', WEEK), j('document_rejected', 'a', WEEK), j('agree', 'b', WEEK)], 'organization', NOW);
    expect(r.primary).toMatchObject({ recommendation: 'reject', basedOn: 2, uniqueReviewers: 1, confidence: 0.67, scopeLabel: 'This organization' });
  });

  it('breaks a tie by total relevance, then by the newer judgment', () => {
    const byRank = suggestFrom(
      [j('agree', 'a', WEEK, null, 1), j('agree', 'b', WEEK, null, 1), j('disagree', 'c', WEEK, null, 5), j('disagree', 'd', WEEK, null, 5)],
      'apiKey',
      NOW,
    );
    expect(byRank.primary?.recommendation).toBe('reject');
    expect(byRank.conflict?.recommendation).toBe('approve');
    const byTime = suggestFrom([j('agree', 'a', WEEK), j('agree', 'b', WEEK), j('disagree', 'c', 2 * WEEK), j('disagree', 'd', 2 * WEEK)], 'apiKey', NOW);
    expect(byTime.primary?.recommendation).toBe('approve');
  });

  it('warns of a stale pattern past 70% older than six months, and of fresh sources', () => {
    const old = STALE_MS + WEEK;
    const stale = suggestFrom([j('approved', 'a', old), j('approved', 'b', old), j('approved', 'c', old), j('approved', 'd', WEEK)], 'apiKey', NOW);
    expect(stale.primary?.caveats).toEqual(['Stale pattern: 75% of the supporting judgments are older than 6 months.']);
    const notYet = suggestFrom([j('approved', 'a', old), j('approved', 'b', old), j('approved', 'c', WEEK), j('approved', 'd', WEEK)], 'apiKey', NOW);
    expect(notYet.primary?.caveats).toEqual([]);
    const fresh = suggestFrom([j('approved', 'a', FRESH_MS / 2), j('approved', 'b', WEEK)], 'apiKey', NOW);
    expect(fresh.primary?.caveats).toEqual([
      'A knowledge source was updated in the last 48 hours: 1 of the 2 supporting judgments is that recent, so the pattern may still be changing.',
    ]);
  });

  it('lists up to three distinct reasons, most relevant first', () => {
    const r = suggestFrom(
      [
        j('agree', 'a', WEEK, 'Too long', 3),
        j('agree', 'b', WEEK, 'too  long', 2),
        j('agree', 'c', WEEK, 'Unclear', 1),
        j('agree', 'd', WEEK, null, 1),
        j('agree', 'e', WEEK, 'Off brand', 0.5),
        j('agree', 'f', WEEK, 'Typos', 0.1),
      ],
      'apiKey',
      NOW,
    );
    expect(r.primary?.topReasons).toEqual(['Too long', 'Unclear', 'Off brand']);
  });
});

describe('full-text query and decision mapping', () => {
  it('quotes every meaningful word, so FTS syntax in a query is only text', () => {
    expect(ftsQuery('Should we keep the "speed" claim?')).toBe('"keep" OR "speed" OR "claim"');
    expect(ftsQuery('NEAR(a b) OR * -')).toBe('"near"');
    expect(ftsQuery('the a of ?')).toBeNull();
  });

  it('maps reaction icons and statuses to decisions', () => {
    expect([reactionDecision('👍'), reactionDecision(':thumbsup:'), reactionDecision('👎🏽'), reactionDecision('✅'), reactionDecision('🎉')]).toEqual([
      'agree',
      'agree',
      'disagree',
      'endorse',
      null,
    ]);
    expect([statusDecision('Resolved'), statusDecision('approved'), statusDecision('rejected'), statusDecision('in-progress'), statusDecision('open')]).toEqual(
      ['resolve', 'approved', 'rejected', 'in_progress', null],
    );
  });
});
