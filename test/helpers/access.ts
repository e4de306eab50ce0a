import { dataOf, type TestServer } from './server.ts';

/** A user's access to one resource, as /v2/auth/permissions/get reports it: a role, or why not. */
export interface ResourceAccess {
  accessRole?: 'editor' | 'viewer';
  accessType?: string;
  errorCode?: string;
  reasons?: string[];
  expiresAt?: number;
}
/** One user's access to the organization, folders and documents asked about. */
export interface UserAccess {
  organization: Record<string, ResourceAccess>;
  folders: Record<string, ResourceAccess>;
  documents: Record<string, ResourceAccess>;
}

/** Effective access of users as /v2/auth/permissions/get reports it. */
export async function permissionsOf(
  t: TestServer,
  organizationId: string,
  userIds: string[],
  resources: { documentIds?: string[]; folderIds?: string[] } = {},
  headers?: Record<string, string>,
) {
  const res = await t.callK('/v2/auth/permissions/get', { organizationId, userIds, ...resources }, headers);
  if (res.status !== 200) throw new Error(`permissions/get failed: ${JSON.stringify(res.body)}`);
  return dataOf<Record<string, UserAccess>>(res);
}

/** The role a user has on a document (null: no access), as /v2/auth/permissions/get reports it. */
export async function documentRole(t: TestServer, organizationId: string, userId: string, documentId: string, headers?: Record<string, string>) {
  const data = await permissionsOf(t, organizationId, [userId], { documentIds: [documentId] }, headers);
  return data[userId]!.documents[documentId]!.accessRole ?? null;
}
