/**
 * `import { startHearth } from 'hearth/testing'` (package.json "exports"; types in types/testing.d.ts): Hearth in
 * the test process, in testing mode, on a free port of 127.0.0.1 with a temporary data dir. The same operations as
 * the HTTP testing API (routes.ts), called directly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StartHearthOptions, TestHearth, startHearth as StartHearthType } from '../../types/testing.d.ts';
import { clock, currentTime } from '../clock.ts';
import { createServer } from '../index.ts';
import { resetData } from './reset.ts';
import { moveClock } from './routes.ts';

export const startHearth: typeof StartHearthType = async (options: StartHearthOptions = {}): Promise<TestHearth> => {
  const temporary = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'hearth-'));
  let server: Awaited<ReturnType<typeof createServer>>;
  try {
    const overrides = {
      port: options.port ?? 0,
      host: '127.0.0.1',
      dataDir,
      logLevel: options.logLevel ?? 'warn',
      testing: true,
      ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
      ...(options.headerBrand ? { headerBrand: options.headerBrand } : {}),
    } as const;
    server = await createServer(overrides);
    if (options.fixtures !== undefined) {
      // loaded through the server itself, as its API would write them; a reset loads them again (reset.ts)
      const { loadFixtures, readFixturesFile } = await import('./fixtures.ts');
      const fixtures = readFixturesFile(options.fixtures);
      try {
        await loadFixtures(server.app, fixtures);
      } catch (error) {
        await server.close();
        throw error;
      }
      if (server.app.testing) server.app.testing.fixtures = fixtures;
    }
  } catch (error) {
    if (temporary) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const { app } = server;
  const testing = app.testing!;
  let stopped: Promise<void> | undefined;
  return {
    url: server.url,
    wsUrl: `${server.url.replace(/^http/, 'ws')}/yjs`,
    credentials: { ...server.credentials },
    dataDir,
    async reset(resetOptions = {}) {
      const result = await resetData(app, resetOptions.workspaceId);
      if (!result) throw new Error(`Workspace does not exist: ${resetOptions.workspaceId}`);
      return result;
    },
    stop: () =>
      (stopped ??= (async () => {
        await server.close();
        clock.setOffset(0);
        if (temporary && !options.keep) rmSync(dataDir, { recursive: true, force: true });
      })()),
    clock: {
      now: currentTime,
      advance: async (ms) => {
        if (!Number.isInteger(ms) || ms <= 0) throw new RangeError(`clock.advance(ms): a whole number of milliseconds above 0, not ${ms}`);
        return moveClock({ advanceMs: ms }).now;
      },
      set: async (ms) => moveClock({ to: ms }).now,
      reset: async () => void moveClock({ reset: true }),
    },
    outbox: {
      mail: (filter) => testing.mail(app.mail, filter),
      webhooks: (filter) => testing.webhooks(filter?.apiKeyId),
      clear: (filter) => testing.clear(app.mail, filter?.apiKeyId),
    },
  };
};
