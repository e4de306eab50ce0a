// The key and workspace rows, as their repositories describe them, for the services that take one.
export type { ApiKeyRow } from '../db/repos/keys.ts';
export type { WorkspaceRow } from '../db/repos/workspaces.ts';
