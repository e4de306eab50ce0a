import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'test/unit/**/*.test.ts',
      'test/api/**/*.test.ts',
      'test/crdt/**/*.test.ts',
      'test/webhooks/**/*.test.ts',
      'test/admin/**/*.test.ts',
      'test/cli/**/*.test.ts',
    ],
    // better-sqlite3 is a native module: separate processes keep each file's database and server apart.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
