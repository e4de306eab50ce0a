import type { Logger } from '../log.ts';

/** A job interrupted this many times (a crash or kill each time) is failed rather than retried forever. */
export const MAX_ATTEMPTS = 3;

/**
 * How long an instance holds a job it took (its lease): past that, another instance of a cluster takes it as
 * abandoned (its holder died). Longer than any job runs (a document's move, a user's erasure: seconds); a job that
 * outlives it may run twice, and each job's unit of work is written to be run again.
 */
export const JOB_LEASE_MS = 5 * 60_000;

/** `heldBefore` that counts every job in progress as abandoned: at the start of the database's only instance. */
export const EVERY_HOLDER = Number.MAX_SAFE_INTEGER;

/** What the runner knows of a job: its id, and how many times it was started (this run included, once taken). */
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
  /**
   * Takes the oldest pending job of any key (or one whose holder's lease ran out before `now`): in_progress, held
   * until `leaseUntil`, its `attempts` counting this run. Each job goes to one taker, across instances too.
   */
  claim(now: number, leaseUntil: number): Promise<J | undefined>;
  /** Does the job; a throw fails it with the error's message. */
  run(job: J): Promise<void>;
  markFailed(job: J, message: string): Promise<void>;
  /** Jobs left in_progress by a holder gone (leases held until before `heldBefore`): back to pending, or failed after MAX_ATTEMPTS. */
  recover(heldBefore: number): Promise<void>;
}

export interface JobRunner {
  /** Looks for pending work soon (after the current event-loop turn, so the caller's answer goes first). */
  wake(): void;
  /**
   * Puts back (or fails) the jobs a crash interrupted, then looks for work. The database's only instance (every
   * Hearth today: one server per data dir or PostgreSQL database) takes back every job in progress at its start;
   * in a cluster only leases that ran out are, as `claim` does.
   */
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
      const claim = () => {
        const now = Date.now();
        return queue.claim(now, now + JOB_LEASE_MS);
      };
      for (let job = await claim(); job && !closed; job = await claim()) {
        // Yield between the two commits so that status polls can see in_progress on a busy server.
        await new Promise((resolve) => setImmediate(resolve));
        if (closed) return;
        try {
          await queue.run(job);
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
      for (const queue of queues) await queue.recover(EVERY_HOLDER);
      wake();
    },
    async close() {
      closed = true;
      await running;
    },
  };
}
