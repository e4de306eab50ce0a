// Propagation latency at a steady rate (issue 31): one writer sends edits at a fixed pace to one room that 50
// readers follow, for each server in alternated rounds, and the tail of the time from the writer's send to each
// reader's observer is compared. Edits are scheduled against absolute times (the n-th is due at start + n /
// rate), so a late timer does not slow the pace; the latency is taken from the actual send. The first second is a
// warm-up and not counted. The bench process drives every client and shares the machine's cores with the server.
import type { Client } from './crdt-clients.ts';
import { cpuMicros, percentile } from './harness.ts';

const num = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};

export const STEADY = {
  readers: 50,
  /** Edits per second from the writer (BENCH_STEADY_RATE). */
  rate: num('BENCH_STEADY_RATE', 200),
  /** Seconds measured per round, after a 1 s warm-up (BENCH_STEADY_SECONDS). */
  seconds: num('BENCH_STEADY_SECONDS', 10),
  warmupSeconds: 1,
  /** Alternated rounds per server (BENCH_STEADY_ROUNDS). */
  rounds: Math.floor(num('BENCH_STEADY_ROUNDS', 5)),
};

/** Past this after the last send, a reader still missing edits means a lost update: fail rather than hang. */
const DRAIN_TIMEOUT_MS = 30_000;

export interface SteadyResult {
  p50: number;
  p99: number;
  max: number;
  /** Sends that left more than 2 ms after their due time (the bench process itself was busy). */
  lateSends: number;
  /** The server's CPU time (user + system) per edit over the round, in µs (where /proc tells it). */
  serverCpuUs: number | undefined;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const round1 = (x: number) => Math.round(x * 10) / 10;

/** One round: a writer and `STEADY.readers` readers on `room`, edits at `STEADY.rate` for warm-up + `STEADY.seconds`. */
export async function steadyRoom(connect: (room: string) => Client, room: string, serverPid: number | undefined): Promise<SteadyResult> {
  const writer = connect(room);
  const readers = Array.from({ length: STEADY.readers }, () => connect(room));
  try {
    await Promise.all([writer.synced, ...readers.map((r) => r.synced)]);
    const interval = 1000 / STEADY.rate;
    const warmup = Math.round(STEADY.warmupSeconds * STEADY.rate);
    const total = warmup + Math.round(STEADY.seconds * STEADY.rate);
    const sentAt: number[] = [];
    const latencies: number[] = [];
    let complete = 0;
    let resolveAll: () => void;
    const allSeen = new Promise<void>((resolve) => (resolveAll = resolve));
    for (const reader of readers) {
      let seen = 0;
      reader.doc.getArray<number>('edits').observe((event) => {
        const now = performance.now();
        for (const item of event.changes.added) {
          for (const index of item.content.getContent() as number[]) {
            if (index >= warmup) latencies.push(now - (sentAt[index] as number));
            seen++;
          }
        }
        if (seen === total && ++complete === readers.length) resolveAll();
      });
    }
    const edits = writer.doc.getArray<number>('edits');
    let lateSends = 0;
    let cpuBefore: ReturnType<typeof cpuMicros> | undefined;
    const start = performance.now() + 20;
    for (let i = 0; i < total; i++) {
      if (i === warmup && serverPid !== undefined) cpuBefore = cpuMicros(serverPid);
      const due = start + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await sleep(Math.ceil(wait));
      const now = performance.now();
      if (now - due > 2) lateSends++;
      sentAt[i] = now;
      edits.push([i]);
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`stalled: ${complete} of ${readers.length} readers saw all ${total} edits ${DRAIN_TIMEOUT_MS / 1000} s after the last`)),
        DRAIN_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([allSeen, timeout]);
    } finally {
      clearTimeout(timer);
    }
    const cpuAfter = serverPid !== undefined && cpuBefore ? cpuMicros(serverPid) : undefined;
    latencies.sort((a, b) => a - b);
    return {
      p50: round1(percentile(latencies, 50)),
      p99: round1(percentile(latencies, 99)),
      max: round1(latencies[latencies.length - 1] ?? 0),
      lateSends,
      serverCpuUs: cpuBefore && cpuAfter ? Math.round((cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system) / (total - warmup)) : undefined,
    };
  } finally {
    for (const c of [writer, ...readers]) c.destroy();
  }
}

export const medianOf = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
