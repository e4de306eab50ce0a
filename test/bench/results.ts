// What a bench run leaves behind: a JSON file per run in bench-results/ (for comparisons across runs) and the
// generated section of BENCHMARKS.md, rebuilt from the newest run of every suite.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { ROOT, type Goal, type Row } from './harness.ts';

export const RESULTS_DIR = join(ROOT, 'bench-results');
const BENCHMARKS = join(ROOT, 'BENCHMARKS.md');
const BEGIN = '<!-- bench:begin -->';
const END = '<!-- bench:end -->';

export interface ResultRow {
  scenario: string;
  figure: number;
  unit: string;
  p50: number | null;
  p99: number | null;
  baseline: { scenario: string; figure: number } | null;
  ratio: number | null;
  goal: (Goal & { text: string }) | null;
  met: boolean | null;
  note: string | null;
}

export interface SuiteResult {
  title: string;
  date: string;
  commit: string;
  seconds: number;
  /** The 1-minute load average when the suite started (raised for minutes by the suite before it). */
  loadAverageAtStart: number;
  /** The share of the machine's CPU busy in the second before the suite started (quietStart). */
  busyAtStart?: number;
  rows: ResultRow[];
}

export interface Machine {
  cpus: number;
  model: string;
  memoryGb: number;
  node: string;
  platform: string;
}

export interface RunResult {
  date: string;
  commit: string;
  machine: Machine;
  benchSeconds: number;
  connections: number;
  suites: Record<string, SuiteResult>;
}

