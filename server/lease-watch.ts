// The look for expired leases of a cluster (docs/storage.md, "Leases on queued work"). Work an instance took under
// a lease and then left (it died, or lost the database for longer than the lease) is taken back once the lease runs
// out; a claim does that, but only when an instance looks for work of its own, and one with nothing to do never
// looks. So each instance of a cluster looks every so often. A lone server needs none: it takes back everything at
// its start, and nobody else holds its work.
import type { AppContext } from './context.ts';
import { sweepOrphanAttachments } from './services/recordings.ts';

export interface LeaseWatch {
  /** Stops looking; waits for a look in progress. */
  stop(): Promise<void>;
}

/**
 * Every `config.leases.lookMs` on average (each wait drawn between half and one and a half of it, so that instances
 * started together do not look in step), takes back work whose lease ran out: jobs back to pending (or failed after
 * their attempts), mail released for relay, agent executions ended as abandoned; wakes the webhook delivery
 * worker; and sweeps attachment bytes no row points at. Nothing for a lone server.
 */
export function watchLeases(app: AppContext): LeaseWatch {
  if (!app.cluster) return { stop: async () => undefined };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let looking: Promise<void> | undefined;

  const kinds: Array<[string, () => Promise<void>]> = [
    ['jobs', () => app.jobs.takeBackExpired()],
    ['mail', () => app.mail.takeBackExpired()],
    ['agent executions', () => app.agents.takeBackExpired(app)],
    // The delivery worker leases deliveries itself (their next_attempt_at moved to the lease's end) and sets its
    // timer for the earliest pending one, leased ones included; but it sets it from what was pending at its last
    // pass, so deliveries another instance made and took after that, then left, and events an instance wrote but
    // never fanned out, would wait for this instance's next event. A wake makes it look. (A server whose keys use no
    // webhooks runs no worker: none is started for this.)
    [
      'webhook deliveries',
      async () => {
        if (await app.storage.webhooks.inUse()) app.webhooks.wake();
      },
    ],
    // Not a lease, but left behind the same way: attachment bytes whose row never committed (the instance that
    // stored them died first) or was deleted with its document; a lone server sweeps at its start only.
    ['orphan attachments', async () => void (await sweepOrphanAttachments(app))],
  ];

  const look = async () => {
    for (const [kind, takeBack] of kinds) {
      if (stopped) return;
      try {
        await takeBack();
      } catch (error) {
        // the database unreachable, say: the next look tries again
        app.log.warn('expired leases not taken back', { kind, error: error instanceof Error ? error.message : String(error) });
      }
    }
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(
      () => {
        looking = look().finally(() => {
          looking = undefined;
          schedule();
        });
      },
      app.config.leases.lookMs * (0.5 + Math.random()),
    );
    timer.unref();
  };
  schedule();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await looking;
    },
  };
}
