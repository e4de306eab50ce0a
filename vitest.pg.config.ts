import { defineConfig } from 'vitest/config';

/**
 * `npm run test:pg` (issue 31): the API suite again, every test server on PostgreSQL, plus the PostgreSQL engine's
 * own tests, against throwaway PostgreSQL and Redis servers started once for the run
 * (test/helpers/external-servers-setup.ts; Debian's postgresql and redis-server must be installed, never started
 * as services). Each test server gets a database of its own (test/helpers/pg-database.ts). Not part of
 * `npm test`, which needs nothing but Node: a newcomer's first run works on a machine without them.
 */
/** Files that test the SQLite engine itself (its files, query plans, connections), each with what PostgreSQL has instead. */
const SQLITE_ONLY: string[] = [];

export default defineConfig({
  test: {
    include: [
      'test/infra/**/*.test.ts',
      'test/pg/**/*.test.ts',
      'test/api/**/*.test.ts',
      'test/crdt/**/*.test.ts',
      'test/webhooks/**/*.test.ts',
      'test/admin/**/*.test.ts',
    ],
    exclude: SQLITE_ONLY,
    globalSetup: ['test/helpers/external-servers-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
