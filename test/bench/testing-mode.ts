// Testing mode's figures (issue 47), against its goals: startHearth() at most 300 ms, reset() at most 50 ms on an
// empty-ish database, and `hearth exec` from invocation to the command's start at most 1 s; each next to a floor
// measured in the same run (a bare node process's start for exec). Runs the build (npm run build first), as a
// project that installed the package gets it:   npx tsx test/bench/testing-mode.ts [--runs N]
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type * as Testing from '../../types/testing.d.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BUILT = join(ROOT, 'dist', 'server', 'testing', 'index.js');
if (!existsSync(BUILT)) throw new Error('no build: run npm run build first');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' } } });
const runs = Number(values.runs);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const max = (xs: number[]) => Math.max(...xs);
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

async function call(url: string, path: string, data: unknown, headers: Record<string, string>) {
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ data }) });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
}

/** Time from spawning `argv` to the moment the command it runs starts (the command prints Date.now() at once). */
function untilCommandStarts(argv: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, argv, { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn' } });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => {
      const at = Number(out.trim().split('\n').at(-1));
      if (code !== 0 || !Number.isFinite(at)) reject(new Error(`exit ${code}: ${out}`));
      else resolve(at - started);
    });
  });
}

const importStart = performance.now();
const { startHearth } = (await import(BUILT)) as typeof Testing;
const importMs = performance.now() - importStart;

const starts: number[] = [];
const stops: number[] = [];
const resets: number[] = [];
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  const hearth = await startHearth({ logLevel: 'silent' });
  starts.push(performance.now() - t0);
  const headers = { 'x-svc-api-key': hearth.credentials.apiKey, 'x-svc-auth-token': hearth.credentials.authToken };
  // empty-ish: a few organizations with documents, users and a notification each, then reset
  for (let j = 0; j < 3; j++) {
    for (let k = 0; k < 3; k++) {
      await call(
        hearth.url,
        '/v2/organizations/documents/add',
        { organizationId: `o${k}`, createOrganization: true, documents: [{ documentId: `d${j}` }] },
        headers,
      );
      await call(
        hearth.url,
        '/v2/auth/permissions/add',
        { user: { userId: `u${j}` }, permissions: { resources: [{ type: 'document', id: `d${j}`, organizationId: `o${k}` }] } },
        headers,
      );
    }
    const r0 = performance.now();
    await hearth.reset();
    resets.push(performance.now() - r0);
  }
  const s0 = performance.now();
  await hearth.stop();
  stops.push(performance.now() - s0);
}

const floor: number[] = [];
const exec: number[] = [];
const print = ['-e', 'console.log(Date.now())'];
for (let i = 0; i < Math.min(runs, 5); i++) {
  floor.push(await untilCommandStarts(print));
  exec.push(await untilCommandStarts([join(ROOT, 'bin', 'hearth.mjs'), 'exec', '--', process.execPath, ...print]));
}

const rows = [
  ['import hearth/testing (once, cold)', fmt(importMs), '', ''],
  ['startHearth() (first, cold)', fmt(starts[0]!), '', '300 ms'],
  ['startHearth() (median of the others)', fmt(median(starts.slice(1))), fmt(max(starts.slice(1))), '300 ms'],
  ['reset() after 9 documents, 3 users', fmt(median(resets)), fmt(max(resets)), '50 ms'],
  ['stop()', fmt(median(stops)), fmt(max(stops)), ''],
  ['floor: node -e (process start)', fmt(median(floor)), fmt(max(floor)), ''],
  ['hearth exec: invocation → command start', fmt(median(exec)), fmt(max(exec)), '1000 ms'],
];
process.stdout.write(`testing mode (${runs} runs; ${new Date().toISOString()})\n`);
process.stdout.write(`${'what'.padEnd(44)}${'median'.padStart(12)}${'max'.padStart(12)}${'goal'.padStart(10)}\n`);
for (const [what, m, x, goal] of rows) process.stdout.write(`${what!.padEnd(44)}${m!.padStart(12)}${x!.padStart(12)}${goal!.padStart(10)}\n`);
