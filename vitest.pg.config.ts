import { defineConfig } from 'vitest/config';

/**
 * `npm run test:pg` (issue 31): the API suite again, every test server on PostgreSQL, plus the PostgreSQL engine's
 * own tests, against throwaway PostgreSQL and Redis servers started once for the run
 * (test/helpers/external-servers-setup.ts; Debian's postgresql and redis-server must be installed, never started
 * as services). Each test server gets a database of its own (test/helpers/pg-database.ts). Not part of
 * `npm test`, which needs nothing but Node: a newcomer's first run works on a machine without them.
 */
/**
 * Files left out of the PostgreSQL run, each for what it reads besides the API: files about the SQLite engine itself,
 * with no PostgreSQL counterpart to check.
 */
const SQLITE_ENGINE = [
  'test/api/storage.test.ts', // WAL checkpoints and autocheckpoint pages of hearth.db
  'test/api/page-plans.test.ts', // SQLite's query plans of the pages (EXPLAIN QUERY PLAN)
  'test/api/security/file-modes.test.ts', // the modes of hearth.db and its -wal/-shm files
  'test/crdt/corrupted-updates.test.ts', // corrupt update rows written into hearth.db by hand
  'test/webhooks/delivery-store.test.ts', // webhooks.db beside hearth.db, and an older Hearth's state moved out of it
  'test/api/users/add-equivalence.test.ts', // the rows of hearth.db's connections compared before and after
  'test/api/users/add-batch.test.ts', // the statements a batch runs on hearth.db's connection
];

export default defineConfig({
  test: {
    include: [
      'test/infra/**/*.test.ts',
      'test/pg/**/*.test.ts',
      'test/api/**/*.test.ts',
      'test/crdt/**/*.test.ts',
      'test/webhooks/**/*.test.ts',
      'test/admin/**/*.test.ts',
      'test/cluster/**/*.test.ts',
      // the engines side by side (issue 43): SQLite and PostgreSQL servers answer one generated sequence alike
      'test/reliability/differential.test.ts',
    ],
    exclude: SQLITE_ENGINE,
    globalSetup: ['test/helpers/external-servers-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
