// `hearth workspace rotate-token` (issue 42, point 10a) while the server runs on the same data dir (SQLite) or
// database (PostgreSQL): the server refuses the old token from the next call on, though it had verified and cached
// it, and answers the new one; credentials.json holds the new one for the default workspace.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHearth } from '../../../helpers/cli.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { call, startTestServer, workspaceHeaders, type TestServer } from '../../../helpers/server.ts';
import { CLEAN_ENV } from '../../../cli/data-dirs.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const hearth = (...args: string[]) => {
  const databaseUrl = t.server.app.config.databaseUrl;
  return runHearth([...args, '--data-dir', t.dataDir], { env: { ...CLEAN_ENV, ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }) } });
};
const getWith = (workspaceId: string, workspaceAuthToken: string) =>
  call(t.url, '/v2/workspace/get', {}, workspaceHeaders({ workspaceId, workspaceAuthToken }));

describe('hearth workspace rotate-token', () => {
  it("rotates a named workspace's token while the server runs: the old one is refused at once", async () => {
    const ws = await createWorkspace(t);
    expect((await getWith(ws.workspaceId, ws.workspaceAuthToken)).status).toBe(200);
    const run = await hearth('workspace', 'rotate-token', '--workspace', ws.workspaceId, '--json');
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { workspaceId: string; workspaceAuthToken: string };
    expect(out.workspaceId).toBe(ws.workspaceId);
    expect(out.workspaceAuthToken).toMatch(/^[0-9a-f]{32}$/);
    expect((await getWith(ws.workspaceId, ws.workspaceAuthToken)).status).toBe(403);
    expect((await getWith(ws.workspaceId, out.workspaceAuthToken)).status).toBe(200);
  }, 60_000);

  it("rotates the default workspace's token by default and rewrites credentials.json", async () => {
    const before = t.credentials;
    expect((await getWith(before.workspaceId, before.workspaceAuthToken)).status).toBe(200);
    const run = await hearth('workspace', 'rotate-token');
    expect(run.code, run.stderr).toBe(0);
    const token = /workspaceAuthToken=([0-9a-f]{32})/.exec(run.stdout)?.[1];
    expect(run.stdout).toContain(before.workspaceId);
    expect(token).toBeDefined();
    const file = JSON.parse(readFileSync(join(t.dataDir, 'credentials.json'), 'utf8')) as Record<string, string>;
    expect(file).toEqual({ ...before, workspaceAuthToken: token });
    expect((await getWith(before.workspaceId, before.workspaceAuthToken)).status).toBe(403);
    expect((await getWith(before.workspaceId, token as string)).status).toBe(200);
  }, 60_000);

  it('names an unknown workspace', async () => {
    const run = await hearth('workspace', 'rotate-token', '--workspace', 'workspace_nope');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No workspace workspace_nope');
  }, 60_000);
});
