// The admin import without holding the server (issue 42): the body's bytes go to a thread of their own
// (import-worker.ts) that decodes, parses and checks them, and hands the rows back a message at a time; the unit of
// work writes one message's rows per step and lets other work run between steps. It is still one unit of work, so
// an import that fails changes nothing, and other writers wait for it (asynchronously) as for any other.
import { randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { AppContext } from '../context.ts';
import type { KeyRow, KeyTable } from '../db/repos/key-transfer.ts';
import type { TenantScope } from '../db/scope.ts';
import { IMPORT_WORKER_ENTRY } from '../paths.ts';
import type { FromImportWorker, ImportWorkerData } from './import-archive.ts';
import { forgetRooms } from '../services/crdt.ts';
import { newSigningSecret } from '../webhooks/crypto.ts';
import { EXPORT_FORMAT, EXPORT_TABLES, local, TransferRefused } from './transfer.ts';

/** Rows written per step: 250 rows of a busy table took ~10 ms here (2,000 took 250 ms on a loaded machine). */
const CHUNK_ROWS = 250;

export interface ImportReader {
  /** The key the archive is to go into, once the whole archive has been read and checked; or why it is refused. */
  head: Promise<{ apiKey: string } | { refused: string }>;
  /** The archive's rows, a table's at a time in the export's order (parents first). */
  chunks(): AsyncGenerator<{ table: KeyTable; rows: KeyRow[] }>;
  /** Stops the reader (an import refused after its head, or done). */
  stop(): void;
}

/** Starts reading an import's body off the event loop; `bytes` is given to the reader (unusable here after). */
export function readImport(bytes: Buffer): ImportReader {
  // the bytes move to the thread, unless they share their memory (node's pool of small Buffers): then a copy does
  const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? (bytes.buffer as ArrayBuffer) : new Uint8Array(bytes).buffer;
  const data: ImportWorkerData = { bytes: owned, format: EXPORT_FORMAT, tables: EXPORT_TABLES, chunkRows: CHUNK_ROWS };
  const worker = new Worker(IMPORT_WORKER_ENTRY, { workerData: data, transferList: [data.bytes] });
  // a server stopping mid-import does not wait for the reader (its import answers, refused, as the thread ends)
  worker.unref();
  const queue: FromImportWorker[] = [];
  let next = 0;
  let wake: (() => void) | undefined;
  let ended: Error | undefined;
  worker.on('message', (message: FromImportWorker) => {
    queue.push(message);
    wake?.();
  });
  worker.on('error', (error) => {
    ended ??= error;
    wake?.();
  });
  worker.on('exit', () => {
    ended ??= new Error('the import reader stopped before the end of the archive');
    wake?.();
  });
  async function take(): Promise<FromImportWorker> {
    for (;;) {
      if (next < queue.length) {
        const message = queue[next] as FromImportWorker;
        // what was taken is let go here (the unit of work holds the rows it is given until it ends)
        queue[next++] = { kind: 'end' };
        return message;
      }
      if (ended) throw ended;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  }
  const stop = () => void worker.terminate();
  const head = take().then(
    (message) =>
      message.kind === 'head' ? { apiKey: message.apiKey } : { refused: message.kind === 'refused' ? message.message : 'The body must be a JSON object.' },
    (error: unknown) => ({ refused: `The import could not be read: ${error instanceof Error ? error.message : String(error)}` }),
  );
  async function* chunks() {
    try {
      for (;;) {
        const message = await take();
        if (message.kind === 'end') return;
        if (message.kind !== 'rows') throw new Error(`unexpected ${message.kind} from the import reader`);
        // blobs come back as Uint8Arrays: Buffers again (without a copy) for the database drivers
        for (const row of message.rows)
          for (const [column, value] of Object.entries(row))
            if (value instanceof Uint8Array) row[column] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
        yield { table: message.table as KeyTable, rows: message.rows as KeyRow[] };
      }
    } finally {
      stop();
    }
  }
  return { head, chunks, stop };
}

/**
 * A webhook endpoint comes without its secrets (transfer.ts `local`), whatever the archive says. One the key has
 * now keeps its signing secrets (its receivers keep verifying); any other is added under a new id with a new
 * signing secret, as `hearth import --secrets omit` does: endpoint ids are unique across keys, and a row of the
 * archive must never replace another key's endpoint.
 */
async function endpointSecrets(app: Pick<AppContext, 'storage' | 'secrets'>, scope: TenantScope, rows: KeyRow[]) {
  for (const row of rows) {
    for (const column of Object.keys(row)) if (local('webhook_endpoints', column)) delete row[column];
    const own = typeof row.id === 'string' ? await app.storage.webhooks.endpoint(scope, row.id) : undefined;
    if (own) {
      row.secret_enc = own.secretEnc;
      row.previous_secret_enc = own.previousSecretEnc;
      row.previous_secret_expires_at = own.previousSecretExpiresAt;
    } else {
      row.id = `ep_${randomBytes(20).toString('base64url').slice(0, 27)}`;
      row.secret_enc = app.secrets.encrypt(newSigningSecret());
    }
  }
}

/** The columns an import leaves out: the data dir's own (transfer.ts `local`), but for the new signing secret set above. */
const importSkips = (table: KeyTable, column: string) =>
  local(table, column) && !(table === 'webhook_endpoints' && ['secret_enc', 'previous_secret_enc', 'previous_secret_expires_at'].includes(column));

/** Lets other work run: the next step of a long unit of work waits for the event loop's next turn. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Writes an import's rows into the key (rows with the same keys are replaced), in one unit of work, a chunk a step;
 * answers the rows written by table. Loaded Yjs documents whose rows were replaced are dropped once it commits.
 */
export async function importChunks(
  app: Pick<AppContext, 'storage' | 'crdt' | 'secrets'>,
  scope: TenantScope,
  chunks: AsyncIterable<{ table: KeyTable; rows: KeyRow[] }>,
) {
  // every chunk first (each arrives in a turn of its own): a unit of work PostgreSQL refuses is run again, and it
  // must find the same rows again
  const all: Array<{ table: KeyTable; rows: KeyRow[] }> = [];
  for await (const chunk of chunks) {
    if (chunk.table === 'webhook_endpoints') await endpointSecrets(app, scope, chunk.rows);
    all.push(chunk);
  }
  const imported: Record<string, number> = {};
  try {
    await app.storage.transaction(
      async () => {
        for (const key of Object.keys(imported)) delete imported[key];
        for (const { table, rows } of all) {
          const written = await app.storage.keyTransfer.importRows(scope, { [table]: rows }, importSkips);
          imported[table] = (imported[table] ?? 0) + (written.imported[table] ?? 0);
          // once committed: a room reloaded before would read the rows being replaced
          app.storage.afterCommit(() => forgetRooms(app, scope, written.rooms));
          await nextTurn();
        }
      },
      { bulk: true },
    );
  } catch (error) {
    throw new TransferRefused(`The import changed nothing: ${error instanceof Error ? error.message : String(error)}`);
  }
  return imported;
}
