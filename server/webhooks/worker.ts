// The delivery worker thread: runs the delivery engine (engine.ts) away from the thread that answers requests.
// It owns `webhooks.db`, reads `hearth.db` through a query-only connection, and asks the main thread for the
// few writes `hearth.db` needs (protocol.ts). Started by dispatcher.ts through worker-entry.mjs. Since it holds a
// connection to `hearth.db` off the request thread, it also runs that database's checkpointer (db/checkpointer.ts).
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { compileWithUnpeekedLimits } from '../db/bound-limit.ts';
import { startCheckpointer } from '../db/checkpointer.ts';
import { createSecrets, loadOrCreateMasterKey } from '../security/secrets.ts';
import { DELIVERY_CACHE_KIB, openDeliveryFile } from './delivery-file.ts';
import { createDeliveryEngine } from './engine.ts';
import type { FromWorker, ToWorker, WorkerData } from './protocol.ts';

const port = parentPort;
if (!port) throw new Error('worker.ts runs as a worker thread');
const data = workerData as WorkerData;
const post = (message: FromWorker) => port.postMessage(message);

const mainSqlite = new Database(join(data.dataDir, data.databaseFile));
mainSqlite.pragma('busy_timeout = 5000');
mainSqlite.pragma('query_only = ON');
// Its reads are the outbox's pending tail and a few configuration rows (see delivery-file.ts on the cache bound).
mainSqlite.pragma(`cache_size = -${DELIVERY_CACHE_KIB}`);
compileWithUnpeekedLimits(mainSqlite);
// A query-only connection may checkpoint: copying the log changes no content.
let lastCheckpointError: string | undefined;
const checkpointer = startCheckpointer(mainSqlite, {
  onError(error) {
    // Once per distinct failure, not once a pass.
    if (error.message === lastCheckpointError) return;
    lastCheckpointError = error.message;
    post({ type: 'log', level: 'warn', message: 'hearth.db checkpoint failed; the server thread checkpoints meanwhile', fields: { error: error.message } });
  },
});
const store = openDeliveryFile(data.dataDir, { readOnly: false });

let nextWrite = 0;
const pendingWrites = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();

const engine = createDeliveryEngine({
  main: mainSqlite,
  store,
  secrets: createSecrets(loadOrCreateMasterKey(data.dataDir)),
  settings: data.settings,
  version: data.version,
  log: (level, message, fields) => post({ type: 'log', level, message, ...(fields ? { fields } : {}) }),
  writeMain: (writes) =>
    new Promise<void>((resolve, reject) => {
      const id = nextWrite++;
      pendingWrites.set(id, { resolve, reject });
      post({ type: 'write', id, writes });
    }),
});

port.on('message', (message: ToWorker) => {
  switch (message.type) {
    case 'wake':
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
      try {
        post({ type: 'reply', id: message.id, result: engine.command(message.command) });
      } catch (error) {
        post({ type: 'reply', id: message.id, error: error instanceof Error ? error.message : String(error) });
      }
      return;
    case 'close':
      checkpointer.stop();
      void engine.close().finally(() => {
        store.close();
        mainSqlite.close();
        post({ type: 'closed' });
        port.close();
      });
      return;
  }
});

post({ type: 'ready' });
