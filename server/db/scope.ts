// Who a query runs for, as values only the storage layer can make. Authentication (storage's credential checks)
// issues a TenantScope for an API key's credentials, a user token or an operator acting on one key, and a
// WorkspaceScope for a workspace's credentials or an admin session; every repository method on tenant data takes
// one and filters by it itself. A string id cannot stand in for a scope, so a query without its tenant's filter
// cannot be written by accident outside this folder: the brand is a symbol this module keeps to itself.

declare const tenantBrand: unique symbol;
declare const workspaceBrand: unique symbol;

/** What the credentials that made a scope allow. */
export type Grant =
  /** The API key's own credentials (apiKey + authToken), or the server acting for the key (jobs, tools). */
  | { kind: 'key' }
  /** A user token of the key (/v2/auth/generate_token): the user's access decides per document. */
  | { kind: 'user'; userId: string }
  /** The admin UI's session of the key's workspace. */
  | { kind: 'admin' };

/** One API key's data. */
export interface TenantScope {
  readonly apiKeyId: string;
  readonly workspaceId: string;
  readonly grant: Grant;
  readonly [tenantBrand]: true;
}

/** One workspace: its settings and its keys (the workspace credentials, an admin session, the operator's CLI). */
export interface WorkspaceScope {
  readonly workspaceId: string;
  readonly [workspaceBrand]: true;
}

/** Made by the storage layer's credential checks only (and by the operator paths that name a key explicitly). */
export function tenantScope(apiKeyId: string, workspaceId: string, grant: Grant = { kind: 'key' }): TenantScope {
  return Object.freeze({ apiKeyId, workspaceId, grant }) as TenantScope;
}

export function workspaceScope(workspaceId: string): WorkspaceScope {
  return Object.freeze({ workspaceId }) as WorkspaceScope;
}

/** The same key's scope with another grant (a user token's connection narrowed to the user). */
export const withGrant = (scope: TenantScope, grant: Grant): TenantScope => tenantScope(scope.apiKeyId, scope.workspaceId, grant);
