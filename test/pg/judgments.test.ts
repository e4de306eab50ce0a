// The judgments repository answers alike on PostgreSQL and on SQLite (see organizations.test.ts). Search
// ranks by ts_rank there and by bm25 here: the matches (the set, with every column), the filters and the limits are
// compared; the relevance numbers and the order they give are not, only that each engine orders by its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type JudgmentRow,
  type JudgmentsRepo,
  judgmentsRepo,
  type NewJudgment,
  type ScoredJudgment,
  searchDocument,
  tsqueryOf,
} from '../../server/db/repos/judgments.ts';
import { ftsQuery } from '../../server/services/memory.ts';
import { type BothEngines, bothEngines, onBoth } from '../helpers/pg-parity.ts';

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
});
afterAll(() => both?.close());

const T = 1_700_000_000_000;
let n = 0;
const judgment = (subject: string, reasoning: string | null, extra: Partial<NewJudgment> = {}): NewJudgment => ({
  id: `j${++n}`,
  organizationId: 'o1',
  documentId: 'd1',
  decision: 'rejected',
  reviewerId: 'r1',
  reviewerName: 'Reviewer',
  subject,
  reasoning,
  source: 'comment',
  sourceId: `c${n}`,
  createdAt: T + n,
  ...extra,
});

/** A search's matches without their relevance, by seq: what both engines must agree on. */
const matches = (rows: unknown) =>
  (rows as ScoredJudgment[])
    .map(({ rank: _, ...row }) => row)
    .sort((a, b) => a.seq - b.seq)
    .map((row) => row as JudgmentRow);
const search = (value: unknown) => ({ search: matches(value) });
const seqs = (rows: unknown) => (rows as JudgmentRow[]).map((r) => r.seq);

