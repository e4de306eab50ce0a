// `npm run bench [suite…]`: every figure next to a floor or a peer measured in the same run on this machine.
// Servers run in child processes; load comes from this process (autocannon) over loopback.
import { cpus } from 'node:os';
import { CONNECTIONS, DURATION, type Row } from './harness.ts';
import * as access from './suites/access.ts';
import * as crdt from './suites/crdt.ts';
import * as feed from './suites/feed.ts';
import * as httpFloor from './suites/http-floor.ts';
import * as memory from './suites/memory.ts';
import * as webhooks from './suites/webhooks.ts';

const suites: Record<string, { title: string; run(): Promise<Row[]> }> = { 'http-floor': httpFloor, access, feed, crdt, webhooks, memory };
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(suites);

console.log(`${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, ${CONNECTIONS} connections, ${DURATION} s per measurement, ${new Date().toISOString()}`);
for (const name of chosen) {
  const suite = suites[name];
  if (!suite) throw new Error(`Unknown suite ${name}; suites: ${Object.keys(suites).join(', ')}`);
  const rows = await suite.run();
  console.log(`\n## ${suite.title}\n`);
  console.log('| scenario | req/s | p50 ms | p99 ms | vs |');
  console.log('|---|---:|---:|---:|---|');
  for (const r of rows) console.log(`| ${r.scenario} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.vs ?? ''} |`);
}
