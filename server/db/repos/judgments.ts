// Judgments: the review decisions memory/suggest learns from, with their full-text index. A judgment's scope (key,
// organization, document) is indexed with its text as hashed terms, so that a scoped search intersects in the index.
// Written once for both engines (engine.ts; test/pg/judgments.test.ts runs it on both and compares every answer),
// but for the full-text statement itself, whose SQL differs (`text` below): SQLite's index is judgments_fts (FTS5,
// kept in step by triggers of the migration), ranked by bm25; PostgreSQL's is the GIN index judgments_search
// (pg/migrations/0001_judgments_search.sql), ranked by ts_rank. What differs between the two (docs/storage.md,
// "Text search"):
// - relevance: ts_rank's numbers and so the order of the best matches (and which 200 are kept when more match);
// - words: PostgreSQL's english configuration stems with Snowball (FTS5: Porter), drops its stop words (in the text
//   and in the query: a query word that is one matches nothing), keeps diacritics (unicode61 removes them), and its
//   parser keeps host names, emails and paths whole where FTS5 splits them at every non-alphanumeric character.
// The set searched (the scope and the filters), the pool of newest matches and the limits are the same.
import { createHash } from 'node:crypto';
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { Engine, Q, Tables } from '../engine.ts';
import { keysetAfter, type Cursor } from '../pagination.ts';
import type { judgments } from '../schema.ts';
import type { TenantScope } from '../scope.ts';

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

/** The index term of the scope searched: the document's (with its organization), else the organization's, else the key's. */
function termOf(apiKeyId: string, scope: JudgmentScope) {
  return scope.documentId !== undefined && scope.organizationId !== undefined
    ? scopeTerm('d', apiKeyId, scope.organizationId, scope.documentId)
    : scope.organizationId !== undefined
      ? scopeTerm('o', apiKeyId, scope.organizationId)
      : scopeTerm('k', apiKeyId);
}

/** An FTS5 expression: the words (an FTS5 query of quoted words) in the text columns, AND the scope's term in `scope_terms`. */
function scopedMatch(words: string, apiKeyId: string, scope: JudgmentScope) {
  return `{subject reasoning} : (${words}) AND scope_terms : "${termOf(apiKeyId, scope)}"`;
}

/** The judgments_search index's expression on PostgreSQL, exactly (a different one would not be searched on the index). */
export const searchDocument = (j: Tables['judgments']) =>
  sql`to_tsvector('english', ${j.subject} || ' ' || coalesce(${j.reasoning}, '') || ' ' || ${j.scopeTerms})`;

const literal = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/**
 * An FTS5 query (quoted phrases, bare words, a trailing * for a prefix, AND, OR, NOT, parentheses; juxtaposition is
 * AND) as to_tsquery's text, for PostgreSQL: NOT binds tighter than AND and AND than OR in both, so `a NOT b` is
 * `a & !b`.
 */
export function tsqueryOf(fts5: string): string {
  const out: string[] = [];
  const pattern = /\s*(?:"((?:[^"]|"")*)"(\*)?|(\()|(\))|([^\s()"]+))/gy;
  let operand = false;
  for (let m = pattern.exec(fts5); m !== null && m[0] !== ''; m = pattern.exec(fts5)) {
    const [, phrase, star, open, close, bare] = m;
    const word = bare?.endsWith('*') ? bare.slice(0, -1) : bare;
    if (bare === 'AND' || bare === 'OR' || bare === 'NOT') {
      out.push(bare === 'AND' ? '&' : bare === 'OR' ? '|' : '& !');
      operand = false;
      continue;
    }
    if (close) {
      out.push(')');
      operand = true;
      continue;
    }
    if (operand) out.push('&');
    if (open) {
      out.push('(');
      operand = false;
      continue;
    }
    const text = phrase !== undefined ? phrase.replace(/""/g, '"') : (word as string);
    out.push(literal(text) + (star || bare?.endsWith('*') ? ':*' : ''));
    operand = true;
  }
  return out.join(' ');
}

/**
 * The candidate pool: the most recent matches in the scope. Reading matches newest first lets the index stop
 * early, so a search costs the same at 10 k or 1 M judgments; bm25 then ranks the pool and the counting uses
 * the best RELEVANT_LIMIT. (Ranking every match of common words costs ~90 ms at 100 k; BENCHMARKS.md.)
 */
const POOL = 2000;
/** The most relevant judgments drawn on in a scope (reference counts are over this set). */
const RELEVANT_LIMIT = 200;

const P = sql.placeholder;

