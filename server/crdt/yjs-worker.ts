// The Yjs worker thread (issue 42): the Yjs work whose time grows with what one client sent, done beside the event
// loop. It cuts a large update into slices that the live document applies one per turn (slices.ts), and renders a
// stored document's content for its crdt.update_data webhook (rebuilt from its snapshot and log, as events.ts did
// on the event loop: 70–130 ms for 30,000 nested XML elements), and checks that a large document's snapshot loads
// back into what the document holds before its compaction stores it (digest.ts), and merges a large history's
// oldest updates into one (build.ts). Started by offload.ts through yjs-worker-entry.mjs.
import { parentPort } from 'node:worker_threads';
import * as Y from 'yjs';
import { ApiError } from '../errors.ts';
import { mergeNow } from './build.ts';
import { emptyContent, readContent } from './content.ts';
import { reproducesNow } from './digest.ts';
import type { FromYjsWorker, ToYjsWorker } from './offload.ts';
import { sliceUpdate } from './slices.ts';

const port = parentPort;
if (!port) throw new Error('yjs-worker.ts runs as a worker thread');

function run(job: ToYjsWorker): FromYjsWorker {
  try {
    if (job.kind === 'slice') {
      const slices = sliceUpdate(job.update, job.maxStructs);
      return { id: job.id, ok: true, slices };
    }
    if (job.kind === 'merge') return { id: job.id, ok: true, merged: mergeNow(job.updates) };
    if (job.kind === 'reproduce') return { id: job.id, ok: true, reproduces: reproducesNow(job.snapshot, job.expected) };
    if (job.infer) return { id: job.id, ok: true, data: emptyContent(job.type) };
    const doc = new Y.Doc();
    try {
      doc.transact(() => {
        if (job.snapshot) Y.applyUpdate(doc, job.snapshot);
        for (const update of job.log) Y.applyUpdate(doc, update);
      });
      return { id: job.id, ok: true, data: readContent(doc, job.type, job.contentKey) };
    } finally {
      doc.destroy();
    }
  } catch (error) {
    if (error instanceof ApiError) return { id: job.id, ok: false, status: error.status, message: error.message };
    return { id: job.id, ok: false, message: error instanceof Error ? error.message : String(error), range: error instanceof RangeError };
  }
}

port.on('message', (job: ToYjsWorker) => {
  const answer = run(job);
  port.postMessage(answer, answer.ok && 'slices' in answer ? answer.slices.map((s) => s.buffer as ArrayBuffer) : []);
});
