import type { apiKeys, workspaces } from '../db/schema.ts';

export type WorkspaceRow = typeof workspaces.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
