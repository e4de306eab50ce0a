import { createHash, randomBytes } from 'node:crypto';
import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { judgmentsQueryInput, suggestInput } from '../../shared/schemas/ai.ts';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/client.ts';
import { keysetAfter, paginate } from '../db/pagination.ts';
import { preparedFor, rowInserter } from '../db/prepared.ts';
import { comments, judgments } from '../db/schema.ts';
import { invalid } from '../errors.ts';
import { readPageToken } from './paging.ts';

type Decision = (typeof judgments.$inferSelect)['decision'];
type JudgmentRow = typeof judgments.$inferSelect;

/** reference.md 3.14: the decisions that count for each side; every other decision counts for neither. */
const APPROVE: ReadonlySet<Decision> = new Set(['approved', 'agree', 'endorse', 'document_approved']);
const REJECT: ReadonlySet<Decision> = new Set(['rejected', 'disagree', 'document_rejected']);

export interface JudgmentInput {
  apiKeyId: string;
  organizationId: string | null;
  documentId: string | null;
  decision: Decision;
  reviewer: { userId: string; name?: string | null | undefined };
  subject: string;
  reasoning: string | null;
  source: 'comment' | 'annotation_status' | 'reaction' | 'agent';
  sourceId: string;
}

const MAX_TEXT = 4000;
const clip = (s: string | null) => (s === null ? null : s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) : s);

/**
 * The index term of a scope: a hash of its path (API key; API key + organization; + document), so that terms of
 * different keys never meet and no id's characters need escaping. Searched in the `scope_terms` column only.
 */
export function scopeTerm(kind: 'k' | 'o' | 'd', ...path: string[]) {
  return kind + createHash('sha256').update(path.join('\u0000')).digest('hex').slice(0, 24);
}

function scopeTermsOf(apiKeyId: string, organizationId: string | null, documentId: string | null) {
  const terms = [scopeTerm('k', apiKeyId)];
  if (organizationId !== null) terms.push(scopeTerm('o', apiKeyId, organizationId));
  if (organizationId !== null && documentId !== null) terms.push(scopeTerm('d', apiKeyId, organizationId, documentId));
  return terms.join(' ');
}

/** Records a judgment in the caller's transaction (with the change it comes from). */
export function recordJudgment(tx: Db, j: JudgmentInput, now = Date.now()) {
  insertJudgment(tx, {
    id: `jdg_${now.toString(36)}${randomBytes(6).toString('hex')}`,
    apiKeyId: j.apiKeyId,
    organizationId: j.organizationId,
    documentId: j.documentId,
    decision: j.decision,
    reviewerId: j.reviewer.userId,
    reviewerName: j.reviewer.name ?? null,
    subject: clip(j.subject) ?? '',
    reasoning: clip(j.reasoning),
    scopeTerms: scopeTermsOf(j.apiKeyId, j.organizationId, j.documentId),
    source: j.source,
    sourceId: j.sourceId,
    createdAt: now,
  });
}

const insertJudgment = rowInserter(judgments);

/** Markup as plain text: tags dropped, whitespace collapsed. */
export const stripTags = (html: string) => html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();

/** A comment's plain text: its text, else its HTML without tags; null when it has neither. */
export const commentPlainText = (text: string | null | undefined, html: string | null | undefined) => text ?? (html ? stripTags(html) : null);

/**
 * A thread's first and last comment, and one comment by id: prepared once per connection (drizzle built each on
 * every comment). First and last are each one step on the index `comments_thread_time`; without it they sorted
 * the whole thread on every reply.
 */
const threadQueries = preparedFor((db) => {
  const thread = and(eq(comments.apiKeyId, sql.placeholder('apiKeyId')), eq(comments.organizationId, sql.placeholder('organizationId')), eq(comments.annotationId, sql.placeholder('annotationId')));
  const pick = { id: comments.id, text: comments.text, html: comments.html };
  return {
    first: db.select(pick).from(comments).where(thread).orderBy(asc(comments.createdAt), asc(comments.id)).limit(1).prepare(),
    last: db.select(pick).from(comments).where(thread).orderBy(desc(comments.createdAt), desc(comments.id)).limit(1).prepare(),
    one: db.select(pick).from(comments).where(and(thread, eq(comments.id, sql.placeholder('commentId')))).prepare(),
  };
});

