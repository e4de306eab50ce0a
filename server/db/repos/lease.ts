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
