import { afterAll, describe, expect, it } from 'vitest';
import { runHearth, startCliServer, tempDirs } from '../helpers/cli.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { startTestServer } from '../helpers/server.ts';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

const open = (link: string) => fetch(link, { redirect: 'manual' });

describe('admin sign-in links from the command line', () => {
  it('npm start prints a one-time link that signs a browser in once', async () => {
    const server = await startCliServer(dirs.make());
    try {
      const link = server.output().match(/Sign in\s+(http:\/\/\S+)/)?.[1];
      expect(link).toMatch(/\/admin\/signin\?token=/);
      expect((await open(link!)).status).toBe(303);
      expect((await open(link!)).status).toBe(403);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('hearth signin-link makes a new link for the server running on the data dir, for any of its workspaces', async () => {
    const t = await startTestServer();
    try {
      const made = await runHearth(['signin-link', '--data-dir', t.dataDir, '--json']);
      expect(made.code, made.stderr).toBe(0);
      const { link, workspaceId } = JSON.parse(made.stdout);
      expect(workspaceId).toBe(t.credentials.workspaceId);
      const res = await open(link);
      expect(res.status).toBe(303);
      const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
      const session = await fetch(t.url + '/admin/api/session', { headers: { cookie, 'x-hearth-ui': '1' } });
      expect(await session.json()).toEqual({ signedIn: true, workspaceId: t.credentials.workspaceId });
      expect((await open(link)).status).toBe(403);

      const other = await createWorkspace(t);
      const theirs = await runHearth(['signin-link', '--data-dir', t.dataDir, '--workspace', other.workspaceId]);
      expect(theirs.code).toBe(0);
      const signedIn = await open(theirs.stdout.split('\n')[0]!);
      const theirCookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!;
      expect(await (await fetch(t.url + '/admin/api/session', { headers: { cookie: theirCookie, 'x-hearth-ui': '1' } })).json()).toEqual({
        signedIn: true,
        workspaceId: other.workspaceId,
      });

      // a restart voids the links of the run before
      const unused = JSON.parse((await runHearth(['signin-link', '--data-dir', t.dataDir, '--json'])).stdout).link as string;
      await t.restart();
      expect((await open(unused.replace(/127\.0\.0\.1:\d+/, new URL(t.url).host))).status).toBe(403);
    } finally {
      await t.close();
    }
  });

  it('refuses when no server runs on the data dir', async () => {
    const dataDir = dirs.make();
    const t = await startTestServer({ dataDir });
    await t.server.close();
    const res = await runHearth(['signin-link', '--data-dir', dataDir]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('No Hearth server is running');
  });
});
