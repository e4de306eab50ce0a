// What a Hearth loaded with docs/fixtures.example.json answers over HTTP: shared by the SQLite tests
// (test/cli/fixtures.test.ts) and the PostgreSQL one (test/pg/fixtures.test.ts).
import { join } from 'node:path';
import { expect } from 'vitest';
import { apiKeyHeaders, call, dataOf, errorOf, workspaceHeaders } from '../helpers/server.ts';

export const EXAMPLE_FILE = join(import.meta.dirname, '..', '..', 'docs', 'fixtures.example.json');
export const EXAMPLE = {
  workspaceId: 'workspace_fixture_acme',
  workspaceAuthToken: 'ws_token_fixture_acme_0001',
  apiKey: 'key_fixture_acme',
  authToken: 'yauth_fixture_acme_0001',
};

interface CrdtItem {
  id: string;
  type: string;
  contentKey: string;
  data: unknown;
}
type Access = Record<string, { organization: Record<string, { accessRole?: string }>; documents: Record<string, { accessRole?: string }> }>;

/** The example's workspace, key, documents, access, comments, notifications and collaborative content, as the API answers them. */
export async function expectExampleOverApi(url: string) {
  const key = apiKeyHeaders(EXAMPLE);
  const tokens = dataOf<{ authTokens: Array<{ token: string; name: string }> }>(
    await call(url, '/v2/workspace/authtokens/get', { apiKey: EXAMPLE.apiKey }, workspaceHeaders(EXAMPLE)),
  );
  expect(tokens.authTokens.map((t) => t.token)).toEqual([EXAMPLE.authToken]);
  const wrong = await call(
    url,
    '/v2/organizations/documents/get',
    { organizationId: 'acme' },
    apiKeyHeaders({ ...EXAMPLE, authToken: 'yauth_not_this_one_000' }),
  );
  expect(errorOf(wrong).status).toBe('PERMISSION_DENIED');

  const documents = dataOf<Array<{ id: string; documentName: string; accessType: string; folderId: string }>>(
    await call(url, '/v2/organizations/documents/get', { organizationId: 'acme' }, key),
  );
  expect(documents.map((d) => [d.id, d.documentName, d.accessType, d.folderId])).toEqual([
    ['plan', 'The plan', 'restricted', 'secret'],
    ['readme', 'Read me', 'public', 'specs'],
  ]);
  const folders = dataOf<Array<{ folderId: string; subFolders: Array<{ folderId: string; accessType: string; ancestors: string[] }> }>>(
    await call(url, '/v2/organizations/folders/get', { organizationId: 'acme' }, key),
  );
  expect(folders[0]?.folderId).toBe('specs');
  expect(folders[0]?.subFolders.map((f) => [f.folderId, f.accessType, f.ancestors])).toEqual([['secret', 'restricted', ['root', 'specs']]]);

  const access = dataOf<Access>(
    await call(url, '/v2/auth/permissions/get', { organizationId: 'acme', userIds: ['ann', 'bob', 'carol', 'dave'], documentIds: ['readme', 'plan'] }, key),
  );
  expect(access.ann?.organization.acme?.accessRole).toBe('editor');
  expect(access.bob?.organization.acme?.accessRole).toBe('viewer');
  expect(access.carol?.organization.acme?.accessRole).toBeUndefined();
  expect(access.carol?.documents.plan?.accessRole).toBe('viewer');
  expect(access.dave?.documents.readme?.accessRole).toBe('viewer');
  expect(access.dave?.documents.plan?.accessRole).toBeUndefined();

  const notifications = dataOf<Array<{ id: string; displayBodyMessage: string }>>(
    await call(url, '/v2/notifications/get', { organizationId: 'acme', userId: 'bob' }, key),
  );
  expect(notifications.map((n) => [n.id, n.displayBodyMessage])).toEqual([['welcome-bob', 'Have a look']]);
  const threads = dataOf<Array<{ annotationId: string; comments: Array<{ commentId: number; commentText: string }> }>>(
    await call(url, '/v2/commentannotations/get', { organizationId: 'acme', documentId: 'readme' }, key),
  );
  expect(threads.map((t) => [t.annotationId, t.comments.map((c) => [c.commentId, c.commentText])])).toEqual([['thread-1', [[1, 'Looks good']]]]);

  const readme = dataOf<CrdtItem[]>(await call(url, '/v2/crdt/get', { organizationId: 'acme', documentId: 'readme' }, key));
  expect(readme.map((c) => [c.id, c.type, c.contentKey, c.data])).toEqual([
    ['main', 'text', 'content', 'Hello from the fixtures.'],
    ['rich', 'xml', 'default', '<paragraph>Rich <bold>text</bold></paragraph>'],
  ]);
  const plan = dataOf<CrdtItem[]>(await call(url, '/v2/crdt/get', { organizationId: 'acme', documentId: 'plan' }, key));
  expect(plan.map((c) => [c.id, c.type, c.data])).toEqual([['main', 'map', { status: 'draft', owner: 'ann' }]]);
}
