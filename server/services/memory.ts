import { currentTime } from '../clock.ts';
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { judgmentsQueryInput, suggestInput } from '../../shared/schemas/ai.ts';
import type { PageTokens } from '../db/pagination.ts';
import { paginate } from '../db/pagination.ts';
import type { Storage } from '../db/repos/index.ts';
import type { Decision, JudgmentRow, JudgmentScope, NewJudgment, ScoredJudgment } from '../db/repos/judgments.ts';
import type { TenantScope } from '../db/scope.ts';
import { invalid } from '../errors.ts';
import { readPageToken } from './paging.ts';

export { scopeTerm } from '../db/repos/judgments.ts';

type Deps = { storage: Storage };

/** reference.md 3.14: the decisions that count for each side; every other decision counts for neither. */
const APPROVE: ReadonlySet<Decision> = new Set(['approved', 'agree', 'endorse', 'document_approved']);
const REJECT: ReadonlySet<Decision> = new Set(['rejected', 'disagree', 'document_rejected']);

export interface JudgmentInput {
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

/** The row of a judgment made at `now`. */
function newJudgment(j: JudgmentInput, now: number): NewJudgment {
  return {
    id: `jdg_${now.toString(36)}${randomBytes(6).toString('hex')}`,
    organizationId: j.organizationId,
    documentId: j.documentId,
    decision: j.decision,
    reviewerId: j.reviewer.userId,
    reviewerName: j.reviewer.name ?? null,
    subject: clip(j.subject) ?? '',
    reasoning: clip(j.reasoning),
    source: j.source,
    sourceId: j.sourceId,
    createdAt: now,
  };
}

/** Records a judgment (in the caller's unit of work, with the change it comes from). */
export async function recordJudgment(deps: Deps, scope: TenantScope, j: JudgmentInput, now = currentTime()) {
  await deps.storage.judgments.insert(scope, newJudgment(j, now));
}

/**
 * Markup as plain text: tags (a `<` to the next `>`) dropped, whitespace collapsed. One pass with indexOf: the
 * regular expression `/<[^>]*>/g` it replaces scanned to the end of the text from every `<` that no `>` follows,
 * so 200,000 `<` took 38 s and held the server for all of it (issue 42). A `<` with no `>` after it stays as text,
 * as it did.
 */
export function stripTags(html: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const open = html.indexOf('<', from);
    const close = open === -1 ? -1 : html.indexOf('>', open + 1);
    // no tag from here on: neither this `<` nor any later one has a `>` after it
    if (close === -1) break;
    out += `${html.slice(from, open)} `;
    from = close + 1;
  }
  out += html.slice(from);
  return out.replace(/\s+/g, ' ').trim();
}

/** A comment's plain text: its text, else its HTML without tags; null when it has neither. */
export const commentPlainText = (text: string | null | undefined, html: string | null | undefined) => text ?? (html ? stripTags(html) : null);

type CommentText = { text: string | null; html: string | null } | undefined;

/** What a thread is about (its first comment's text) and one comment's own text, from their stored text and HTML. */
function threadTextsOf(first: CommentText, chosen: CommentText) {
  return { subject: first ? (commentPlainText(first.text, first.html) ?? '') : '', comment: chosen ? commentPlainText(chosen.text, chosen.html) : null };
}

/** What a comment thread is about (its first comment) and one comment's own text (the last by default), for judgments on it. */
export async function threadTexts(deps: Deps, scope: TenantScope, organizationId: string, annotationId: string, commentId?: number) {
  const { first, chosen } = await deps.storage.comments.threadTexts(scope, organizationId, annotationId, commentId);
  return threadTextsOf(first, chosen);
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
  const s = statusId
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  if (s === 'resolved' || s === 'resolve' || s === 'done' || s === 'closed') return 'resolve';
  if (s === 'approved' || s === 'approve' || s === 'accepted') return 'approved';
  if (s === 'rejected' || s === 'reject' || s === 'declined') return 'rejected';
  if (s === 'in_progress' || s === 'ongoing') return 'in_progress';
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// Search
// ---------------------------------------------------------------------------------------------------------

const STOPWORDS = new Set(
  'a an and are as at be by for from has have in is it its of on or that the this to was were will with we our you your should can do does'.split(' '),
);

/** The meaningful words of `query`, each quoted (so no FTS syntax gets through), OR-ed; null when none. */
export function ftsQuery(query: string): string | null {
  const words = [...new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !STOPWORDS.has(w)))].slice(0, 32);
  return words.length ? words.map((w) => `"${w}"`).join(' OR ') : null;
}

