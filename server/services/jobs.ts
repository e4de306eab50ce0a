import type { Logger } from '../log.ts';

/** A job interrupted this many times (a crash or kill each time) is failed rather than retried forever. */
export const MAX_ATTEMPTS = 3;

/** What the runner knows of a job: its id, and how many times it was started before. */
export interface Job {
  id: string;
  attempts: number;
}

/**
 * One kind of durable background job (document migrations, user-data erasure), made from the storage it works on.
 * Jobs live in the database; `run` commits the work and the `completed` state in one unit of work, so a crash leaves
 * either nothing done (the job runs again) or everything.
 */
export interface JobQueue<J extends Job = Job> {
  name: string;
  /** The oldest pending job of any key. */
  next(): Promise<J | undefined>;
  markStarted(job: J): Promise<void>;
  /** Does the job (its `attempts` counts this run); a throw fails it with the error's message. */
  run(job: J): Promise<void>;
  markFailed(job: J, message: string): Promise<void>;
  /** Jobs left in_progress by a crash: back to pending, or failed after MAX_ATTEMPTS. */
  recover(): Promise<void>;
}

export interface JobRunner {
  /** Looks for pending work soon (after the current event-loop turn, so the caller's answer goes first). */
  wake(): void;
  /** Puts back (or fails) the jobs a crash interrupted, then looks for work. */
  recover(): Promise<void>;
  close(): Promise<void>;
}

export function createJobRunner(deps: { log: Logger }, queues: readonly JobQueue[]): JobRunner {
  const { log } = deps;
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;

  const drain = async () => {
    for (const queue of queues) {
      for (let job = await queue.next(); job && !closed; job = await queue.next()) {
        await queue.markStarted(job);
        // Yield between the two commits so that status polls can see in_progress on a busy server.
        await new Promise((resolve) => setImmediate(resolve));
        if (closed) return;
        try {
          await queue.run({ ...job, attempts: job.attempts + 1 });
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          await queue.markFailed(job, message);
          log.warn(`${queue.name} job failed`, { jobId: job.id, error: message });
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
      .catch((error: unknown) => log.error('job runner crashed', { error: String(error) }))
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
    async recover() {
      for (const queue of queues) await queue.recover();
      wake();
    },
    async close() {
      closed = true;
      await running;
    },
  };
}