/** The key's judgments. */
export function judgmentsRepo(engine: Engine) {
  const { judgments: j } = engine.t;

  // prepared once per connection, as SQLite's rowInserter was (every recorded decision writes one)
  const insert = engine.prepare('judgments.insert', (db) =>
    db.insert(j).values({
      id: P('id'),
      apiKeyId: P('apiKeyId'),
      organizationId: P('organizationId'),
      documentId: P('documentId'),
      decision: P('decision'),
      reviewerId: P('reviewerId'),
      reviewerName: P('reviewerName'),
      subject: P('subject'),
      reasoning: P('reasoning'),
      scopeTerms: P('scopeTerms'),
      source: P('source'),
      sourceId: P('sourceId'),
      createdAt: P('createdAt'),
    }),
  );

  // The full-text statement, the one place the engines' SQL differs (see the top): `pool`, the newest POOL matches
  // of the words in the scope with their relevance (higher is better), and `matches`, a condition on a judgment row.
  const document = searchDocument(j);
  const text =
    engine.kind === 'sqlite'
      ? {
          // FTS5 reads its matches in rowid (seq) order and stops at the pool; bm25 is lower for better matches, so
          // relevance is its negation
          pool: (db: Q, words: string, apiKeyId: string, scope: JudgmentScope) =>
            db
              .select({ seq: sql<number>`rowid`.as('pool_seq'), rank: sql<number>`-bm25(judgments_fts, 1.0, 1.0, 0.0)`.as('pool_rank') })
              .from(sql`judgments_fts`)
              .where(sql`judgments_fts MATCH ${scopedMatch(words, apiKeyId, scope)}`)
              .orderBy(sql`rowid desc`)
              .limit(POOL),
          matches: (words: string, apiKeyId: string, scope: JudgmentScope): SQL =>
            sql`${j.seq} IN (SELECT rowid FROM judgments_fts WHERE judgments_fts MATCH ${scopedMatch(words, apiKeyId, scope)})`,
        }
      : {
          // `@@` on exactly the index's expression, for the words and for the scope's term (the index intersects
          // both), and the columns the term stands for: key; key and organization; and document with both
          pool: (db: Q, words: string, apiKeyId: string, scope: JudgmentScope) => {
            const where = [matchingPg(words, apiKeyId, scope), eq(j.apiKeyId, apiKeyId)];
            if (scope.organizationId !== undefined) where.push(eq(j.organizationId, scope.organizationId));
            if (scope.organizationId !== undefined && scope.documentId !== undefined) where.push(eq(j.documentId, scope.documentId));
            return db
              .select({
                seq: sql<number>`${j.seq}`.as('pool_seq'),
                rank: sql<number>`ts_rank(${document}, to_tsquery('english', ${tsqueryOf(words)}))`.as('pool_rank'),
              })
              .from(j)
              .where(and(...where))
              .orderBy(desc(j.seq))
              .limit(POOL);
          },
          matches: (words: string, apiKeyId: string, scope: JudgmentScope): SQL => matchingPg(words, apiKeyId, scope),
        };
  function matchingPg(words: string, apiKeyId: string, scope: JudgmentScope): SQL {
    return sql`${document} @@ to_tsquery('english', ${tsqueryOf(words)}) and ${document} @@ to_tsquery('english', ${literal(termOf(apiKeyId, scope))})`;
  }

  return {
    insert: (scope: TenantScope, judgment: NewJudgment) =>
      engine.write(async (db) => {
        await insert.run(db, { ...judgment, apiKeyId: scope.apiKeyId, scopeTerms: scopeTermsOf(scope.apiKeyId, judgment.organizationId, judgment.documentId) });
      }),

    /** The most relevant judgments (at most RELEVANT_LIMIT) matching `words` (an FTS5 query) in the scope, best first. */
    search: (scope: TenantScope, words: string, where: JudgmentScope) =>
      engine.read(async (db): Promise<ScoredJudgment[]> => {
        // the newest POOL matches in the scope, and the best RELEVANT_LIMIT of them, in one statement
        const pool = db.$with('pool').as(text.pool(db, words, scope.apiKeyId, where));
        const best = db.$with('best').as(db.select().from(pool).orderBy(desc(pool.rank), desc(pool.seq)).limit(RELEVANT_LIMIT));
        // then each of those rows by its key, with the filters the scope term does not stand for (a document without
        // its organization). A cross join: SQLite then reads `best` first and each judgment by its key, where with an
        // inner join its planner may read the scope's whole index and look each row up in `best` (PostgreSQL plans
        // both alike)
        const conditions: SQL[] = [eq(j.seq, best.seq), eq(j.apiKeyId, scope.apiKeyId)];
        if (where.organizationId !== undefined) conditions.push(eq(j.organizationId, where.organizationId));
        if (where.documentId !== undefined) conditions.push(eq(j.documentId, where.documentId));
        const rows = await db
          .with(pool, best)
          .select({ ...engine.columns(j), rank: best.rank })
          .from(best)
          .crossJoin(j)
          .where(and(...conditions));
        return rows.sort((a, b) => b.rank - a.rank || b.seq - a.seq);
      }),

    /** Newest first (by createdAt, then seq), filtered, after `cursor`, at most `limit`; `words`: matching that FTS5 query too. */
    page: (
      scope: TenantScope,
      filters: JudgmentScope & { reviewerId?: string | undefined; decision?: Decision | undefined; words?: string | undefined },
      cursor: Cursor | null,
      limit: number,
    ) =>
      engine.read(async (db) => {
        const where: SQL[] = [eq(j.apiKeyId, scope.apiKeyId)];
        if (filters.organizationId !== undefined) where.push(eq(j.organizationId, filters.organizationId));
        if (filters.documentId !== undefined) where.push(eq(j.documentId, filters.documentId));
        if (filters.reviewerId !== undefined) where.push(eq(j.reviewerId, filters.reviewerId));
        if (filters.decision !== undefined) where.push(eq(j.decision, filters.decision));
        if (filters.words !== undefined) where.push(text.matches(filters.words, scope.apiKeyId, filters));
        return db
          .select()
          .from(j)
          .where(and(...where, keysetAfter(j.createdAt, j.seq, cursor, true)))
          .orderBy(desc(j.createdAt), desc(j.seq))
          .limit(limit);
      }),
  };
}

export type JudgmentsRepo = ReturnType<typeof judgmentsRepo>;
