// The key's judgments on PostgreSQL: the same repository as ../../repos/judgments.ts (its type is the contract;
// test/pg/judgments.test.ts runs both on the same calls and compares). Full-text search runs on the GIN index
// judgments_search (../migrations/0001_judgments_search.sql): `@@` on exactly its expression, so that the index is
// used, ranked by ts_rank where SQLite ranks by bm25. What differs from SQLite's FTS5 (porter, unicode61):
// - relevance: ts_rank's numbers and so the order of the best matches (and which 200 are kept when more match);
// - words: PostgreSQL's english configuration stems with Snowball (FTS5: Porter), drops its stop words (in the text
//   and in the query: a query word that is one matches nothing), keeps diacritics (unicode61 removes them), and its
//   parser keeps host names, emails and paths whole where FTS5 splits them at every non-alphanumeric character.
// The set searched (the scope and the filters), the pool of newest matches and the limits are the same.
import { and, desc, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import { type JudgmentRow, type JudgmentScope, type JudgmentsRepo, type NewJudgment, type ScoredJudgment, scopeTerm } from '../../repos/judgments.ts';
import type { PgEngine } from '../engine.ts';
import { keysetAfterPg } from '../pagination.ts';
import { pgTableFor } from '../schema.ts';

const { table: judgments, c } = pgTableFor('judgments');

/** The judgments_search index's expression, exactly (a different one would not be searched on the index). */
export const searchDocument = sql`to_tsvector('english', ${c.subject} || ' ' || coalesce(${c.reasoning}, '') || ' ' || ${c.scopeTerms})`;

/** As SQLite's: the newest matches ranked, and the best of them drawn on. */
const POOL = 2000;
const RELEVANT_LIMIT = 200;

function scopeTermsOf(apiKeyId: string, organizationId: string | null, documentId: string | null) {
  const terms = [scopeTerm('k', apiKeyId)];
  if (organizationId !== null) terms.push(scopeTerm('o', apiKeyId, organizationId));
  if (organizationId !== null && documentId !== null) terms.push(scopeTerm('d', apiKeyId, organizationId, documentId));
  return terms.join(' ');
}

/** The scope's index term, as SQLite's scopedMatch chooses it. */
function termOf(apiKeyId: string, scope: JudgmentScope) {
  return scope.documentId !== undefined && scope.organizationId !== undefined
    ? scopeTerm('d', apiKeyId, scope.organizationId, scope.documentId)
    : scope.organizationId !== undefined
      ? scopeTerm('o', apiKeyId, scope.organizationId)
      : scopeTerm('k', apiKeyId);
}

const literal = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/**
 * An FTS5 query (quoted phrases, bare words, a trailing * for a prefix, AND, OR, NOT, parentheses; juxtaposition is
 * AND) as to_tsquery's text: NOT binds tighter than AND and AND than OR in both, so `a NOT b` is `a & !b`.
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

/** The text matches the words, and the judgment is in the scope by its index term (the index intersects both). */
const matching = (words: string, apiKeyId: string, scope: JudgmentScope): SQL =>
  sql`${searchDocument} @@ to_tsquery('english', ${tsqueryOf(words)}) and ${searchDocument} @@ to_tsquery('english', ${literal(termOf(apiKeyId, scope))})`;

/** The columns a scope term stands for (SQLite's scopedMatch): key; key and organization; and document with both. */
function termColumns(apiKeyId: string, scope: JudgmentScope): SQL[] {
  const where = [eq(c.apiKeyId, apiKeyId)];
  if (scope.organizationId !== undefined) where.push(eq(c.organizationId, scope.organizationId));
  if (scope.organizationId !== undefined && scope.documentId !== undefined) where.push(eq(c.documentId, scope.documentId));
  return where;
}

export function judgmentsRepoPg(engine: PgEngine): JudgmentsRepo {
  return {
    insert: (scope, judgment: NewJudgment) =>
      engine.write(
        async (db) =>
          void (await db.insert(judgments).values({
            ...judgment,
            apiKeyId: scope.apiKeyId,
            scopeTerms: scopeTermsOf(scope.apiKeyId, judgment.organizationId, judgment.documentId),
          } as never)),
      ),

    search: (scope, words, where) =>
      engine.read(async (db): Promise<ScoredJudgment[]> => {
        const rank = sql<number>`ts_rank(${searchDocument}, to_tsquery('english', ${tsqueryOf(words)}))`;
        // the newest POOL matches in the scope, and the best RELEVANT_LIMIT of them by rank, in one statement
        const pool = db.$with('pool').as(
          db
            .select({ seq: sql<number>`${c.seq}`.as('pool_seq'), rank: rank.as('pool_rank') })
            .from(judgments)
            .where(and(matching(words, scope.apiKeyId, where), ...termColumns(scope.apiKeyId, where)))
            .orderBy(desc(c.seq))
            .limit(POOL),
        );
        const best = db.$with('best').as(db.select().from(pool).orderBy(desc(pool.rank), desc(pool.seq)).limit(RELEVANT_LIMIT));
        // then, as on SQLite, the filters the scope term does not stand for (a document without its organization)
        const conditions: SQL[] = [eq(c.apiKeyId, scope.apiKeyId)];
        if (where.organizationId !== undefined) conditions.push(eq(c.organizationId, where.organizationId));
        if (where.documentId !== undefined) conditions.push(eq(c.documentId, where.documentId));
        const rows = (await db
          .with(pool, best)
          .select({ ...getTableColumns(judgments), rank: best.rank })
          .from(judgments)
          .innerJoin(best, eq(c.seq, best.seq))
          .where(and(...conditions))) as ScoredJudgment[];
        return rows.sort((a, b) => b.rank - a.rank || b.seq - a.seq);
      }),

    page: (scope, filters, cursor, limit) =>
      engine.read(async (db) => {
        const where: (SQL | undefined)[] = [eq(c.apiKeyId, scope.apiKeyId)];
        if (filters.organizationId !== undefined) where.push(eq(c.organizationId, filters.organizationId));
        if (filters.documentId !== undefined) where.push(eq(c.documentId, filters.documentId));
        if (filters.reviewerId !== undefined) where.push(eq(c.reviewerId, filters.reviewerId));
        if (filters.decision !== undefined) where.push(eq(c.decision, filters.decision));
        if (filters.words !== undefined) where.push(matching(filters.words, scope.apiKeyId, filters));
        where.push(keysetAfterPg(c.createdAt, c.seq, cursor, true));
        return (await db
          .select()
          .from(judgments)
          .where(and(...where))
          .orderBy(desc(c.createdAt), desc(c.seq))
          .limit(limit)) as JudgmentRow[];
      }),
  };
}
