import type { AppContext } from '../context.ts';
import { transaction, type Db } from '../db/client.ts';

/** A job interrupted this many times (a crash or kill each time) is failed rather than retried forever. */
export const MAX_ATTEMPTS = 3;

/**
 * One kind of durable background job (document migrations, user-data erasure). Jobs live in the database;
 * `run` commits the work and the `completed` state in one transaction, so a crash leaves either nothing done
 * (the job runs again) or everything.
 */
export interface JobQueue<J extends { id: string; attempts: number }> {
  name: string;
  next(db: Db): J | undefined;
  markStarted(db: Db, job: J): void;
  run(app: JobContext, job: J): void;
  markFailed(db: Db, job: J, message: string): void;
  /** Jobs left in_progress by a crash: back to pending, or failed after MAX_ATTEMPTS. */
  recover(tx: Db): void;
}

export type JobContext = Pick<AppContext, 'db' | 'sqlite' | 'config' | 'log' | 'accessEvents'>;

export interface JobRunner {
  /** Looks for pending work soon (after the current event-loop turn, so the caller's answer goes first). */
  wake(): void;
  recover(): void;
  close(): Promise<void>;
}

export function createJobRunner(app: JobContext, queues: Array<JobQueue<{ id: string; attempts: number }>>): JobRunner {
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;

  const drain = async () => {
    for (const queue of queues) {
      for (let job = queue.next(app.db); job && !closed; job = queue.next(app.db)) {
        queue.markStarted(app.db, job);
        // Yield between the two commits so that status polls can see in_progress on a busy server.
        await new Promise((resolve) => setImmediate(resolve));
        if (closed) return;
        try {
          queue.run(app, { ...job, attempts: job.attempts + 1 });
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          queue.markFailed(app.db, job, message);
          app.log.warn(`${queue.name} job failed`, { jobId: job.id, error: message });
        }
      }
    }
  };

  const wake = () => {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = new Promise<void>((resolve) => setImmediate(resolve))
      .then(drain)
      .catch((error: unknown) => app.log.error('job runner crashed', { error: String(error) }))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          wake();
        }
      });
  };

  return {
    wake,
    recover() {
      transaction(app.db, (tx) => {
        for (const queue of queues) queue.recover(tx);
      });
      wake();
    },
    async close() {
      closed = true;
      await running;
    },
  };
}
