// Judgments: the review decisions memory/suggest learns from, with their full-text index (judgments_fts, FTS5, kept in
// step by triggers of the migration). A judgment's scope (key, organization, document) is indexed with its text as
// hashed terms, so that a scoped search intersects in the index.
import { createHash } from 'node:crypto';
import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { keysetAfter, type Cursor } from '../pagination.ts';
import { rowInserter } from '../prepared.ts';
import { judgments } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

export type JudgmentRow = typeof judgments.$inferSelect;
export type Decision = JudgmentRow['decision'];
/** A judgment to record: the row but its sequence number, key and index terms (the repository adds them). */
export type NewJudgment = Omit<JudgmentRow, 'seq' | 'apiKeyId' | 'scopeTerms'>;
/** Where a search or a listing looks: the key's content, one organization's, or one document's. */
export type JudgmentScope = { organizationId?: string | undefined; documentId?: string | undefined };
/** A judgment found by a search, with its relevance (higher is better). */
export interface ScoredJudgment extends JudgmentRow {
  rank: number;
}

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

/** An FTS5 expression: the words (an FTS5 query of quoted words) in the text columns, AND the scope's term in `scope_terms`. */
function scopedMatch(words: string, apiKeyId: string, scope: JudgmentScope) {
  const term =
    scope.documentId !== undefined && scope.organizationId !== undefined
      ? scopeTerm('d', apiKeyId, scope.organizationId, scope.documentId)
      : scope.organizationId !== undefined
        ? scopeTerm('o', apiKeyId, scope.organizationId)
        : scopeTerm('k', apiKeyId);
  return `{subject reasoning} : (${words}) AND scope_terms : "${term}"`;
}

const insertJudgment = rowInserter(judgments);
const insertOn = (db: Db, apiKeyId: string, j: NewJudgment) =>
  insertJudgment(db, { ...j, apiKeyId, scopeTerms: scopeTermsOf(apiKeyId, j.organizationId, j.documentId) });

/**
 * The candidate pool: the most recent matches in the scope. Reading matches newest first lets the index stop
 * early, so a search costs the same at 10 k or 1 M judgments; bm25 then ranks the pool and the counting uses
 * the best RELEVANT_LIMIT. (Ranking every match of common words costs ~90 ms at 100 k; BENCHMARKS.md.)
 */
const POOL = 2000;
/** The most relevant judgments drawn on in a scope (reference counts are over this set). */
const RELEVANT_LIMIT = 200;

/** The key's judgments. */
export function judgmentsRepo(engine: SqliteEngine) {
  return {
    insert: (scope: TenantScope, judgment: NewJudgment) => engine.write((db) => void insertOn(db, scope.apiKeyId, judgment)),

    /** The most relevant judgments (at most RELEVANT_LIMIT) matching `words` (an FTS5 query) in the scope, best first. */
    search: (scope: TenantScope, words: string, where: JudgmentScope) =>
      engine.read((db): ScoredJudgment[] => {
        const pool = db.all<{ seq: number; rank: number }>(
          sql`SELECT rowid AS seq, bm25(judgments_fts, 1.0, 1.0, 0.0) AS rank FROM judgments_fts WHERE judgments_fts MATCH ${scopedMatch(words, scope.apiKeyId, where)} ORDER BY rowid DESC LIMIT ${POOL}`,
        );
        // bm25 is lower for better matches; relevance is its negation
        const best = pool.sort((a, b) => a.rank - b.rank || b.seq - a.seq).slice(0, RELEVANT_LIMIT);
        if (best.length === 0) return [];
        const relevance = new Map(best.map((p) => [p.seq, -p.rank]));
        const conditions: SQL[] = [inArray(judgments.seq, [...relevance.keys()]), eq(judgments.apiKeyId, scope.apiKeyId)];
        if (where.organizationId !== undefined) conditions.push(eq(judgments.organizationId, where.organizationId));
        if (where.documentId !== undefined) conditions.push(eq(judgments.documentId, where.documentId));
        return db
          .select()
          .from(judgments)
          .where(and(...conditions))
          .all()
          .map((row) => ({ ...row, rank: relevance.get(row.seq) ?? 0 }))
          .sort((a, b) => b.rank - a.rank || b.seq - a.seq);
      }),

    /** Newest first (by createdAt, then seq), filtered, after `cursor`, at most `limit`; `words`: matching that FTS5 query too. */
    page: (
      scope: TenantScope,
      filters: JudgmentScope & { reviewerId?: string | undefined; decision?: Decision | undefined; words?: string | undefined },
      cursor: Cursor | null,
      limit: number,
    ) =>
      engine.read((db) => {
        const where: SQL[] = [eq(judgments.apiKeyId, scope.apiKeyId)];
        if (filters.organizationId !== undefined) where.push(eq(judgments.organizationId, filters.organizationId));
        if (filters.documentId !== undefined) where.push(eq(judgments.documentId, filters.documentId));
        if (filters.reviewerId !== undefined) where.push(eq(judgments.reviewerId, filters.reviewerId));
        if (filters.decision !== undefined) where.push(eq(judgments.decision, filters.decision));
        if (filters.words !== undefined)
          where.push(
            sql`${judgments.seq} IN (SELECT rowid FROM judgments_fts WHERE judgments_fts MATCH ${scopedMatch(filters.words, scope.apiKeyId, filters)})`,
          );
        return db
          .select()
          .from(judgments)
          .where(and(...where, keysetAfter(judgments.createdAt, judgments.seq, cursor, true)))
          .orderBy(desc(judgments.createdAt), desc(judgments.seq))
          .limit(limit)
          .all();
      }),
  };
}

export type JudgmentsRepo = ReturnType<typeof judgmentsRepo>;
