import { z } from 'zod';
import { ACCESS_ROLES, DOCUMENT_ACCESS_TYPES, nonEmpty, pageToken, secret } from './common.ts';

/** Client identifiers: any non-empty string up to 256 characters. */
export const id = nonEmpty(256);
export const ids = (max: number) => z.array(id).min(1).max(max);

export const accessType = z.enum(DOCUMENT_ACCESS_TYPES);
export const accessRole = z.enum(ACCESS_ROLES);

/** A user as sent to the users operations (and as actionUser / notifyUsers later). */
export const userInput = z.object({
  userId: id,
  name: z.string().max(500).optional(),
  email: z.string().max(320).optional(),
  initial: z.string().max(10).optional(),
  photoUrl: z.string().max(2048).optional(),
  accessRole: accessRole.optional(),
});
export type UserInput = z.infer<typeof userInput>;

const levelTarget = {
  organizationId: id,
  documentId: id.optional(),
  folderId: id.optional(),
};

export const usersAddInput = z.object({
  ...levelTarget,
  createOrganization: z.boolean().optional(),
  createDocument: z.boolean().optional(),
  createFolder: z.boolean().optional(),
  users: z.array(userInput).min(1).max(1000),
});
export const usersUpdateInput = z.object({ ...levelTarget, users: z.array(userInput).min(1).max(1000) });
export const usersDeleteInput = z.object({ ...levelTarget, userIds: ids(1000) });

