// The event loop's side of the Yjs worker thread (yjs-worker.ts): one thread per process, started on first use and
// not keeping the process alive while idle; a thread that dies fails its jobs and is started again for the next.
import { Worker } from 'node:worker_threads';
import { ApiError, type ErrorStatus } from '../errors.ts';
import { YJS_WORKER_ENTRY } from '../paths.ts';
import type { CrdtType } from './content.ts';
import type { Expected } from './digest.ts';

/** Updates up to this size are applied, and stored documents up to it rendered, on the event loop (a few ms). */
export const OFFLOAD_BYTES = 64 * 1024;
/** Structs per slice of a large update: 2,000 nested XML elements apply in 5–10 ms here. */
export const SLICE_STRUCTS = 2_000;

export type ToYjsWorker =
  | { id: number; kind: 'slice'; update: Uint8Array; maxStructs: number }
  | { id: number; kind: 'render'; snapshot: Uint8Array | null; log: Uint8Array[]; type: CrdtType; contentKey: string; infer: boolean }
  | { id: number; kind: 'reproduce'; snapshot: Uint8Array; expected: Expected }
  | { id: number; kind: 'merge'; updates: Uint8Array[] };
export type FromYjsWorker =
  | { id: number; ok: true; slices: Uint8Array[] }
  | { id: number; ok: true; data: unknown }
  | { id: number; ok: true; reproduces: boolean }
  | { id: number; ok: true; merged: Uint8Array }
  | { id: number; ok: false; message: string; status?: ErrorStatus; range?: boolean };

let worker: Worker | undefined;
let nextId = 0;
const waiting = new Map<number, { resolve: (answer: FromYjsWorker) => void; reject: (error: Error) => void }>();

function thread(): Worker {
  if (worker) return worker;
  const started = new Worker(YJS_WORKER_ENTRY);
  started.unref();
  const fail = (error: Error) => {
    if (worker === started) worker = undefined;
    for (const job of waiting.values()) job.reject(error);
    waiting.clear();
  };
  started.on('message', (answer: FromYjsWorker) => {
    const job = waiting.get(answer.id);
    waiting.delete(answer.id);
    if (waiting.size === 0) started.unref();
    job?.resolve(answer);
  });
  started.on('error', fail);
  started.on('exit', (code) => fail(new Error(`the Yjs worker thread stopped (exit code ${code})`)));
  worker = started;
  return started;
}

function ask(job: ToYjsWorker, transfer: ArrayBuffer[] = []): Promise<FromYjsWorker> {
  const w = thread();
  return new Promise((resolve, reject) => {
    waiting.set(job.id, { resolve, reject });
    w.ref();
    w.postMessage(job, transfer);
  });
}

/** An error answer as the error the work would have thrown on the event loop. */
function thrown(answer: Extract<FromYjsWorker, { ok: false }>): Error {
  if (answer.status) return new ApiError(answer.status, answer.message);
  return answer.range ? new RangeError(answer.message) : new Error(answer.message);
}

/** `update` cut into slices that apply in order to the same result (slices.ts); a small one as it is. */
export async function sliceOffThread(update: Uint8Array): Promise<Uint8Array[]> {
  if (update.length <= OFFLOAD_BYTES) return [update];
  const answer = await ask({ id: nextId++, kind: 'slice', update, maxStructs: SLICE_STRUCTS });
  if (!answer.ok) throw thrown(answer);
  return (answer as { slices: Uint8Array[] }).slices;
}

/**
 * The content of a stored document (its snapshot and log applied to a new document), read as `readContent` reads
 * it: in the worker thread when large, else here. Throws what `readContent` throws (FAILED_PRECONDITION when too deep).
 */
export async function renderStored(
  stored: { snapshot: Uint8Array | null; log: Uint8Array[] },
  render: { type: CrdtType; contentKey: string; infer: boolean },
  inline: () => unknown,
): Promise<unknown> {
  const size = (stored.snapshot?.length ?? 0) + stored.log.reduce((sum, u) => sum + u.length, 0);
  if (size <= OFFLOAD_BYTES) return inline();
  const answer = await ask({ id: nextId++, kind: 'render', ...stored, ...render });
  if (!answer.ok) throw thrown(answer);
  return (answer as { data: unknown }).data;
}

/**
 * Whether a snapshot loads into a document of the expected content and state vector (digest.ts), checked in the
 * worker thread: the compaction of a large document (store.ts) waits for it without holding the event loop.
 */
export async function reproducesOffThread(snapshot: Uint8Array, expected: Expected): Promise<boolean> {
  const answer = await ask({ id: nextId++, kind: 'reproduce', snapshot, expected });
  if (!answer.ok) throw thrown(answer);
  return (answer as { reproduces: boolean }).reproduces;
}

/** Updates merged into one through a document (build.ts, `mergeNow`: a corrupted one is left out), in the worker. */
export async function mergeOffThread(updates: Uint8Array[]): Promise<Uint8Array> {
  const answer = await ask({ id: nextId++, kind: 'merge', updates });
  if (!answer.ok) throw thrown(answer);
  return (answer as { merged: Uint8Array }).merged;
}
