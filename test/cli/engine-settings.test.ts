// DATABASE_URL and REDIS_URL are named by the runtime contract for the PostgreSQL engine and the cluster; until this
// build has that engine, a server given either refuses to start, so that nobody's data goes to SQLite unnoticed.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runHearth, tempDirs } from '../helpers/cli.ts';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

describe('DATABASE_URL and REDIS_URL', () => {
  for (const [name, value] of [
    ['DATABASE_URL', 'postgres://hearth@127.0.0.1:5432/hearth'],
    ['REDIS_URL', 'redis://127.0.0.1:6379'],
  ] as const) {
    it(`${name}: refuses to start, naming the setting, and writes no database`, async () => {
      const dataDir = dirs.make();
      const run = await runHearth(['--port', '0', '--data-dir', dataDir], { env: { [name]: value } });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain(`${name} is set, but this build of Hearth has no PostgreSQL engine yet`);
      expect(existsSync(join(dataDir, 'hearth.db'))).toBe(false);
    });
  }
});
