import { chmodSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { and, asc, eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { transaction } from '../db/client.ts';
import { apiKeys } from '../db/schema.ts';
import { issueAuthToken, listAuthTokens } from './apikeys.ts';
import { DEFAULT_WORKSPACE_SETTINGS, findDefaultWorkspace, insertWorkspace } from './workspaces.ts';

export interface Credentials {
  workspaceId: string;
  workspaceAuthToken: string;
  apiKey: string;
  authToken: string;
}

export { CREDENTIALS_FILE } from '../data-files.ts';
import { CREDENTIALS_FILE } from '../data-files.ts';

/**
 * First start makes the default workspace (paid, self-serve production keys, at most 3) with its testing
 * key and token; every start then reads them back and (re)writes DATA_DIR/credentials.json with mode 0600,
 * so the file always holds credentials that work, even after a token reset.
 */
export function ensureDefaultCredentials(app: AppContext): Credentials {
  const credentials = transaction(app.db, (tx) => {
    let workspace = findDefaultWorkspace(app);
    if (!workspace) {
      insertWorkspace(app, tx, { ownerEmail: app.config.defaultOwnerEmail, name: 'Hearth', workspaceName: 'Default workspace' }, DEFAULT_WORKSPACE_SETTINGS, true);
      workspace = findDefaultWorkspace(app);
    }
    if (!workspace) throw new Error('The default workspace could not be created');
    const key = tx
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.workspaceId, workspace.id), eq(apiKeys.type, 'testing')))
      .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
      .get();
    if (!key) throw new Error('The default workspace has no testing API key');
    const token = listAuthTokens(app, key.id)[0]?.token ?? issueAuthToken(app, tx, key.id);
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