export function machine(): Machine {
  return {
    cpus: cpus().length,
    model: cpus()[0]?.model.trim() ?? 'unknown cpu',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

/** The checked-out commit, marked `+dirty` when the working tree has changes (other work in progress). */
export function gitCommit(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${sha}+dirty` : sha;
  } catch {
    return 'unknown';
  }
}

export const currentLoad = () => Math.round(loadavg()[0]! * 100) / 100;

/** Above this share of the machine's CPU busy before a suite, its figures are marked as not to quote. */
const BUSY_SHARE = 0.25;

/** The share of all cores' time that was not idle over `ms` milliseconds. */
async function busyShare(ms: number): Promise<number> {
  const times = () => {
    let idle = 0;
    let total = 0;
    for (const { times: t } of cpus()) {
      idle += t.idle;
      total += t.user + t.nice + t.sys + t.idle + t.irq;
    }
    return { idle, total };
  };
  const before = times();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = times();
  const total = after.total - before.total;
  return total > 0 ? Math.round((1 - (after.idle - before.idle) / total) * 100) / 100 : 0;
}

/**
 * Waits, up to 20 s, for a second in which the machine is quiet (the previous suite's servers and files may
 * still be going away) and returns the busy share of the last second measured: the other work a suite started
 * with. The 1-minute load average cannot tell that: the suite before raises it for minutes after it ends.
 */
export async function quietStart(): Promise<number> {
  let share = 1;
  for (let i = 0; i < 20 && share > BUSY_SHARE; i++) share = await busyShare(1000);
  return share;
}

/** Whether a suite started on a busy machine (runs from before `busyAtStart` was measured: by load average). */
export const startedBusy = (suite: SuiteResult, machine: Machine) =>
  suite.busyAtStart !== undefined ? suite.busyAtStart > BUSY_SHARE : suite.loadAverageAtStart > machine.cpus / 2;

const goalText = (goal: Goal, unit: string) => {
  const [what, op] = goal.kind.split(/(?=[<>])/) as ['ratio' | 'value', string];
  return what === 'ratio'
    ? `${op.replace('>=', '≥').replace('<=', '≤')} ${formatRatio(goal.value)} of baseline`
    : `${op.replace('>=', '≥').replace('<=', '≤')} ${goal.value} ${unit}`;
};

function formatRatio(r: number) {
  return r >= 10 ? `${r.toFixed(1)}×` : `${Math.round(r * 100)}%`;
}

/** A suite's rows as stored: the figure, its baseline, the ratio, and the goal with whether it is met. */
export function toResultRow(row: Row): ResultRow {
  const figure = row.figure ?? row.rps;
  const ratio = row.baseline && row.baseline.figure !== 0 ? figure / row.baseline.figure : null;
  let met: boolean | null = null;
  if (row.goal) {
    const compared = row.goal.kind.startsWith('ratio') ? ratio : figure;
    met = compared === null ? false : row.goal.kind.endsWith('>=') ? compared >= row.goal.value : compared <= row.goal.value;
  }
  // rows that are not latency measurements (a size, a start time) carry 0 and 0
  const latency = row.p50 !== 0 || row.p99 !== 0;
  return {
    scenario: row.scenario,
    figure: round(figure),
    unit: row.unit ?? 'req/s',
    p50: latency ? row.p50 : null,
    p99: latency ? row.p99 : null,
    baseline: row.baseline ? { scenario: row.baseline.scenario, figure: round(row.baseline.figure) } : null,
    ratio: ratio === null ? null : Math.round(ratio * 1000) / 1000,
    goal: row.goal ? { ...row.goal, text: goalText(row.goal, row.unit ?? 'req/s') } : null,
    met,
    note: row.vs ?? null,
  };
}

const round = (x: number) => (Math.abs(x) >= 100 ? Math.round(x) : Math.round(x * 100) / 100);

const fileStamp = (date: string) => date.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');

/** Writes bench-results/<date>-<suites>.json and returns its path. */
export function writeRun(run: RunResult, allSuites: boolean): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${fileStamp(run.date)}-${allSuites ? 'all' : Object.keys(run.suites).join('+')}.json`);
  writeFileSync(file, JSON.stringify(run, null, 2) + '\n');
  return file;
}

export function readRun(file: string): RunResult {
  let run: RunResult;
  try {
    run = JSON.parse(readFileSync(file, 'utf8')) as RunResult;
  } catch (error) {
    throw new Error(`Cannot read the bench result ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!run || typeof run !== 'object' || !run.suites) throw new Error(`${file} is not a bench result (no "suites")`);
  return run;
}

/** For every suite, its newest result among the stored runs, with the run it came from. */
export function latestPerSuite(): Map<string, { suite: SuiteResult; run: RunResult }> {
  const latest = new Map<string, { suite: SuiteResult; run: RunResult }>();
  if (!existsSync(RESULTS_DIR)) return latest;
  const runs = readdirSync(RESULTS_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => readRun(join(RESULTS_DIR, f)))
    .sort((a, b) => a.date.localeCompare(b.date));
  for (const run of runs) for (const [name, suite] of Object.entries(run.suites)) latest.set(name, { suite, run });
  return latest;
}

const number = (x: number) => (Math.abs(x) >= 100 ? Math.round(x).toLocaleString('en-US') : String(x));

/** One suite as a Markdown table. */
export function suiteTable(suite: SuiteResult): string {
  const lines = ['| scenario | figure | p50 ms | p99 ms | vs (floor or peer) | ratio | goal | |', '|---|---:|---:|---:|---|---:|---|---|'];
  for (const r of suite.rows) {
    const vs = [r.baseline ? `${r.baseline.scenario}: ${number(r.baseline.figure)} ${r.unit}` : '', r.note ?? ''].filter(Boolean).join('; ');
    const met = r.met === null ? '' : r.met ? 'met' : '**not met**';
    lines.push(
      `| ${r.scenario} | ${number(r.figure)} ${r.unit} | ${r.p50 ?? ''} | ${r.p99 ?? ''} | ${vs.replace(/\|/g, '\\|')} | ${r.ratio === null ? '' : formatRatio(r.ratio)} | ${r.goal?.text ?? ''} | ${met} |`,
    );
  }
  return lines.join('\n');
}

const describeMachine = (m: Machine) => `${m.cpus} × ${m.model}, ${m.memoryGb} GB, ${m.platform}, Node ${m.node}`;

/** Rebuilds the generated section of BENCHMARKS.md (between the markers) from the newest result of each suite. */
export function updateBenchmarksMd(suiteOrder: string[]) {
  const latest = latestPerSuite();
  const parts = [
    BEGIN,
    '## Latest figures (generated by `npm run bench`; edit outside the markers)',
    '',
    'Rerun: `npm run bench` (all suites, ~15 min) or `npm run bench -- <suite…>` (' +
      suiteOrder.map((s) => `\`${s}\``).join(', ') +
      '); ' +
      '`BENCH_SECONDS` sets each measurement (default 5), `BENCH_CONNECTIONS` the load connections (default 50), `BENCH_ROUNDS` the alternated rounds of the http-floor comparisons (default 5); ' +
      '`npm run bench -- <suite…> --compare bench-results/<file>.json` prints the change of every row against an earlier run. ' +
      'Each run is stored in `bench-results/`; a suite left out of a run keeps its last figures here. ' +
      'A goal is met or not met as the row stands: nothing is rounded in its favour.',
    '',
  ];
  for (const name of suiteOrder) {
    const entry = latest.get(name);
    if (!entry) continue;
    const { suite, run } = entry;
    parts.push(`### ${suite.title} (\`${name}\`)`, '');
    parts.push(
      `${suite.date.slice(0, 16).replace('T', ' ')} UTC, commit ${suite.commit}, ${describeMachine(run.machine)}; ` +
        `BENCH_SECONDS=${run.benchSeconds}, ${run.connections} connections; load average ${suite.loadAverageAtStart} at start` +
        (suite.busyAtStart !== undefined ? `, ${Math.round(suite.busyAtStart * 100)} % of the CPU busy in the second before it` : '') +
        `; took ${Math.round(suite.seconds)} s.` +
        // other work on the machine moves every figure: say so where the figures are read
        (startedBusy(suite, run.machine) ? ' **The machine was busy with other work: figures to check the harness, not to quote.**' : ''),
      '',
      suiteTable(suite),
      '',
    );
  }
  parts.push(END);
  const section = parts.join('\n');
  const current = existsSync(BENCHMARKS) ? readFileSync(BENCHMARKS, 'utf8') : '# Benchmarks\n';
  const begin = current.indexOf(BEGIN);
  const end = current.indexOf(END);
  let next: string;
  if (begin !== -1 && end > begin) next = current.slice(0, begin) + section + current.slice(end + END.length);
  else {
    // first time: after the title and the introduction (the first paragraphs before the first section heading)
    const firstSection = current.indexOf('\n## ');
    next =
      firstSection === -1 ? `${current.trimEnd()}\n\n${section}\n` : `${current.slice(0, firstSection + 1)}${section}\n\n${current.slice(firstSection + 1)}`;
  }
  writeFileSync(BENCHMARKS, next);
}

const LOWER_IS_BETTER = new Set(['ms', 's', 'MB', 'KiB', 'µs']);

/** The change of every row of this run against an earlier run, matched by suite and scenario. */
export function compareRuns(now: RunResult, before: RunResult): string {
  const lines = [
    `Compared with ${before.date} (commit ${before.commit}):`,
    '',
    '| suite | scenario | before | now | change | |',
    '|---|---|---:|---:|---:|---|',
  ];
  for (const [name, suite] of Object.entries(now.suites)) {
    const earlier = before.suites[name];
    for (const row of suite.rows) {
      const old = earlier?.rows.find((r) => r.scenario === row.scenario);
      if (!old) {
        lines.push(`| ${name} | ${row.scenario} | (new) | ${number(row.figure)} ${row.unit} | | |`);
        continue;
      }
      if (old.figure === 0) {
        lines.push(`| ${name} | ${row.scenario} | 0 | ${number(row.figure)} ${row.unit} | | no ratio to 0 |`);
        continue;
      }
      const change = (row.figure - old.figure) / old.figure;
      const better = LOWER_IS_BETTER.has(row.unit) ? change < 0 : change > 0;
      const verdict = Math.abs(change) < 0.05 ? 'same (within 5%)' : better ? 'better' : 'worse';
      const goal = old.met !== row.met && row.met !== null ? (row.met ? '; goal now met' : '; goal no longer met') : '';
      lines.push(
        `| ${name} | ${row.scenario} | ${number(old.figure)} | ${number(row.figure)} ${row.unit} | ${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)}% | ${verdict}${goal} |`,
      );
    }
  }
  return lines.join('\n');
}
