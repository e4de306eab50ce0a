import { defaultConfig } from '../config.ts';
import { heldBeforeAtStart, LeaseLostError, type LeaseDeps } from '../db/repos/lease.ts';
import type { Logger } from '../log.ts';

/** A job interrupted this many times (a crash or kill each time) is failed rather than retried forever. */
export const MAX_ATTEMPTS = 3;

/**
 * A job's failure whose message is the caller's to read (a job's status shows it): the document gone, the new id
 * taken. Any other error (a refused statement, a bug) fails the job with INTERNAL_JOB_FAILURE, its cause kept in the
 * server's log only: a driver's message names SQL and internal ids.
 */
export class JobFailure extends Error {
  override name = 'JobFailure';
}

/** The status message of a job that failed for a reason other than a JobFailure. */
export const INTERNAL_JOB_FAILURE = 'internal error: the job could not finish (the server log has the cause)';

/** What the runner knows of a job: its id, and how many times it was started (this run included, once taken). */
export interface Job {
  id: string;
  attempts: number;
}

/**
 * One kind of durable background job (document migrations, user-data erasure), made from the storage it works on.
 * Jobs live in the database; `run` commits the `completed` state last, after all of the work (a document migration
 * in the same unit of work; an erasure once its files and SQLite's write-ahead log are gone too), and the work is
 * safe to do again: a crash leaves the job in progress, and it runs again.
 */
export interface JobQueue<J extends Job = Job> {
  name: string;
  /**
   * Takes the oldest pending job of any key (or one whose holder's lease ran out before `now`): in_progress, held
   * until `leaseUntil`, its `attempts` counting this run. Each job goes to one taker, across instances too.
   */
  claim(now: number, leaseUntil: number): Promise<J | undefined>;
  /**
   * Does the job; a throw fails it, with the error's message for a JobFailure. Its completion applies only while the job is still
   * held under the lease its claim set (`leaseUntil`): else it throws LeaseLostError and its outcome does not apply
   * (what it did before it learnt that must be safe to do again: the job's new holder runs it again).
   */
  run(job: J): Promise<void>;
  /** Fails the job, if it is still held under the lease its claim set; whether it did. */
  markFailed(job: J, message: string): Promise<boolean>;
  /** Jobs left in_progress by a holder gone (leases held until before `heldBefore`): back to pending, or failed after MAX_ATTEMPTS. */
  recover(heldBefore: number): Promise<void>;
}

export interface JobRunner {
  /** Looks for pending work soon (after the current event-loop turn, so the caller's answer goes first). */
  wake(): void;
  /**
   * At the server's start: takes the lease length of the app's config, puts back (or fails) the jobs a crash
   * interrupted, then looks for work. The database's only instance takes back every job in progress; an instance of
   * a cluster only those whose lease ran out (`heldBeforeAtStart`).
   */
  recover(deps: LeaseDeps): Promise<void>;
  /**
   * In a cluster, every so often (lease-watch.ts): puts back (or fails) the jobs whose lease ran out, then looks
   * for work. Claims do it too, but only when this instance has work to look for.
   */
  takeBackExpired(): Promise<void>;
  close(): Promise<void>;
}

/** The jobs' lease until the server's start says otherwise: the default config's. */
const DEFAULT_LEASE_MS = defaultConfig().leases.jobMs;

export function createJobRunner(deps: { log: Logger }, queues: readonly JobQueue[]): JobRunner {
  const { log } = deps;
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;
  let leaseMs = DEFAULT_LEASE_MS;

  const drain = async () => {
    for (const queue of queues) {
      const claim = () => {
        const now = Date.now();
        return queue.claim(now, now + leaseMs);
      };
      for (let job = await claim(); job && !closed; job = await claim()) {
        // Yield between the two commits so that status polls can see in_progress on a busy server.
        await new Promise((resolve) => setImmediate(resolve));
        if (closed) return;
        try {
          await queue.run(job);
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          // taken over (its lease ran out): the job is another run's now, whose outcome stands
          if (error instanceof LeaseLostError || !(await queue.markFailed(job, error instanceof JobFailure ? message : INTERNAL_JOB_FAILURE))) {
            log.warn(`${queue.name} job's lease ran out; its outcome is dropped`, { jobId: job.id, error: message });
            continue;
          }
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
    async recover(start) {
      leaseMs = start.config.leases.jobMs;
      const heldBefore = heldBeforeAtStart(start, Date.now());
      for (const queue of queues) await queue.recover(heldBefore);
      wake();
    },
    async takeBackExpired() {
      if (closed) return;
      const now = Date.now();
      for (const queue of queues) await queue.recover(now);
      wake();
    },
    async close() {
      closed = true;
      await running;
    },
  };
}
