// Generated from the registry: every operation refuses missing, wrong, other-workspace and other-API-key
// credentials, before it looks at its input (so a refusal never depends on what the body holds).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../server/operations/index.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { apiKeyHeaders, call, type Failure, startTestServer, workspaceHeaders, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
beforeAll(async () => {
  t = await startTestServer();
  other = await createWorkspace(t);
});
afterAll(() => t.close());

const refusals = async (path: string, attempts: Array<[string, Record<string, string>]>) => {
  const answers: Array<[string, number, string]> = [];
  for (const [label, headers] of attempts) {
    // a refusal, or a success where the credentials are enough ('none')
    const res = await call<Partial<Failure> | undefined>(t.url, path, {}, headers);
    answers.push([label, res.status, res.body?.error?.status ?? 'none']);
  }
  return answers;
};

describe('credentials, for every operation of the registry', () => {
  it('refuses API-key operations without the right key and token', async () => {
    const mine = t.credentials;
    const failures: string[] = [];
    for (const op of operations.filter((o) => o.auth === 'apiKey')) {
      const answers = await refusals(op.path, [
        ['no credentials', {}],
        ['token only', { 'x-svc-auth-token': mine.authToken }],
        ['wrong token', apiKeyHeaders({ apiKey: mine.apiKey, authToken: 'not-the-token' })],
        ["another workspace's key with this key's token", apiKeyHeaders({ apiKey: other.apiKey, authToken: mine.authToken })],
        ["this key with another key's token", apiKeyHeaders({ apiKey: mine.apiKey, authToken: other.authToken })],
        ['workspace credentials instead', workspaceHeaders(mine)],
      ]);
      for (const [label, status, code] of answers) {
        const expected =
          label === 'no credentials' || label === 'token only' || label === 'workspace credentials instead'
            ? ['INVALID_ARGUMENT', 400]
            : ['PERMISSION_DENIED', 403];
        if (code !== expected[0] || status !== expected[1]) failures.push(`${op.path} with ${label}: ${status} ${code}`);
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it('refuses workspace operations without the right workspace id and token', async () => {
    const mine = t.credentials;
    const failures: string[] = [];
    for (const op of operations.filter((o) => o.auth === 'workspace')) {
      const answers = await refusals(op.path, [
        ['no credentials', {}],
        ['wrong token', workspaceHeaders({ workspaceId: mine.workspaceId, workspaceAuthToken: 'nope' })],
        ["another workspace's id with this token", workspaceHeaders({ workspaceId: other.workspaceId, workspaceAuthToken: mine.workspaceAuthToken })],
        ['API-key credentials instead', apiKeyHeaders(mine)],
      ]);
      for (const [label, status, code] of answers) {
        const expected = label === 'no credentials' || label === 'API-key credentials instead' ? ['INVALID_ARGUMENT', 400] : ['PERMISSION_DENIED', 403];
        if (code !== expected[0] || status !== expected[1]) failures.push(`${op.path} with ${label}: ${status} ${code}`);
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);
});