/** What a comment thread is about (its first comment) and one comment's own text (the last by default), for judgments on it. */
export function threadTexts(tx: Db, apiKeyId: string, organizationId: string, annotationId: string, commentId?: number) {
  const queries = threadQueries(tx);
  const thread = { apiKeyId, organizationId, annotationId };
  const first = queries.first.get(thread);
  const chosen = commentId === undefined ? queries.last.get(thread) : queries.one.get({ ...thread, commentId });
  return { subject: first ? (commentPlainText(first.text, first.html) ?? '') : '', comment: chosen ? commentPlainText(chosen.text, chosen.html) : null };
}

/** The judgment a reaction icon expresses, or null for an icon that is not a decision. */
export function reactionDecision(icon: string): Decision | null {
  const i = icon.trim().toLowerCase().replace(/^:|:$/g, '');
  if (['👍', '+1', 'thumbsup', 'thumbs_up', 'thumbs-up', 'like', 'agree'].includes(i) || i.startsWith('👍')) return 'agree';
  if (['👎', '-1', 'thumbsdown', 'thumbs_down', 'thumbs-down', 'disagree'].includes(i) || i.startsWith('👎')) return 'disagree';
  if (['✅', '✔️', '✔', '☑️', 'white_check_mark', 'heavy_check_mark', 'check', 'endorse', '💯', '100'].includes(i)) return 'endorse';
  return null;
}

/** The judgment a comment status expresses (by status id), or null for a status that is not a decision. */
export function statusDecision(statusId: string): Decision | null {
  const s = statusId.trim().toLowerCase().replace(/[\s-]+/g, '_');
  if (s === 'resolved' || s === 'resolve' || s === 'done' || s === 'closed') return 'resolve';
  if (s === 'approved' || s === 'approve' || s === 'accepted') return 'approved';
  if (s === 'rejected' || s === 'reject' || s === 'declined') return 'rejected';
  if (s === 'in_progress' || s === 'ongoing') return 'in_progress';
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// Search
// ---------------------------------------------------------------------------------------------------------

const STOPWORDS = new Set('a an and are as at be by for from has have in is it its of on or that the this to was were will with we our you your should can do does'.split(' '));

/** The meaningful words of `query`, each quoted (so no FTS syntax gets through), OR-ed; null when none. */
export function ftsQuery(query: string): string | null {
  const words = [...new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !STOPWORDS.has(w)))].slice(0, 32);
  return words.length ? words.map((w) => `"${w}"`).join(' OR ') : null;
}

type ScopeFilter = { organizationId?: string | undefined; documentId?: string | undefined };

/** An FTS5 expression: the words in the text columns, AND the scope's term in `scope_terms`. */
function scopedMatch(words: string, apiKeyId: string, scope: ScopeFilter) {
  const term =
    scope.documentId !== undefined && scope.organizationId !== undefined
      ? scopeTerm('d', apiKeyId, scope.organizationId, scope.documentId)
      : scope.organizationId !== undefined
        ? scopeTerm('o', apiKeyId, scope.organizationId)
        : scopeTerm('k', apiKeyId);
  return `{subject reasoning} : (${words}) AND scope_terms : "${term}"`;
}

/**
 * The candidate pool: the most recent matches in the scope. Reading matches newest first lets the index stop
 * early, so a search costs the same at 10 k or 1 M judgments; bm25 then ranks the pool and the counting uses
 * the best RELEVANT_LIMIT. (Ranking every match of common words costs ~90 ms at 100 k; BENCHMARKS.md.)
 */
const POOL = 2000;
/** The most relevant judgments drawn on in a scope (reference counts are over this set). */
const RELEVANT_LIMIT = 200;

interface Scored extends JudgmentRow {
  rank: number;
}

