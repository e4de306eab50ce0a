// Decision suggestions over 100,000 judgments: `/v2/memory/suggest` latency (goal: p95 under 50 ms) next to its
// floor, one ranked FTS5 search at the request's scope run in-process on the same database file.
// Judgments have no create operation (reference.md 3.14: they are recorded from review activity), so the data
// set is written straight into a stopped server's database (the FTS triggers index it), then the server restarts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ftsQuery, scopeTerm } from '../../../server/services/memory.ts';
import { startChild, type Row } from '../harness.ts';

export const title = 'Decision suggestions over 100,000 judgments (sequential requests)';

const JUDGMENTS = 100_000;
const REQUESTS = 600;
const DECISIONS = ['comment', 'resolve', 'approved', 'rejected', 'in_progress', 'agree', 'disagree', 'endorse', 'document_approved', 'document_rejected'];
const TOPICS =
  'pricing discount wording headline claim benchmark speed security compliance legal trademark logo colour contrast accessibility onboarding checklist invoice refund policy privacy cookie banner latency database backup restore export import migration schema index cache memory leak timeout retry webhook signature token session login password reset email template newsletter launch event keynote roadmap milestone estimate budget hiring interview offer contract vendor renewal translation glossary tone style guide typo grammar paragraph intro conclusion summary table chart figure caption footnote citation source quote interview screenshot video transcript subtitle'.split(
    ' ',
  );

// a deterministic generator, so every run measures the same data
let seed = 42;
const rand = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)] as T;
const sentence = (n: number) => Array.from({ length: n }, () => pick(TOPICS)).join(' ');
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

function seedJudgments(file: string) {
  const db = new Database(file);
  const apiKeyId = (db.prepare('SELECT id FROM api_keys LIMIT 1').get() as { id: string }).id;
  const insert = db.prepare(
    `INSERT INTO judgments (id, api_key_id, organization_id, document_id, decision, reviewer_id, reviewer_name, subject, reasoning, scope_terms, source, source_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, 'reaction', ?, ?)`,
  );
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < JUDGMENTS; i++) {
      const org = `org-${Math.floor(rand() * 20)}`;
      const doc = `${org}-doc-${Math.floor(rand() * 25)}`;
      const terms = `${scopeTerm('k', apiKeyId)} ${scopeTerm('o', apiKeyId, org)} ${scopeTerm('d', apiKeyId, org, doc)}`;
      insert.run(
        `jdg_bench_${i}`,
        apiKeyId,
        org,
        doc,
        pick(DECISIONS),
        `user-${Math.floor(rand() * 300)}`,
        sentence(12),
        sentence(8),
        terms,
        `src-${i}`,
        now - Math.floor(rand() * 730 * 86_400_000),
      );
    }
  })();
  db.close();
  return apiKeyId;
}

export async function run(): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-memory-'));
  const args = ['server/cli.ts', '--port', '0', '--data-dir', dataDir];
  let hearth = await startChild(args);
  const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
  await new Promise((resolve) => {
    hearth.child.once('exit', resolve);
    hearth.child.kill('SIGTERM');
  });
  const file = join(dataDir, 'hearth.db');
  const seedStarted = performance.now();
  const apiKeyId = seedJudgments(file);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  hearth = await startChild(args);
  const headers = { 'content-type': 'application/json', 'x-svc-api-key': creds.apiKey, 'x-svc-auth-token': creds.authToken };
  const queries = Array.from({ length: REQUESTS }, (_, i) => {
    const org = `org-${i % 20}`;
    const scope = i % 3 === 0 ? { organizationId: org, documentId: `${org}-doc-${i % 25}` } : i % 3 === 1 ? { organizationId: org } : {};
    return { query: `should we change the ${sentence(2 + (i % 3))}?`, ...scope };
  });
  try {
    const suggest = async (q: object) => {
      const res = await fetch(hearth.url + '/v2/memory/suggest', { method: 'POST', headers, body: JSON.stringify({ data: q }) });
      if (res.status !== 200) throw new Error(`suggest: ${res.status} ${await res.text()}`);
      return res.json();
    };
    for (const q of queries.slice(0, 50)) await suggest(q); // warm-up
    const times: number[] = [];
    let withPrimary = 0;
    const started = performance.now();
    for (const q of queries) {
      const t0 = performance.now();
      const body = (await suggest(q)) as { result: { primary: unknown } };
      times.push(performance.now() - t0);
      if (body.result.primary) withPrimary++;
    }
    const seconds = (performance.now() - started) / 1000;
    times.sort((a, b) => a - b);

    // the floor: one ranked FTS5 search at the request's scope and the fetch of its rows, in-process, on the same file
    const db = new Database(file, { readonly: true });
    const pool = db.prepare(
      'SELECT rowid AS seq, bm25(judgments_fts, 1.0, 1.0, 0.0) AS rank FROM judgments_fts WHERE judgments_fts MATCH ? ORDER BY rowid DESC LIMIT 2000',
    );
    const rows = db.prepare('SELECT * FROM judgments WHERE seq IN (SELECT value FROM json_each(?))');
    const floor: number[] = [];
    for (const q of queries) {
      const o = 'organizationId' in q ? (q.organizationId as string) : undefined;
      const d = 'documentId' in q ? (q.documentId as string) : undefined;
      const term = d && o ? scopeTerm('d', apiKeyId, o, d) : o ? scopeTerm('o', apiKeyId, o) : scopeTerm('k', apiKeyId);
      const t0 = performance.now();
      const best = (pool.all(`{subject reasoning} : (${ftsQuery(q.query)}) AND scope_terms : "${term}"`) as Array<{ seq: number; rank: number }>)
        .sort((a, b) => a.rank - b.rank)
        .slice(0, 200);
      rows.all(JSON.stringify(best.map((b) => b.seq)));
      floor.push(performance.now() - t0);
    }
    db.close();
    floor.sort((a, b) => a - b);
    const p95 = percentile(times, 95);
    return [
      {
        scenario: `Hearth /v2/memory/suggest over 100,000 judgments, ${REQUESTS} queries at document, organization and API-key scope, p95`,
        rps: REQUESTS / seconds,
        p50: Math.round(percentile(times, 50) * 10) / 10,
        p99: Math.round(percentile(times, 99) * 10) / 10,
        figure: Math.round(p95 * 10) / 10,
        unit: 'ms',
        vs: `${withPrimary} of ${REQUESTS} had a primary; judgments seeded in ${seedSeconds.toFixed(1)} s`,
        baseline: { scenario: 'floor p95', figure: percentile(floor, 95) },
        goal: { kind: 'value<=', value: 50 },
      },
      {
        scenario: "floor: one ranked FTS5 search at the request's scope and its rows, in-process, no HTTP, p95",
        rps: 1000 / (floor.reduce((s, x) => s + x, 0) / floor.length),
        p50: Math.round(percentile(floor, 50) * 10) / 10,
        p99: Math.round(percentile(floor, 99) * 10) / 10,
        figure: Math.round(percentile(floor, 95) * 10) / 10,
        unit: 'ms',
      },
    ];
  } finally {
    hearth.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