const organizationRecord = z.object({
  organizationId: id,
  organizationName: z.string().max(500).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export const organizationsAddInput = z.object({ organizations: z.array(organizationRecord).min(1).max(1000) });
export const organizationsUpdateInput = organizationsAddInput;
export const organizationsGetInput = z.object({
  organizationIds: z.array(id).max(100).optional(),
  pageSize: z.number().int().min(1).max(1000).default(1000),
  pageToken: pageToken.nullish(),
});
export const organizationsDeleteInput = z.object({ organizationIds: ids(1000) });
export const organizationsDisableInput = z.object({ organizationIds: ids(1000), disabled: z.boolean() });

const folderId = id.refine((v) => v !== 'root', { error: 'must not be "root" (the name of the top level)' });
export const foldersAddInput = z.object({
  organizationId: id,
  createOrganization: z.boolean().optional(),
  folders: z
    .array(z.object({ folderId, folderName: z.string().max(500).optional(), parentFolderId: id.optional(), accessType: accessType.optional() }))
    .min(1)
    .max(1000),
});
export const foldersGetInput = z.object({
  organizationId: id,
  folderId: id.optional(),
  maxDepth: z.number().int().min(0).max(1000).optional(),
});
export const foldersUpdateInput = z.object({
  organizationId: id,
  folders: z
    .array(z.object({ folderId, folderName: z.string().max(500).optional(), parentFolderId: id.optional() }))
    .min(1)
    .max(1000),
});
export const foldersDeleteInput = z.object({ organizationId: id, folderId: id });
export const foldersAccessInput = z.object({
  organizationId: id,
  folderIds: ids(1000),
  accessType: accessType.optional(),
  inheritFromParent: z.boolean().optional(),
});

const documentRecord = z.object({
  documentId: id,
  documentName: z.string().max(1000).optional(),
  accessType: accessType.optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export const documentsAddInput = z.object({
  organizationId: id,
  createOrganization: z.boolean().optional(),
  folderId: id.optional(),
  createFolder: z.boolean().optional(),
  documents: z.array(documentRecord).min(1).max(1000),
});
export const documentsUpdateInput = z.object({
  organizationId: id,
  documents: z
    .array(documentRecord.omit({ accessType: true }))
    .min(1)
    .max(1000),
});
export const documentsGetInput = z.object({
  organizationId: id,
  documentIds: z.array(id).min(1).max(30).optional(),
  folderId: id.optional(),
  pageSize: z.number().int().min(1).max(1000).default(1000),
  pageToken: pageToken.nullish(),
});
export const documentsDeleteInput = z.object({ organizationId: id, documentIds: ids(1000) });
export const documentsMoveInput = z.object({ organizationId: id, documentIds: ids(1000), folderId: id });
export const documentsAccessInput = z.object({ organizationId: id, documentIds: ids(1000), accessType });
export const documentsDisableInput = z.object({ organizationId: id, documentIds: ids(1000), disabled: z.boolean() });
export const documentsMigrateInput = z.object({ organizationId: id, documentId: id, newDocumentId: id });
export const migrationStatusInput = z.object({ organizationId: id, migrationId: id });

export const userGroupsAddInput = z.object({
  organizationId: id,
  createOrganization: z.boolean().optional(),
  organizationUserGroups: z
    .array(z.object({ groupId: id, groupName: z.string().max(500).optional() }))
    .min(1)
    .max(1000),
});
export const groupUsersAddInput = z.object({ organizationId: id, organizationUserGroupId: id, userIds: ids(1000) });
export const groupUsersDeleteInput = z.object({
  organizationId: id,
  organizationUserGroupId: id,
  userIds: z.array(id).max(1000).optional(),
  deleteAll: z.boolean().optional(),
});

export const RESOURCE_TYPES = ['organization', 'folder', 'document'] as const;
export const permissionResource = z.object({
  type: z.enum(RESOURCE_TYPES),
  id,
  organizationId: id.optional(),
  accessRole: accessRole.optional(),
  /** Unix seconds, as the hosted service takes it. */
  expiresAt: z.number().int().positive().optional(),
});
export type PermissionResource = z.infer<typeof permissionResource>;
const contextValue = z.union([z.string().max(500), z.number()]);
/**
 * A user's context permissions: for each key, the values the user may see. Notifications with
 * `context.access` reach only users whose context permissions include every key-value pair.
 */
export const contextPermissions = z.object({ access: z.record(z.string().min(1).max(200), z.union([contextValue, z.array(contextValue).max(1000)])) });
export type ContextPermissions = z.infer<typeof contextPermissions>;

export const permissionsChangeInput = z.object({
  user: z.object({ userId: id }),
  permissions: z
    .object({ resources: z.array(permissionResource).max(1000).default([]), context: contextPermissions.optional() })
    .refine((p) => p.resources.length > 0 || p.context !== undefined, { error: 'needs resources or context' }),
});
export const permissionsGetInput = z.object({
  organizationId: id,
  userIds: ids(100),
  folderIds: z.array(id).max(100).optional(),
  documentIds: z.array(id).max(100).optional(),
});
export const generateTokenInput = z.object({
  userId: id,
  userProperties: z.object({ isAdmin: z.boolean().optional(), name: z.string().max(500).optional(), email: z.string().max(320).optional() }).optional(),
  permissions: z.object({ resources: z.array(permissionResource).max(1000).default([]), context: contextPermissions.optional() }).optional(),
});

/**
 * The legacy /v1/auth/token/get: the key's credentials in the body (no auth headers) and the user's organization
 * among its properties.
 */
export const legacyTokenInput = z.object({
  apiKey: nonEmpty(200),
  authToken: secret(nonEmpty(200)),
  userId: id,
  userProperties: z
    .object({ organizationId: id.optional(), isAdmin: z.boolean().optional(), name: z.string().max(500).optional(), email: z.string().max(320).optional() })
    .optional(),
});

/**
 * One access decision of a permission provider, as /v2/auth/generate_signature signs it and as Hearth reads it back
 * in the provider's answer (the same schema both ways, so both see the same values): `expiresAt` in milliseconds,
 * `accessRole` for documents only.
 */
export const signedPermission = z
  .object({
    userId: id,
    resourceId: id,
    type: z.enum(RESOURCE_TYPES),
    hasAccess: z.boolean(),
    accessRole: accessRole.optional(),
    expiresAt: z.number().int().nonnegative().optional(),
  })
  .refine((p) => p.accessRole === undefined || p.type === 'document', { error: 'accessRole is allowed for documents only', path: ['accessRole'] });
export type SignedPermission = z.infer<typeof signedPermission>;
export const generateSignatureInput = z.object({ permissions: z.array(signedPermission).min(1).max(1000) });
