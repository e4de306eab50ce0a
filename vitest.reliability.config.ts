import { defineConfig } from 'vitest/config';

/**
 * `npm run test:reliability` (issue 9): crash, bad input, auth, limits and soak against real child servers.
 * Not part of `npm test`: the suite takes minutes (the soak alone SOAK_SECONDS, 300 by default).
 */
export default defineConfig({
  test: {
    // The registry-generated credential refusals live with the API tests; the suite runs them too rather than
    // keeping a second copy.
    include: ['test/reliability/**/*.test.ts', 'test/api/credentials.test.ts'],
    pool: 'forks',
    // One file at a time: each one loads the 2-core machine on its own, and the figures it prints (RSS, p99)
    // mean something only without a neighbour.
    fileParallelism: false,
    testTimeout: 10 * 60_000,
    hookTimeout: 120_000,
  },
});
