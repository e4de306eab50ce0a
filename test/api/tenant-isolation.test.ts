// Tenant isolation in `npm test`: the reliability suite's sweep (test/reliability/helpers/isolation-sweep.ts),
// short and the same every run. Three keys hold the same ids (organization, documents, folder, users, group,
// notification, thread, reaction, activity, recording, editor document, agent, workflow, webhook endpoint): A,
// B (a second key of A's workspace) and C (another workspace's). About 2,000 requests generated from every
// operation's schema with a fixed seed, one at a time (the writes in the same order every run), go out with B's
// and C's credentials naming A's ids: first every read operation, then every operation. No answer may hold A's
// texts or secrets (nor B's texts to C, nor C's to B), and no row of A may change.
import { describeIsolationSweep } from '../reliability/helpers/isolation-sweep.ts';

describeIsolationSweep({
  name: 'isolation (short, fixed seed)',
  total: 2_000,
  seed: 30_2026,
  concurrency: 1,
  round: 500,
  seedingCalls: 300,
  timeoutMs: 180_000,
});
