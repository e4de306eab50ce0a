// Tenant isolation, the long run: 20,000 requests of other keys naming A's ids, a new seed each run, six in
// flight at once (the sweep itself, and what it checks: helpers/isolation-sweep.ts). `npm test` runs a short one
// with a fixed seed (test/api/tenant-isolation.test.ts).
// Reproduce a run with ISOLATION_SEED=<seed printed> (ISOLATION_REQUESTS sets the count).
import { describeIsolationSweep } from './helpers/isolation-sweep.ts';

describeIsolationSweep({
  name: 'isolation',
  total: Number(process.env.ISOLATION_REQUESTS ?? 20_000),
  seed: Number(process.env.ISOLATION_SEED ?? Date.now() % 2 ** 31),
  concurrency: 6,
  round: 2_000,
  seedingCalls: 600,
  timeoutMs: 20 * 60_000,
});