function search(app: AppContext, apiKeyId: string, words: string, scope: ScopeFilter): Scored[] {
  const pool = app.db.all<{ seq: number; rank: number }>(
    sql`SELECT rowid AS seq, bm25(judgments_fts, 1.0, 1.0, 0.0) AS rank FROM judgments_fts WHERE judgments_fts MATCH ${scopedMatch(words, apiKeyId, scope)} ORDER BY rowid DESC LIMIT ${POOL}`,
  );
  // bm25 is lower for better matches; relevance is its negation
  const best = pool.sort((a, b) => a.rank - b.rank || b.seq - a.seq).slice(0, RELEVANT_LIMIT);
  if (best.length === 0) return [];
  const relevance = new Map(best.map((p) => [p.seq, -p.rank]));
  const where: SQL[] = [inArray(judgments.seq, [...relevance.keys()]), eq(judgments.apiKeyId, apiKeyId)];
  if (scope.organizationId !== undefined) where.push(eq(judgments.organizationId, scope.organizationId));
  if (scope.documentId !== undefined) where.push(eq(judgments.documentId, scope.documentId));
  return app.db
    .select()
    .from(judgments)
    .where(and(...where))
    .all()
    .map((row) => ({ ...row, rank: relevance.get(row.seq) ?? 0 }))
    .sort((a, b) => b.rank - a.rank || b.seq - a.seq);
}

const SCOPES = {
  document: 'This document',
  organization: 'This organization',
  apiKey: 'All content',
} as const;
type ScopeName = keyof typeof SCOPES;

const DAY = 24 * 60 * 60 * 1000;
export const FRESH_MS = 2 * DAY;
export const STALE_MS = 183 * DAY;

