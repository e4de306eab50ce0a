import { defineConfig } from 'vitest/config';

/**
 * `npm run test:pg` (issue 31): the PostgreSQL engine and what it needs, against throwaway PostgreSQL and Redis
 * servers the tests start themselves (test/helpers/external-servers.ts; Debian's postgresql and redis-server must be
 * installed, never started as services). Not part of `npm test`, which needs nothing but Node: a newcomer's first
 * run works on a machine without them. Today: the throwaway servers themselves, the engine (migrations, units of
 * work), and the parity of each ported repository with its SQLite original; the whole API suite on PostgreSQL
 * once every repository is ported.
 */
export default defineConfig({
  test: {
    include: ['test/infra/**/*.test.ts', 'test/pg/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
