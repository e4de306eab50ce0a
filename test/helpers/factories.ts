import { randomUUID } from 'node:crypto';
import type { TestServer } from './server.ts';
import { apiKeyHeaders, call, dataOf, workspaceHeaders } from './server.ts';

export const uniqueEmail = (prefix = 'owner') => `${prefix}-${randomUUID().slice(0, 8)}@example.com`;

/** A new workspace through the public operation; returns its credentials and its default key's token. */
export async function createWorkspace(t: Pick<TestServer, 'url' | 'callPublic'>, ownerEmail = uniqueEmail()) {
  const created = await t.callPublic('/v2/workspace/create', { ownerEmail, name: 'Tester' });
  if (created.status !== 200) throw new Error(`workspace/create failed: ${JSON.stringify(created.body)}`);
  const data = dataOf<{ id: string; authToken: string; apiKeyList: Record<string, unknown> }>(created);
  const workspace = { workspaceId: data.id, workspaceAuthToken: data.authToken };
  const apiKey = Object.keys(data.apiKeyList)[0] as string;
  const tokens = dataOf<{ authTokens: { token: string }[] }>(await call(t.url, '/v2/workspace/authtokens/get', { apiKey }, workspaceHeaders(workspace)));
  const authToken = tokens.authTokens[0]?.token as string;
  return { ownerEmail, ...workspace, apiKey, authToken, headersW: workspaceHeaders(workspace), headersK: apiKeyHeaders({ apiKey, authToken }) };
}
