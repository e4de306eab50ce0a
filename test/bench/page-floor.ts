// The floor of a computed notifications page: the same page of 50 that /v2/notifications/get answers for one
// document (newest first), read in process by ONE prepared better-sqlite3 statement and serialized with
// JSON.stringify; no HTTP, no authentication, no validation, no answer objects built (the statement:
// page-statement.ts). Run in its own process by the http-floor suite, against the data dir of a running server (read-only; WAL lets both
// read).
//
//   tsx test/bench/page-floor.ts <db> <apiKeyId> <organizationId> <documentId> <seconds>
//
// Loops run + JSON.stringify for 0.5 s of warm-up, then for <seconds>, and prints one JSON line: pages per second,
// this process's CPU time (user + system, process.cpuUsage) per page in µs, per-page latency (p50, p99, mean) in ms, the
// bytes of one page and its first and last ids (the suite checks they are the server's).
import { openPageStatement } from './page-statement.ts';

const [file, apiKeyId, organizationId, documentId, secondsText] = process.argv.slice(2);
const seconds = Number(secondsText);
if (!file || !apiKeyId || !organizationId || !documentId || !(seconds > 0)) {
  throw new Error('usage: page-floor.ts <db> <apiKeyId> <organizationId> <documentId> <seconds>');
}

const { db, page } = openPageStatement(file);

let body = '';
const once = () => {
  body = JSON.stringify(page.all(apiKeyId, organizationId, documentId));
};

const warmUpUntil = performance.now() + 500;
while (performance.now() < warmUpUntil) once();

const times: number[] = [];
const cpuBefore = process.cpuUsage();
const started = performance.now();
const until = started + seconds * 1000;
while (performance.now() < until) {
  const t0 = performance.now();
  once();
  times.push(performance.now() - t0);
}
const elapsed = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
const rows = page.all(apiKeyId, organizationId, documentId);
db.close();

times.sort((a, b) => a - b);
const mean = Math.round((times.reduce((sum, t) => sum + t, 0) / times.length) * 1000) / 1000;
const at = (p: number) => Math.round((times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))] ?? 0) * 1000) / 1000;
console.log(
  JSON.stringify({
    pagesPerSecond: times.length / elapsed,
    pages: times.length,
    cpuUs: (cpu.user + cpu.system) / times.length,
    p50: at(50),
    p99: at(99),
    mean,
    bytes: Buffer.byteLength(body),
    rows: rows.length,
    firstId: rows[0]?.id,
    lastId: rows.at(-1)?.id,
  }),
);
