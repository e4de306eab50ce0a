// The round trip of issue 47: fixtures loaded into one database, written out again by `hearth export --as-fixtures`
// (a running server's SQLite), loaded into a fresh database: the API answers the same, Yjs content included, and the
// second database exports the same file.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportFixtures } from '../../server/testing/fixtures-export.ts';
import { loadFixtures, readFixturesFile } from '../../server/testing/fixtures.ts';
import { runHearth, tempDirs } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { EXAMPLE, EXAMPLE_FILE, expectExampleOverApi } from './fixtures-checks.ts';

const dirs = tempDirs();
let first: TestServer;
let second: TestServer;
beforeAll(async () => {
  [first, second] = await Promise.all([startTestServer({}, { engine: 'sqlite' }), startTestServer({}, { engine: 'sqlite' })]);
  await loadFixtures(first.server.app, readFixturesFile(EXAMPLE_FILE));
});
afterAll(async () => {
  await Promise.all([first.close(), second.close()]);
  dirs.cleanup();
});

describe('hearth export --as-fixtures', () => {
  it('writes a fixtures file that loads into a fresh database with the same answers, Yjs content included', async () => {
    const out = join(dirs.make('hearth-fixtures-export-'), 'state.json');
    const run = await runHearth(['export', '--as-fixtures', out, '--data-dir', first.dataDir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`as fixtures to ${out}`);
    const exported = readFixturesFile(out);
    // the default workspace of the first database comes along, with the fixtures' own
    expect(exported.workspaces.map((w) => w.id)).toContain(first.credentials.workspaceId);
    const acme = exported.workspaces.find((w) => w.id === EXAMPLE.workspaceId);
    expect(acme?.authToken).toBe(EXAMPLE.workspaceAuthToken);
    expect(acme?.apiKeys[0]?.authTokens).toEqual([{ token: EXAMPLE.authToken, name: 'Default Auth Token' }]);

    await loadFixtures(second.server.app, exported);
    await expectExampleOverApi(second.url);
    // the first database's default workspace works in the second one too
    expect(second.credentials.workspaceId).not.toBe(first.credentials.workspaceId);

    const again = await exportFixtures(second.server.app, { workspaceId: EXAMPLE.workspaceId });
    expect(again.workspaces).toEqual([JSON.parse(readFileSync(out, 'utf8')).workspaces.find((w: { id: string }) => w.id === EXAMPLE.workspaceId)]);
  });
});
