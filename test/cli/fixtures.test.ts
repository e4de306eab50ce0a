import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { FixturesError, type FixturesInput, loadFixtures, parseFixtures, readFixturesFile } from '../../server/testing/fixtures.ts';
import { fixturesAtStart } from '../../server/cli/commands/fixtures-load.ts';
import { resolveConfig } from '../../server/config.ts';
import { runHearth, startHearth, tempDirs } from '../helpers/cli.ts';
import { call, errorOf, startTestServer, type TestServer, workspaceHeaders } from '../helpers/server.ts';
import { EXAMPLE, EXAMPLE_FILE, expectExampleOverApi } from './fixtures-checks.ts';

const dirs = tempDirs();
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({}, { engine: 'sqlite' });
});
afterAll(async () => {
  await t.close();
  dirs.cleanup();
});

/** A small valid file with one workspace and key; `org` goes into the key's organizations. */
function file(id: string, organizations: unknown[], key: Record<string, unknown> = {}): FixturesInput {
  return {
    version: 1,
    workspaces: [
      {
        id: `ws_${id}`,
        authToken: `ws_token_${id}_0000000`,
        ownerEmail: 'owner@example.com',
        apiKeys: [{ id: `key_${id}`, authTokens: [{ token: `yauth_${id}_000000000` }], organizations, ...key }],
      },
    ],
  } as FixturesInput;
}

async function refusal(work: () => unknown): Promise<string> {
  try {
    await work();
  } catch (error) {
    expect(error).toBeInstanceOf(FixturesError);
    return (error as Error).message;
  }
  throw new Error('not refused');
}

