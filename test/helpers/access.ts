import type { TestServer } from './server.ts';

/** Effective access of users as /v2/auth/permissions/get reports it. */
export async function permissionsOf(t: TestServer, organizationId: string, userIds: string[], resources: { documentIds?: string[]; folderIds?: string[] } = {}, headers?: Record<string, string>) {
  const res = await t.callK('/v2/auth/permissions/get', { organizationId, userIds, ...resources }, headers);
  if (res.status !== 200) throw new Error(`permissions/get failed: ${JSON.stringify(res.body)}`);
  return res.body.result.data as Record<string, { organization: Record<string, any>; folders: Record<string, any>; documents: Record<string, any> }>;
}

/** The role a user has on a document (null: no access), as /v2/auth/permissions/get reports it. */
export async function documentRole(t: TestServer, organizationId: string, userId: string, documentId: string, headers?: Record<string, string>) {
  const data = await permissionsOf(t, organizationId, [userId], { documentIds: [documentId] }, headers);
  return (data[userId]!.documents[documentId]!.accessRole as string | undefined) ?? null;
}