describe('judgments', () => {
  it('translates FTS5 queries to tsquery text', () => {
    expect(tsqueryOf('"passive" OR "voice"')).toBe("'passive' | 'voice'");
    expect(tsqueryOf('"it\'s" "a""b"')).toBe("'it''s' & 'a\"b'");
    expect(tsqueryOf('(a OR b) NOT c*')).toBe("( 'a' | 'b' ) & ! 'c':*");
    expect(tsqueryOf('"back\\slash" AND x')).toBe("'back\\\\slash' & 'x'");
  });

  it('answers every call as on SQLite: insert, scoped search (the same matches), pages with filters, words and cursors', async () => {
    const { k1, k2 } = both;
    const rows: Array<[typeof k1, NewJudgment]> = [
      [k1, judgment('Avoid the passive voice in headings', 'Passive constructions hide who acts')],
      [k1, judgment('Use active voice', null, { decision: 'approved' })],
      [k1, judgment('The headings are running long', 'Shorter headings read better', { documentId: 'd2', reviewerId: 'r2' })],
      [k1, judgment('Numbers under ten are spelled out', 'House style', { organizationId: 'o2', documentId: 'd9' })],
      [k1, judgment('Passive voice is fine in methods sections', 'Convention in science writing', { organizationId: null, documentId: null })],
      [k1, judgment('A heading without a verb', 'Headings should say what happens', { createdAt: T + 2, reviewerId: 'r2' })],
      [k1, judgment('Cite the source of every figure', null, { documentId: 'd2', decision: 'approved' })],
      [k2, judgment('Passive voice in another tenant', 'Not the first key', { createdAt: T + 3 })],
    ];
    const answers = await onBoth<JudgmentsRepo>(both.storage.judgments, judgmentsRepo(both.pg), async (repo) => {
      n = 0;
      const out: unknown[] = [];
      for (const [scope, j] of rows) out.push(await repo.insert(scope, j));
      const q = (text: string) => ftsQuery(text) as string;
      out.push(
        search(await repo.search(k1, q('passive voice'), {})),
        search(await repo.search(k1, q('passive voice'), { organizationId: 'o1' })),
        search(await repo.search(k1, q('passive voice'), { organizationId: 'o1', documentId: 'd1' })),
        search(await repo.search(k1, q('passive voice'), { documentId: 'd1' })),
        search(await repo.search(k2, q('passive voice'), {})),
        // stemming on both: "heading" finds "headings", "run" finds "running"
        search(await repo.search(k1, q('heading run'), {})),
        search(await repo.search(k1, q('numbers'), { organizationId: 'o1' })),
        search(await repo.search(k1, q('numbers'), { organizationId: 'o2' })),
        search(await repo.search(k1, q('nothing matches this'), {})),
        await repo.page(k1, {}, null, 20),
        await repo.page(k1, {}, null, 3),
        await repo.page(k1, {}, [T + 2, 6], 3),
        await repo.page(k1, { organizationId: 'o1' }, null, 20),
        await repo.page(k1, { organizationId: 'o1', documentId: 'd2' }, null, 20),
        await repo.page(k1, { documentId: 'd1' }, null, 20),
        await repo.page(k1, { reviewerId: 'r2' }, null, 20),
        await repo.page(k1, { decision: 'approved' }, null, 20),
        await repo.page(k1, { words: q('passive voice') }, null, 20),
        await repo.page(k1, { words: q('passive voice'), organizationId: 'o1', documentId: 'd1' }, null, 20),
        await repo.page(k1, { words: q('headings'), reviewerId: 'r2' }, null, 20),
        await repo.page(k1, { words: q('headings') }, [T + 3, 3], 1),
        await repo.page(k2, {}, null, 20),
      );
      return out;
    });
    expect(answers.pg).toEqual(answers.sqlite);
    const s = answers.sqlite;
    const found = (i: number) => (s[i] as { search: JudgmentRow[] }).search.map((r) => r.id);
    expect(found(8)).toEqual(['j1', 'j2', 'j5']);
    expect(found(9)).toEqual(['j1', 'j2']);
    expect(found(10)).toEqual(['j1', 'j2']);
    expect(found(11)).toEqual(['j1', 'j2']);
    expect(found(12)).toEqual(['j8']);
    expect(found(13)).toEqual(['j1', 'j3', 'j6']);
    expect(found(14)).toEqual([]);
    expect(found(15)).toEqual(['j4']);
    expect(found(16)).toEqual([]);
    // newest first by createdAt, then seq: j6 was made at T + 2, like j2
    expect(seqs(s[17])).toEqual([7, 5, 4, 3, 6, 2, 1]);
    expect(seqs(s[18])).toEqual([7, 5, 4]);
    expect(seqs(s[19])).toEqual([2, 1]);
    expect(seqs(s[20])).toEqual([7, 3, 6, 2, 1]);
    expect(seqs(s[21])).toEqual([7, 3]);
    expect(seqs(s[22])).toEqual([6, 2, 1]);
    expect(seqs(s[23])).toEqual([3, 6]);
    expect(seqs(s[24])).toEqual([7, 2]);
    expect(seqs(s[25])).toEqual([5, 2, 1]);
    expect(seqs(s[26])).toEqual([2, 1]);
    expect(seqs(s[27])).toEqual([3, 6]);
    expect(seqs(s[28])).toEqual([6]);
    expect(seqs(s[29])).toEqual([8]);
  });

  it('orders each search by its engine relevance, best first, and agrees where one match is plainly better', async () => {
    const { k1 } = both;
    const words = ftsQuery('passive voice headings') as string;
    const [sqlite, pg] = [await both.storage.judgments.search(k1, words, {}), await judgmentsRepo(both.pg).search(k1, words, {})];
    for (const rows of [sqlite, pg]) {
      expect(rows.length).toBeGreaterThan(2);
      for (let i = 1; i < rows.length; i++) expect((rows[i - 1] as ScoredJudgment).rank).toBeGreaterThanOrEqual((rows[i] as ScoredJudgment).rank);
      expect(rows.every((r) => r.rank > 0)).toBe(true);
    }
    // j1 has all three words (twice over): first on both engines
    expect(sqlite[0]?.id).toBe('j1');
    expect(pg[0]?.id).toBe('j1');
  });

  it('searches on the judgments_search index (the expression the repository matches on is the index expression)', async () => {
    const plan = await both.engine.read(async (db) => {
      const { sql } = await import('drizzle-orm');
      await db.execute(sql`set enable_seqscan = off`);
      try {
        const result = await db.execute(sql`explain select seq from judgments where ${searchDocument(both.pg.t.judgments)} @@ to_tsquery('english', 'voice')`);
        return result.rows.map((r) => Object.values(r).join('')).join('\n');
      } finally {
        await db.execute(sql`reset enable_seqscan`);
      }
    });
    expect(plan).toContain('judgments_search');
  });
});

describe('judgments: where the english configuration and FTS5 differ', () => {
  it('PostgreSQL keeps diacritics and drops its stop words; FTS5 (unicode61, porter) folds the one and keeps the other', async () => {
    const { k2 } = both;
    const made = { organizationId: 'o9', documentId: null, source: 'comment', sourceId: 'c', createdAt: T, reviewerId: 'r', reviewerName: null };
    const diacritic: NewJudgment = { ...made, id: 'jd', decision: 'comment', subject: 'Café names stay as written', reasoning: null };
    const stop: NewJudgment = { ...made, id: 'js', decision: 'comment', subject: 'Very long sentences', reasoning: null };
    await both.storage.judgments.insert(k2, diacritic);
    await both.storage.judgments.insert(k2, stop);
    const pg = judgmentsRepo(both.pg);
    await pg.insert(k2, diacritic);
    await pg.insert(k2, stop);
    const ids = (rows: ScoredJudgment[]) => rows.map((r) => r.id);
    const where = { organizationId: 'o9' };
    expect(ids(await both.storage.judgments.search(k2, '"cafe"', where))).toEqual(['jd']);
    expect(ids(await pg.search(k2, '"cafe"', where))).toEqual([]);
    expect(ids(await both.storage.judgments.search(k2, '"very"', where))).toEqual(['js']);
    expect(ids(await pg.search(k2, '"very"', where))).toEqual([]);
    // the same words otherwise
    expect(ids(await both.storage.judgments.search(k2, '"café" OR "sentences"', where)).sort()).toEqual(['jd', 'js']);
    expect(ids(await pg.search(k2, '"café" OR "sentences"', where)).sort()).toEqual(['jd', 'js']);
  });
});