describe('hearth fixtures load', () => {
  it('loads the example into a new data dir; a server started on it answers the fixtures over HTTP; a second load is refused', async () => {
    const dataDir = join(dirs.make('hearth-fixtures-'), 'data');
    const loaded = await runHearth(['fixtures', 'load', EXAMPLE_FILE, '--data-dir', dataDir, '--json']);
    expect(loaded.code, loaded.stderr).toBe(0);
    const summary = JSON.parse(loaded.stdout);
    expect(summary.credentials).toEqual(EXAMPLE);
    expect(summary.counts).toEqual({
      organizations: 1,
      folders: 2,
      documents: 2,
      users: 3,
      groups: 1,
      permissions: 1,
      notifications: 1,
      comments: 1,
      contents: 3,
    });
    const server = await startTestServer({ dataDir }, { engine: 'sqlite' });
    try {
      await expectExampleOverApi(server.url);
      // ids that exist are refused, before anything is written
      const again = await refusal(() => loadFixtures(server.server.app, readFixturesFile(EXAMPLE_FILE)));
      expect(again).toContain('workspaces[0].id: workspace workspace_fixture_acme exists already in this database');
      await expectExampleOverApi(server.url);
    } finally {
      await server.close();
    }
  });

  it('serve --fixtures loads them before serving; a restart on the loaded data dir keeps them', async () => {
    const dataDir = join(dirs.make('hearth-fixtures-'), 'data');
    const server = await startHearth(['serve', '--port', '0', '--data-dir', dataDir, '--fixtures', EXAMPLE_FILE]);
    try {
      expect(server.output()).toContain(`Fixtures   ${EXAMPLE_FILE}: loaded in`);
      await expectExampleOverApi(server.url);
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
    const config = resolveConfig({ dataDir, logLevel: 'silent' });
    expect(await fixturesAtStart(config, EXAMPLE_FILE)).toContain('already loaded');
  });

  it('loads a YAML file as its JSON (named .yaml or .yml), and refuses bad YAML and alias bombs naming the file', async () => {
    const dir = dirs.make('hearth-fixtures-');
    // the example, written as YAML with the editor's schema comment, loaded by the command as the JSON one is
    const yamlFile = join(dir, 'fixtures.yaml');
    writeFileSync(yamlFile, `# yaml-language-server: $schema=../docs/fixtures.schema.json\n${stringifyYaml(JSON.parse(readFileSync(EXAMPLE_FILE, 'utf8')))}`);
    const dataDir = join(dir, 'data');
    const loaded = await runHearth(['fixtures', 'load', yamlFile, '--data-dir', dataDir, '--json']);
    expect(loaded.code, loaded.stderr).toBe(0);
    expect(JSON.parse(loaded.stdout).credentials).toEqual(EXAMPLE);
    const server = await startTestServer({ dataDir }, { engine: 'sqlite' });
    try {
      await expectExampleOverApi(server.url);
    } finally {
      await server.close();
    }
    // anchors and aliases are YAML's own: one access block for two documents
    const short = join(dir, 'short.yml');
    writeFileSync(
      short,
      [
        'version: 1',
        'workspaces:',
        '  - id: ws_yaml',
        '    authToken: ws_token_yaml_000000000',
        '    ownerEmail: owner@example.com',
        '    apiKeys:',
        '      - id: key_yaml',
        '        authTokens: [{ token: yauth_yaml_0000000000 }]',
        '        organizations:',
        '          - id: acme',
        '            documents:',
        '              - { id: one, accessType: &open public }',
        '              - { id: two, accessType: *open }',
      ].join('\n'),
    );
    const parsed = readFixturesFile(short);
    expect(parsed.workspaces[0]!.apiKeys[0]!.organizations?.[0]?.documents?.map((d) => [d.id, d.accessType])).toEqual([
      ['one', 'public'],
      ['two', 'public'],
    ]);
    writeFileSync(join(dir, 'broken.yaml'), 'version: 1\nworkspaces: [ { id: x\n');
    expect(await refusal(() => readFixturesFile(join(dir, 'broken.yaml')))).toMatch(/broken\.yaml is not YAML: /);
    // a billion laughs: each level doubles the last; refused at the alias count, not expanded
    const laughs = ['a0: &a0 [lol, lol]', ...Array.from({ length: 30 }, (_, i) => `a${i + 1}: &a${i + 1} [*a${i}, *a${i}]`)].join('\n');
    writeFileSync(join(dir, 'laughs.yaml'), laughs);
    expect(await refusal(() => readFixturesFile(join(dir, 'laughs.yaml')))).toMatch(/laughs\.yaml is not YAML: .*alias/i);
    // a field's path is named in YAML as in JSON
    writeFileSync(join(dir, 'bad.yaml'), 'version: 1\nworkspaces:\n  - id: bad id\n');
    expect(await refusal(() => readFixturesFile(join(dir, 'bad.yaml')))).toContain('workspaces[0].id: letters, digits, _ and - only');
  });

  it('names the file and the field of a bad file', async () => {
    const dir = dirs.make('hearth-fixtures-');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ version: 1, workspaces: [{ id: 'bad id', authToken: 'short', ownerEmail: 'x@example.com', apiKeys: [] }] }));
    const run = await runHearth(['fixtures', 'load', bad, '--data-dir', join(dir, 'data')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${bad} is not a valid fixtures file: workspaces[0].id: letters, digits, _ and - only`);
    expect(run.stderr).toContain('workspaces[0].authToken:');
    expect(run.stderr).toContain('workspaces[0].apiKeys: Too small');
  });
});

describe('readFixturesFile and loadFixtures', () => {
  it('refuses unreadable, non-JSON and invalid files naming the path of each bad field', async () => {
    const dir = dirs.make('hearth-fixtures-');
    expect(await refusal(() => readFixturesFile(join(dir, 'missing.json')))).toContain('ENOENT');
    writeFileSync(join(dir, 'broken.json'), '{ "version": 1, ');
    expect(await refusal(() => readFixturesFile(join(dir, 'broken.json')))).toContain('is not JSON');
    const message = await refusal(() =>
      parseFixtures(
        file('x', [{ id: 'o', documents: [{ id: 'd', content: [{ type: 'map', data: 'not a map' }], accesType: 'public' }] }], { surprise: true }),
        'x.json',
      ),
    );
    expect(message).toContain('workspaces[0].apiKeys[0].organizations[0].documents[0].content[0].data: Invalid input: expected record');
    expect(message).toContain('workspaces[0].apiKeys[0].organizations[0].documents[0]: Unrecognized key: "accesType"');
    expect(message).toContain('workspaces[0].apiKeys[0]: Unrecognized key: "surprise"');
  });

  it('refuses a file that contradicts itself before writing anything', async () => {
    const unknownFolder = parseFixtures(file('a', [{ id: 'o', documents: [{ id: 'd', folderId: 'nope' }] }]));
    expect(await refusal(() => loadFixtures(t.server.app, unknownFolder))).toContain(
      "workspaces[0].apiKeys[0].organizations[0].documents[0].folderId: no folder nope in this organization's folders",
    );
    const childFirst = parseFixtures(file('b', [{ id: 'o', folders: [{ id: 'child', parentFolderId: 'parent' }, { id: 'parent' }] }]));
    expect(await refusal(() => loadFixtures(t.server.app, childFirst))).toContain('organizations[0].folders[0].parentFolderId: no folder parent before it');
    const twice = parseFixtures(file('c', [{ id: 'o' }, { id: 'o' }]));
    expect(await refusal(() => loadFixtures(t.server.app, twice))).toContain('organizations[1].id: organization of key key_c o is already given at');
    for (const id of ['a', 'b', 'c']) {
      expect(
        errorOf(await call(t.url, '/v2/workspace/get', {}, workspaceHeaders({ workspaceId: `ws_${id}`, workspaceAuthToken: `ws_token_${id}_0000000` }))).status,
      ).toBe('PERMISSION_DENIED');
    }
  });

  it('is all or nothing: an operation refusing a late part leaves no workspace, key, organization or document behind', async () => {
    const fixtures = parseFixtures(
      file('late', [
        { id: 'first', users: [{ userId: 'u1', name: 'U One' }], documents: [{ id: 'doc', content: [{ type: 'text', data: 'never stored' }] }] },
        // a private thread on a key whose private comments are off: /v2/commentannotations/add answers FAILED_PRECONDITION
        {
          id: 'second',
          documents: [
            { id: 'doc', comments: [{ commentData: [{ commentText: 'psst', from: { userId: 'u1' } }], visibility: { type: 'restricted', userIds: ['u1'] } }] },
          ],
        },
      ]),
    );
    const message = await refusal(() => loadFixtures(t.server.app, fixtures));
    expect(message).toContain('workspaces[0].apiKeys[0].organizations[1].documents[0].comments: /v2/commentannotations/add answered FAILED_PRECONDITION');
    const tokens = await call(t.url, '/v2/workspace/get', {}, workspaceHeaders({ workspaceId: 'ws_late', workspaceAuthToken: 'ws_token_late_0000000' }));
    expect(errorOf(tokens).status).toBe('PERMISSION_DENIED');
    expect(await t.query('SELECT id FROM organizations WHERE id IN (?, ?)', ['first', 'second'])).toEqual([]);
    expect(await t.query('SELECT id FROM api_keys WHERE id = ?', ['key_late'])).toEqual([]);
    expect(await t.query('SELECT document_id FROM crdt_documents WHERE api_key_id = ?', ['key_late'])).toEqual([]);

    // the same file with private comments on loads whole
    const fixed = parseFixtures(file('late', (fixtures.workspaces[0]?.apiKeys[0]?.organizations ?? []) as unknown[], { enablePrivateComments: true }));
    const summary = await loadFixtures(t.server.app, fixed);
    expect(summary.counts).toMatchObject({ organizations: 2, documents: 2, comments: 1, contents: 1 });
    expect(summary.credentials).toEqual({
      workspaceId: 'ws_late',
      workspaceAuthToken: 'ws_token_late_0000000',
      apiKey: 'key_late',
      authToken: 'yauth_late_000000000',
    });
  });
});