type Scored = ScoredJudgment;

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
export function suggestFrom(relevant: Scored[], scope: ScopeName, now = currentTime()): { primary: Suggestion | null; conflict: Suggestion | null } {
  const approve = relevant.filter((r) => APPROVE.has(r.decision));
  const reject = relevant.filter((r) => REJECT.has(r.decision));
  const weight = (rows: Scored[]) => rows.reduce((s, r) => s + r.rank, 0);
  const newest = (rows: Scored[]) => Math.max(0, ...rows.map((r) => r.createdAt));
  const approveLeads =
    approve.length !== reject.length
      ? approve.length > reject.length
      : weight(approve) !== weight(reject)
        ? weight(approve) > weight(reject)
        : newest(approve) >= newest(reject);
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
  if (fresh > 0)
    primary.caveats.push(
      `A knowledge source was updated in the last 48 hours: ${fresh} of the ${plural(leadRows.length, 'supporting judgment')} ${fresh === 1 ? 'is' : 'are'} that recent, so the pattern may still be changing.`,
    );
  const stale = leadRows.filter((r) => now - r.createdAt > STALE_MS).length;
  if (stale / leadRows.length > 0.7)
    primary.caveats.push(`Stale pattern: ${Math.round((100 * stale) / leadRows.length)}% of the supporting judgments are older than 6 months.`);
  return { primary, conflict };
}

/**
 * /v2/memory/suggest. The narrowest scope given (document, then organization, then all of the API key's
 * content) whose relevant judgments have at least 2 on the leading side answers; a wider scope is searched only
 * when the narrower one has too little evidence.
 */
export async function suggest(deps: Deps, scope: TenantScope, input: z.output<typeof suggestInput>) {
  if (input.documentId !== undefined && input.organizationId === undefined) throw invalid('organizationId is required when documentId is given.');
  const match = ftsQuery(input.query);
  if (!match) return { primary: null, conflict: null };
  const scopes: Array<[ScopeName, JudgmentScope]> = [];
  if (input.documentId !== undefined) scopes.push(['document', { organizationId: input.organizationId, documentId: input.documentId }]);
  if (input.organizationId !== undefined) scopes.push(['organization', { organizationId: input.organizationId }]);
  scopes.push(['apiKey', {}]);
  const now = currentTime();
  let answer: ReturnType<typeof suggestFrom> = { primary: null, conflict: null };
  for (const [name, where] of scopes) {
    answer = suggestFrom(await deps.storage.judgments.search(scope, match, where), name, now);
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
export async function queryJudgments(deps: Deps & { pageTokens: PageTokens }, scope: TenantScope, input: z.output<typeof judgmentsQueryInput>) {
  if (input.documentId !== undefined && input.organizationId === undefined) throw invalid('organizationId is required when documentId is given.');
  const { cursor: token, pageSize, ...filters } = input;
  const query = { op: 'judgments', apiKeyId: scope.apiKeyId, ...filters };
  const cursor = readPageToken(deps, query, token, ['number', 'number'], 'cursor');
  let words: string | undefined;
  if (filters.query !== undefined) {
    const match = ftsQuery(filters.query);
    if (!match) return { items: [], nextCursor: null };
    words = match;
  }
  const rows = await deps.storage.judgments.page(scope, { ...filters, words }, cursor, pageSize + 1);
  const page = paginate(rows, pageSize, (r) => [r.createdAt, r.seq], deps.pageTokens, query);
  return { items: page.items.map(describeJudgment), nextCursor: page.pageToken };
}
