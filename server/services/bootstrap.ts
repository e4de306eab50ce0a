import { chmodSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { issueAuthToken, listAuthTokens } from './apikeys.ts';
import { DEFAULT_WORKSPACE_SETTINGS, findDefaultWorkspace, insertWorkspace, rotateWorkspaceAuthToken } from './workspaces.ts';

export interface Credentials {
  workspaceId: string;
  workspaceAuthToken: string;
  apiKey: string;
  authToken: string;
}

export { CREDENTIALS_FILE } from '../data-files.ts';
import { CREDENTIALS_FILE } from '../data-files.ts';
import type { Storage } from '../db/repos/index.ts';
import type { Secrets } from '../security/secrets.ts';
import type { Config } from '../config.ts';
import type { WorkspaceScope } from '../db/scope.ts';

/**
 * First start makes the default workspace (paid, self-serve production keys, at most 3) with its testing
 * key and token; every start then reads them back and (re)writes DATA_DIR/credentials.json with mode 0600,
 * so the file always holds credentials that work, even after a token reset.
 */
export async function ensureDefaultCredentials(app: { storage: Storage; secrets: Secrets; config: Config }): Promise<Credentials> {
  const { storage } = app;
  const credentials = await storage.transaction(async () => {
    let workspace = await findDefaultWorkspace(app);
    if (!workspace) {
      await insertWorkspace(
        app,
        { ownerEmail: app.config.defaultOwnerEmail, name: 'Hearth', workspaceName: 'Default workspace' },
        DEFAULT_WORKSPACE_SETTINGS,
        true,
      );
      workspace = await findDefaultWorkspace(app);
    }
    if (!workspace) throw new Error('The default workspace could not be created');
    const workspaceScope = storage.workspaces.scopeOf(workspace);
    const first = (await storage.keys.listInWorkspace(workspaceScope)).find((k) => k.type === 'testing');
    const key = first && (await storage.keys.findInWorkspace(workspaceScope, first.id));
    if (!key) throw new Error('The default workspace has no testing API key');
    const scope = storage.keys.scopeOf(key);
    const token = (await listAuthTokens(app, scope))[0]?.token ?? (await issueAuthToken(app, scope));
    return {
      workspaceId: workspace.id,
      workspaceAuthToken: app.secrets.decrypt(workspace.authTokenEnc),
      apiKey: key.id,
      authToken: token,
    };
  });
  const file = join(app.config.dataDir, CREDENTIALS_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
  return credentials;
}

/**
 * Rotates a workspace's auth token (services/workspaces.ts) and, when it is the default workspace, rewrites
 * DATA_DIR/credentials.json so that scripts reading it keep working. Answers the new token.
 */
export async function rotateWorkspaceCredentials(app: { storage: Storage; secrets: Secrets; config: Config }, scope: WorkspaceScope): Promise<string> {
  const authToken = await app.storage.transaction(() => rotateWorkspaceAuthToken(app, scope));
  const row = await app.storage.workspaces.find(scope);
  if (row?.isDefault) await ensureDefaultCredentials(app);
  return authToken;
}
