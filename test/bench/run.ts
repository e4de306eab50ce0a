// `npm run bench [suite…] [--compare FILE.json]`: every figure next to a floor or a peer measured in the same run
// on this machine. Servers run in child processes; load comes from this process over loopback. The run is stored
// in bench-results/ and the generated section of BENCHMARKS.md is rebuilt (see results.ts).
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { CONNECTIONS, DURATION, ROOT, type Row } from './harness.ts';
import {
  compareRuns,
  currentLoad,
  gitCommit,
  machine,
  quietStart,
  readRun,
  suiteTable,
  toResultRow,
  updateBenchmarksMd,
  writeRun,
  type RunResult,
} from './results.ts';
import * as access from './suites/access.ts';
import * as cluster from './suites/cluster.ts';
import * as coldStart from './suites/cold-start.ts';
import * as crdt from './suites/crdt.ts';
import * as feed from './suites/feed.ts';
import * as httpFloor from './suites/http-floor.ts';
import * as idleMemory from './suites/idle-memory.ts';
import * as memory from './suites/memory.ts';
import * as start from './suites/start.ts';
import * as trace from './suites/trace.ts';
import * as webhooks from './suites/webhooks.ts';
import * as writeFloor from './suites/write-floor.ts';

const suites: Record<string, { title: string; run(): Promise<Row[]> }> = {
  'http-floor': httpFloor,
  'write-floor': writeFloor,
  access,
  feed,
  crdt,
  webhooks,
  memory,
  'cold-start': coldStart,
  'idle-memory': idleMemory,
  start,
  trace,
  cluster,
};
/** Suites run only when named: they need more than Node (the cluster suite: Debian's postgresql and redis-server). */
const BY_NAME_ONLY = new Set(['cluster']);

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: { compare: { type: 'string' }, help: { type: 'boolean' } },
});
if (values.help) {
  console.log(
    `npm run bench [-- suite… --compare FILE.json]\nsuites: ${Object.keys(suites).join(', ')} (cluster only when named: it starts PostgreSQL and Redis)\nenv: BENCH_SECONDS (default 5), BENCH_CONNECTIONS (default 50), BENCH_ROUNDS (default 5); crdt: BENCH_CRDT (scenarios: one-room, many-rooms, steady, rest, memory), BENCH_STEADY_RATE (200), BENCH_STEADY_SECONDS (10), BENCH_STEADY_ROUNDS (5), BENCH_CRDT_BASE (a built checkout, added as a peer); trace: BENCH_TRACE (trace, burst, offline), BENCH_TRACE_ROUNDS (3), BENCH_TRACE_EDITS (a prefix of the trace), BENCH_TRACE_UNLOAD=0 (skip the minute after unload)`,
  );
  process.exit(0);
}
const unknown = positionals.filter((name) => !suites[name]);
if (unknown.length) {
  console.error(`Unknown suite ${unknown.join(', ')}; suites: ${Object.keys(suites).join(', ')}`);
  process.exit(2);
}
// read before the run, so that a wrong path fails in a second rather than after twenty minutes
let before: RunResult | undefined;
try {
  before = values.compare ? readRun(values.compare) : undefined;
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
}
const chosen = positionals.length ? positionals : Object.keys(suites).filter((name) => !BY_NAME_ONLY.has(name));
// Hearth is measured as npm start runs it: built from the sources being measured
execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });

const run: RunResult = {
  date: new Date().toISOString(),
  commit: gitCommit(),
  machine: machine(),
  benchSeconds: DURATION,
  connections: CONNECTIONS,
  suites: {},
};
const m = run.machine;
console.log(`${m.cpus} × ${m.model}, Node ${m.node}, ${CONNECTIONS} connections, ${DURATION} s per measurement, commit ${run.commit}, ${run.date}`);
const failures: string[] = [];
for (const name of chosen) {
  const suite = suites[name]!;
  const busyAtStart = await quietStart();
  const started = performance.now();
  const loadAverageAtStart = currentLoad();
  const date = new Date().toISOString();
  let rows: Row[];
  try {
    rows = await suite.run();
  } catch (error) {
    // one broken suite must not cost the figures of the others
    console.error(`\n## ${suite.title}: FAILED\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    failures.push(name);
    continue;
  }
  const seconds = (performance.now() - started) / 1000;
  run.suites[name] = {
    title: suite.title,
    date,
    commit: run.commit,
    seconds: Math.round(seconds),
    loadAverageAtStart,
    busyAtStart,
    rows: rows.map(toResultRow),
  };
  console.log(`\n## ${suite.title} (${Math.round(seconds)} s)\n`);
  console.log(suiteTable(run.suites[name]!));
}

if (Object.keys(run.suites).length) {
  const file = writeRun(run, chosen.length === Object.keys(suites).length && failures.length === 0);
  updateBenchmarksMd(Object.keys(suites));
  console.log(`\nWrote ${file} and the generated section of BENCHMARKS.md.`);
  if (before) console.log(`\n${compareRuns(run, before)}`);
}
if (failures.length) {
  console.error(`\nFailed suites: ${failures.join(', ')}`);
  process.exitCode = 1;
}
// client libraries leave timers behind (y-websocket's awareness checks, keep-alive agents): the run is over
process.exit();
