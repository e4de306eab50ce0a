// The thread that reads an admin import (up to 256 MB of JSON): decoding, JSON.parse and the schema's check of a
// 42–56 MB archive held the server 3.4–7.5 s on the event loop (issue 42). Here they run beside it; the rows come
// back in messages of `chunkRows`, each decoded on the main thread in a moment, and written one message per step of
// the import's unit of work (admin/import-stream.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { importSchema, problemOf, type FromImportWorker, type ImportWorkerData } from './import-archive.ts';

const { bytes, format, tables, chunkRows } = workerData as ImportWorkerData;
const post = (message: FromImportWorker) => parentPort?.postMessage(message);

function read() {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(bytes).toString('utf8') || '{}');
  } catch {
    return post({ kind: 'refused', message: 'The body must be a JSON object.' });
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return post({ kind: 'refused', message: 'The body must be a JSON object.' });
  const parsed = importSchema(format, tables).safeParse(body);
  if (!parsed.success) return post({ kind: 'refused', message: problemOf(parsed.error) });
  const { apiKey, archive } = parsed.data;
  post({ kind: 'head', apiKey });
  const byTable = archive.tables as Record<string, Array<Record<string, unknown>> | undefined>;
  for (const table of tables) {
    const list = byTable[table];
    if (!list) continue;
    for (let i = 0; i < list.length; i += chunkRows) {
      // blobs as bytes here: the main thread receives them as Uint8Arrays
      const rows = list.slice(i, i + chunkRows).map((row) => {
        const out: Record<string, unknown> = {};
        for (const [column, value] of Object.entries(row)) {
          out[column] = value !== null && typeof value === 'object' ? Buffer.from((value as { $base64: string }).$base64, 'base64') : value;
        }
        return out;
      });
      post({ kind: 'rows', table, rows });
    }
  }
  post({ kind: 'end' });
}

read();
