import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    pool: 'forks',
    // one browser at a time on a 2-core machine
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
