import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../server/cli/commands/index.ts';
import { runHearth, startHearth, tempDirs } from '../helpers/cli.ts';
import { apiKeyHeaders, call, dataOf, workspaceHeaders } from '../helpers/server.ts';
import { CLEAN_ENV } from './data-dirs.ts';

const temp = tempDirs();
let dataDir: string;
let credentials: { workspaceId: string; apiKey: string; authToken: string };
const hearth = (...args: string[]) => runHearth(args, { env: CLEAN_ENV });

beforeAll(async () => {
  dataDir = join(temp.make(), 'data');
  const server = await startHearth(['--port', '0', '--data-dir', dataDir], { env: CLEAN_ENV });
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
  credentials = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
}, 180_000);
afterAll(() => temp.cleanup());

describe('the command list', () => {
  it('names each command as its module does (commands load on use: the list holds only names and summaries)', async () => {
    for (const entry of commands) expect((await entry.load()).name).toBe(entry.name);
  });
});

describe('hearth --help', () => {
  it('lists every command, and every command answers --help with its usage and options', async () => {
    const overview = await hearth('--help');
    expect(overview.code).toBe(0);
    for (const command of commands) expect(overview.stdout).toContain(`  ${command.name} `);
    // a few at a time: each is a whole node process
    const helps = new Map<string, Awaited<ReturnType<typeof hearth>>>();
    for (let i = 0; i < commands.length; i += 4) {
      const batch = commands.slice(i, i + 4);
      const results = await Promise.all(batch.map((command) => hearth(...command.name.split(' '), '--help')));
      for (const [j, command] of batch.entries()) helps.set(command.name, results[j]!);
    }
    for (const command of commands) {
      const help = helps.get(command.name)!;
      expect(help.code, command.name).toBe(0);
      expect(help.stdout, command.name).toContain(`Usage: hearth ${command.name}`);
      expect(help.stdout, command.name).toContain('Options');
      expect(help.stdout, command.name).toContain('Example');
    }
  }, 300_000);

  it('answers unknown commands, unknown options and missing arguments with one line and exit code 2', async () => {
    const cases: [string[], string][] = [
      [['bogus'], 'unknown command "bogus"'],
      [['workspace', 'delete'], 'unknown command "workspace delete": choose one of create, list, settings, rotate-token'],
      [['backup', '--data-dir', dataDir, '--nope'], "Unknown option '--nope'; see npx hearth backup --help"],
      [['backup', '--data-dir', dataDir], 'backup needs --out DIR'],
      [['apikey', 'tokens', '--data-dir', dataDir], 'apikey tokens needs --api-key ID'],
      [['workspace', 'settings', '--data-dir', dataDir, '--plan', 'gold'], '--plan takes free or paid, not "gold"'],
      [['workspace', 'create', '--data-dir', dataDir, '--owner-email', 'not-an-email'], '--owner-email: must be a valid email address'],
      [['workspace', 'list', '--data-dir', join(dataDir, 'typo')], 'No Hearth data dir at'],
    ];
    for (const [args, message] of cases) {
      const result = await hearth(...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(result.stderr, args.join(' ')).toContain(message);
      expect(result.stdout, args.join(' ')).toBe('');
    }
    const group = await hearth('workspace');
    expect(group).toMatchObject({ code: 2, stderr: expect.stringContaining('Usage: hearth workspace <create|list|settings|rotate-token>') });
  }, 300_000);
});

describe('workspace and apikey commands', () => {
  it('create a workspace and keys whose credentials work against a server, with --json results that parse', async () => {
    const created = await hearth(
      'workspace',
      'create',
      '--data-dir',
      dataDir,
      '--owner-email',
      'Ann@Example.com',
      '--workspace-name',
      'CI',
      '--plan',
      'paid',
      '--self-serve',
      'on',
      '--max-production-keys',
      '1',
      '--json',
    );
    expect(created.code).toBe(0);
    const workspace = JSON.parse(created.stdout);
    expect(workspace).toMatchObject({
      name: 'CI',
      ownerEmail: 'ann@example.com',
      plan: 'paid',
      selfServeProduction: true,
      maxProductionKeys: 1,
      workspaceId: expect.stringMatching(/^workspace_/),
    });

    const list = JSON.parse((await hearth('workspace', 'list', '--data-dir', dataDir, '--json')).stdout) as { workspaceId: string; isDefault: boolean }[];
    expect(list.map((w) => w.workspaceId)).toEqual([credentials.workspaceId, workspace.workspaceId]);
    expect(list[0]!.isDefault).toBe(true);

    const production = JSON.parse(
      (await hearth('apikey', 'create', '--data-dir', dataDir, '--workspace', workspace.workspaceId, '--type', 'production', '--name', 'Live', '--json'))
        .stdout,
    );
    expect(production).toMatchObject({
      workspaceId: workspace.workspaceId,
      type: 'production',
      apiKeyName: 'Live',
      ownerEmail: 'ann@example.com',
      authToken: expect.stringMatching(/^yauth_/),
    });
    // the workspace's maximum of production keys holds for the CLI as for the API
    const second = await hearth('apikey', 'create', '--data-dir', dataDir, '--workspace', workspace.workspaceId, '--type', 'production');
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('maximum of 1 production API keys');

    const keys = JSON.parse((await hearth('apikey', 'list', '--data-dir', dataDir, '--workspace', workspace.workspaceId, '--json')).stdout) as {
      apiKey: string;
      type: string;
    }[];
    expect(keys.map((k) => k.apiKey)).toEqual([workspace.apiKey, production.apiKey]);
    const tokens = JSON.parse((await hearth('apikey', 'tokens', '--data-dir', dataDir, '--api-key', production.apiKey, '--json')).stdout);
    expect(tokens).toEqual([{ token: production.authToken, name: 'Default Auth Token', domains: [] }]);
    const unknownKey = await hearth('apikey', 'tokens', '--data-dir', dataDir, '--api-key', 'nope');
    expect(unknownKey).toMatchObject({ code: 1, stderr: expect.stringContaining('No API key nope') });

    const settings = JSON.parse(
      (await hearth('workspace', 'settings', '--data-dir', dataDir, '--workspace', workspace.workspaceId, '--plan', 'free', '--json')).stdout,
    );
    expect(settings).toMatchObject({ workspaceId: workspace.workspaceId, plan: 'free' });

    // the credentials printed by the CLI are accepted by a server on the data dir
    const server = await startHearth(['--port', '0', '--data-dir', dataDir], { env: CLEAN_ENV });
    try {
      const added = await call(server.url, '/v2/organizations/add', { organizations: [{ organizationId: 'cli-org' }] }, apiKeyHeaders(production));
      expect(added.status).toBe(200);
      const got = await call(server.url, '/v2/workspace/apikeys/get', {}, workspaceHeaders(workspace));
      expect(got.status).toBe(200);
      expect(dataOf<{ apiKey: string }[]>(got).map((k) => k.apiKey)).toEqual([workspace.apiKey, production.apiKey]);
      // and commands run beside the live server
      const live = await hearth('apikey', 'list', '--data-dir', dataDir, '--json');
      expect(JSON.parse(live.stdout)).toHaveLength(1);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 300_000);
});

describe('the package bin', () => {
  it('runs the CLI from any working directory through bin/hearth.mjs', async () => {
    const elsewhere = temp.make();
    const help = await runHearth(['--help'], { bin: true, cwd: elsewhere, env: CLEAN_ENV });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('workspace create');
    const list = await runHearth(['workspace', 'list', '--data-dir', dataDir, '--json'], { bin: true, cwd: elsewhere, env: CLEAN_ENV });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)[0]).toMatchObject({ workspaceId: credentials.workspaceId });
    const failing = await runHearth(['restore', '--data-dir', dataDir], { bin: true, cwd: elsewhere, env: CLEAN_ENV });
    expect(failing).toMatchObject({ code: 2, stderr: 'hearth: restore needs --from DIR\n' });
  }, 180_000);
});
