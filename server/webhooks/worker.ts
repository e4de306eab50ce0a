// The delivery worker thread: runs the delivery engine (engine.ts) away from the thread that answers requests.
// It owns `webhooks.db`, reads `hearth.db` through a query-only connection, and asks the main thread for the
// few writes `hearth.db` needs (protocol.ts); on PostgreSQL, it has a pool of its own to the one database, where
// the delivery state is, with the same division of the writes. Started by dispatcher.ts through worker-entry.mjs. Since it holds a
// connection to `hearth.db` off the request thread, it also runs that database's checkpointer (db/checkpointer.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { clock } from '../clock.ts';
import { openPostgresDeliveryWorkerStorage } from '../db/repos/postgres.ts';
import { openDeliveryWorkerStorage } from '../db/repos/webhook-delivery.ts';
import { createSecrets, loadMasterKey } from '../security/secrets.ts';
import { createDeliveryEngine } from './engine.ts';
import type { FromWorker, SentWebhook, ToWorker, WorkerData } from './protocol.ts';

const port = parentPort;
if (!port) throw new Error('worker.ts runs as a worker thread');
const data = workerData as WorkerData;
const post = (message: FromWorker) => port.postMessage(message);
// Hearth's time in this thread is the server's (testing mode moves it: server/clock.ts)
clock.setOffset(data.clockOffsetMs);

let lastCheckpointError: string | undefined;
// On PostgreSQL (DATABASE_URL) the delivery state is in its tables: loaded only then (it brings drizzle and pg)
const storage =
  data.databaseUrl === undefined
    ? openDeliveryWorkerStorage(data.dataDir, data.databaseFile, (error) => {
        // Once per distinct failure, not once a pass.
        if (error.message === lastCheckpointError) return;
        lastCheckpointError = error.message;
        post({ type: 'log', level: 'warn', message: 'hearth.db checkpoint failed; the server thread checkpoints meanwhile', fields: { error: error.message } });
      })
    : await openPostgresDeliveryWorkerStorage(data.databaseUrl);

let nextWrite = 0;
const pendingWrites = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();

const engine = createDeliveryEngine({
  queries: storage.queries,
  secrets: createSecrets(loadMasterKey(data.masterKeyFile, { create: false }).key),
  settings: data.settings,
  version: data.version,
  log: (level, message, fields) => post({ type: 'log', level, message, ...(fields ? { fields } : {}) }),
  writeMain: (writes) =>
    new Promise<void>((resolve, reject) => {
      const id = nextWrite++;
      pendingWrites.set(id, { resolve, reject });
      post({ type: 'write', id, writes });
    }),
  ...(data.capture ? { onSent: (delivery: SentWebhook) => post({ type: 'sent', delivery }) } : {}),
});

port.on('message', (message: ToWorker) => {
  switch (message.type) {
    case 'wake':
      engine.wake();
      return;
    case 'clock':
      clock.setOffset(message.offsetMs);
      engine.wake();
      return;
    case 'written': {
      const pending = pendingWrites.get(message.id);
      pendingWrites.delete(message.id);
      if (message.error === undefined) pending?.resolve();
      else pending?.reject(new Error(message.error));
      return;
    }
    case 'command':
      // answered once the command's change is committed
      engine.command(message.command).then(
        (result) => post({ type: 'reply', id: message.id, result }),
        (error: unknown) => post({ type: 'reply', id: message.id, error: error instanceof Error ? error.message : String(error) }),
      );
      return;
    case 'close':
      storage.stopCheckpointer();
      void engine
        .close(message.graceMs)
        .then(() => storage.close())
        .finally(() => {
          post({ type: 'closed' });
          port.close();
        });
      return;
  }
});

post({ type: 'ready' });