export interface Suggestion {
  recommendation: 'approve' | 'reject';
  confidence: number;
  basedOn: number;
  scope: ScopeName;
  scopeLabel: string;
  topReasons: string[];
  uniqueReviewers: number;
  caveats: string[];
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const round2 = (x: number) => Math.round(x * 100) / 100;

function topReasons(rows: Scored[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const r of rows) {
    const reason = r.reasoning?.trim();
    if (!reason) continue;
    const key = reason.toLowerCase().replace(/\s+/g, ' ');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(reason.length > 280 ? `${reason.slice(0, 277)}...` : reason);
    if (out.length === 3) break;
  }
  return out;
}

function describe(side: 'approve' | 'reject', rows: Scored[], total: number, scope: ScopeName): Suggestion {
  return {
    recommendation: side,
    confidence: round2(rows.length / total),
    basedOn: rows.length,
    scope,
    scopeLabel: SCOPES[scope],
    topReasons: topReasons(rows),
    uniqueReviewers: new Set(rows.map((r) => r.reviewerId)).size,
    caveats: [],
  };
}

/**
 * The suggestion for a set of relevant judgments (reference.md 3.14): approve and reject sides; `primary` is
 * null below 2 supporting records; `conflict` when both sides have 2 or more. A tie goes to the side with the
 * greater total relevance, then to the one with the newer judgment.
 */
export function suggestFrom(relevant: Scored[], scope: ScopeName, now = Date.now()): { primary: Suggestion | null; conflict: Suggestion | null } {
  const approve = relevant.filter((r) => APPROVE.has(r.decision));
  const reject = relevant.filter((r) => REJECT.has(r.decision));
  const weight = (rows: Scored[]) => rows.reduce((s, r) => s + r.rank, 0);
  const newest = (rows: Scored[]) => Math.max(0, ...rows.map((r) => r.createdAt));
  const approveLeads =
    approve.length !== reject.length ? approve.length > reject.length : weight(approve) !== weight(reject) ? weight(approve) > weight(reject) : newest(approve) >= newest(reject);
  const [lead, other] = approveLeads ? (['approve', 'reject'] as const) : (['reject', 'approve'] as const);
  const leadRows = approveLeads ? approve : reject;
  const otherRows = approveLeads ? reject : approve;
  if (leadRows.length < 2) return { primary: null, conflict: null };
  const total = leadRows.length + otherRows.length;
  const primary = describe(lead, leadRows, total, scope);
  let conflict: Suggestion | null = null;
  if (otherRows.length >= 2) {
    primary.caveats.push(`Evidence is split: ${plural(otherRows.length, 'relevant judgment')} recommend ${other}, against ${leadRows.length} for ${lead}.`);
    conflict = describe(other, otherRows, total, scope);
    conflict.caveats.push(`Minority view: ${otherRows.length} of ${total} relevant judgments recommend ${other}.`);
  }
  const fresh = leadRows.filter((r) => now - r.createdAt < FRESH_MS).length;
  if (fresh > 0) primary.caveats.push(`A knowledge source was updated in the last 48 hours: ${fresh} of the ${plural(leadRows.length, 'supporting judgment')} ${fresh === 1 ? 'is' : 'are'} that recent, so the pattern may still be changing.`);
  const stale = leadRows.filter((r) => now - r.createdAt > STALE_MS).length;
  if (stale / leadRows.length > 0.7) primary.caveats.push(`Stale pattern: ${Math.round((100 * stale) / leadRows.length)}% of the supporting judgments are older than 6 months.`);
  return { primary, conflict };
}

/**
 * /v2/memory/suggest. The narrowest scope given (document, then organization, then all of the API key's
 * content) whose relevant judgments have at least 2 on the leading side answers; a wider scope is searched only
 * when the narrower one has too little evidence.
 */
export function suggest(app: AppContext, apiKeyId: string, input: z.output<typeof suggestInput>) {
  if (input.documentId !== undefined && input.organizationId === undefined) throw invalid('organizationId is required when documentId is given.');
  const match = ftsQuery(input.query);
  if (!match) return { primary: null, conflict: null };
  const scopes: Array<[ScopeName, { organizationId?: string | undefined; documentId?: string | undefined }]> = [];
  if (input.documentId !== undefined) scopes.push(['document', { organizationId: input.organizationId, documentId: input.documentId }]);
  if (input.organizationId !== undefined) scopes.push(['organization', { organizationId: input.organizationId }]);
  scopes.push(['apiKey', {}]);
  const now = Date.now();
  let answer: ReturnType<typeof suggestFrom> = { primary: null, conflict: null };
  for (const [name, scope] of scopes) {
    answer = suggestFrom(search(app, apiKeyId, match, scope), name, now);
    if (answer.primary) return answer;
  }
  return answer;
}

// ---------------------------------------------------------------------------------------------------------
// Listing
// ---------------------------------------------------------------------------------------------------------

export function describeJudgment(r: JudgmentRow) {
  return {
    judgmentId: r.id,
    decision: r.decision,
    reviewer: { userId: r.reviewerId, name: r.reviewerName },
    subject: r.subject,
    reasoning: r.reasoning,
    scope: { organizationId: r.organizationId, documentId: r.documentId },
    source: { type: r.source, id: r.sourceId },
    createdAt: r.createdAt,
  };
}

/** /v2/memory/judgments/query: newest first, filtered, optionally by full-text `query`; `{ items, nextCursor }`. */
export function queryJudgments(app: AppContext, apiKeyId: string, input: z.output<typeof judgmentsQueryInput>) {
  if (input.documentId !== undefined && input.organizationId === undefined) throw invalid('organizationId is required when documentId is given.');
  const { cursor: token, pageSize, ...filters } = input;
  const scope = { op: 'judgments', apiKeyId, ...filters };
  const cursor = readPageToken(app, scope, token, ['number', 'number'], 'cursor');
  const where: SQL[] = [eq(judgments.apiKeyId, apiKeyId)];
  if (filters.organizationId !== undefined) where.push(eq(judgments.organizationId, filters.organizationId));
  if (filters.documentId !== undefined) where.push(eq(judgments.documentId, filters.documentId));
  if (filters.reviewerId !== undefined) where.push(eq(judgments.reviewerId, filters.reviewerId));
  if (filters.decision !== undefined) where.push(eq(judgments.decision, filters.decision));
  if (filters.query !== undefined) {
    const match = ftsQuery(filters.query);
    if (!match) return { items: [], nextCursor: null };
    where.push(sql`${judgments.seq} IN (SELECT rowid FROM judgments_fts WHERE judgments_fts MATCH ${scopedMatch(match, apiKeyId, filters)})`);
  }
  const rows = app.db
    .select()
    .from(judgments)
    .where(and(...where, keysetAfter(judgments.createdAt, judgments.seq, cursor, true)))
    .orderBy(desc(judgments.createdAt), desc(judgments.seq))
    .limit(pageSize + 1)
    .all();
  const page = paginate(rows, pageSize, (r) => [r.createdAt, r.seq], app.pageTokens, scope);
  return { items: page.items.map(describeJudgment), nextCursor: page.pageToken };
}
