import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

export interface PostResult {
  status: number;
  /** The `retry-after` header of the answer, if any. */
  retryAfter: string | null;
  /** The first `limit` bytes of the answer (the rest is discarded unread). */
  excerpt: string;
}

/**
 * POSTs deliveries from a worker thread (`send-worker.mjs`) with node:http keep-alive agents: a receiver gets many
 * deliveries in a row; reusing connections with the plain http client costs a fraction of the CPU of fetch, and
 * in the worker that CPU is spent on the other core instead of between the server's requests. The database stays
 * on the main thread (a second SQLite writer made requests wait on the write lock). Redirects are not followed.
 */
export function createTransport(options: { maxSockets: number }) {
  // Packaged in Electron, the worker file is unpacked next to the asar archive (electron-builder.yml asarUnpack).
  const file = fileURLToPath(new URL('./send-worker.mjs', import.meta.url)).replace(`app.asar${sep}`, `app.asar.unpacked${sep}`);
  const worker = new Worker(file, { workerData: { maxSockets: options.maxSockets } });
  // The worker must not keep a stopping process alive; requests in flight hold it (ref) while they run.
  worker.unref();
  let nextId = 0;
  const pending = new Map<number, { resolve: (r: PostResult) => void; reject: (e: Error) => void }>();
  const failAll = (error: Error) => {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  worker.on('message', (m: { id: number; status?: number; retryAfter?: string | null; excerpt?: string; error?: string }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (pending.size === 0) worker.unref();
    if (m.error !== undefined) p.reject(new Error(m.error));
    else p.resolve({ status: m.status ?? 0, retryAfter: m.retryAfter ?? null, excerpt: m.excerpt ?? '' });
  });
  worker.on('error', (error) => failAll(error));
  worker.on('exit', () => failAll(new Error('the webhook sender stopped')));
  return {
    post(url: string, headers: Record<string, string>, body: string, signal: AbortSignal, limit: number): Promise<PostResult> {
      return new Promise<PostResult>((resolve, reject) => {
        if (signal.aborted) {
          reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
          return;
        }
        const id = nextId++;
        pending.set(id, { resolve, reject });
        worker.ref();
        signal.addEventListener(
          'abort',
          () => {
            if (!pending.delete(id)) return;
            if (pending.size === 0) worker.unref();
            worker.postMessage({ type: 'abort', id });
            reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
          },
          { once: true },
        );
        worker.postMessage({ type: 'post', id, url, headers, body, limit });
      });
    },
    close() {
      failAll(new Error('the webhook sender stopped'));
      worker.postMessage({ type: 'close' });
      void worker.terminate();
    },
  };
}
