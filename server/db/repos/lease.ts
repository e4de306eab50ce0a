import type { Config } from '../../config.ts';

/** `heldBefore` that counts every job in progress as abandoned: at the start of the database's only instance. */
export const EVERY_HOLDER = Number.MAX_SAFE_INTEGER;

/** What a runner of leased work (jobs, mail, agents) learns of the app at the server's start. */
export type LeaseDeps = { config: Pick<Config, 'leases'>; cluster?: unknown };

/**
 * Whose work counts as abandoned at an instance's start: the database's only instance takes back everything in
 * progress (its previous run's); an instance of a cluster only what is held under a lease that ran out, since live
 * instances hold the rest.
 */
export const heldBeforeAtStart = (deps: LeaseDeps, now: number) => (deps.cluster ? now : EVERY_HOLDER);

/**
 * A holder's write refused because the lease it took on the work ran out and the work was put back or taken over
 * (by another instance of a cluster, or a look for expired leases): its completion must not also apply. Thrown in
 * the unit of work that would have completed it, so that nothing of that run is kept.
 */
export class LeaseLostError extends Error {
  constructor(what: string) {
    super(`${what}: its lease ran out and it was taken back; this run's outcome is dropped`);
    this.name = 'LeaseLostError';
  }
}
