/**
 * The fixtures format (server/testing/fixtures.ts loads it; docs/fixtures.md describes it): a zod schema built from
 * the operations' own input schemas where a part is an operation's data, strict everywhere else, so that a misspelt
 * key is an error. docs/fixtures.schema.json is generated from it (npm run fixtures:schema).
 */
import { z } from 'zod';
import { accessType, contextPermissions, id, permissionResource, userInput } from '../../shared/schemas/access.ts';
import { API_KEY_TYPES } from '../../shared/schemas/apikey.ts';
import { annotationInput } from '../../shared/schemas/comments.ts';
import { notificationsAddInput } from '../../shared/schemas/feed.ts';
import { WORKSPACE_PLANS } from '../../shared/schemas/workspace.ts';

/** The format's version: a file names it, so that a later format can read older files. */
export const FIXTURES_VERSION = 1;

/** Workspace and API key ids, and auth tokens: what goes into headers and URLs, so letters, digits, `_` and `-`. */
const credentialId = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, { error: 'letters, digits, _ and - only (1 to 128)' });
const secretToken = z.string().regex(/^[A-Za-z0-9_-]{16,256}$/, { error: 'letters, digits, _ and - only, 16 to 256 of them' });

const member = userInput.describe('A user with access at this level (accessRole: viewer or editor; default editor).');

const contentBase = {
  editorId: id.default('main').describe('The editor instance (default "main"): the room /yjs/{organizationId}/{documentId}/{editorId}.'),
  contentKey: z.string().min(1).max(200).optional().describe('The shared type\'s name in the Y.Doc (default "content").'),
};
/** One editor's collaborative content, turned into Yjs updates by /v2/crdt/add. */
export const fixtureContent = z.discriminatedUnion('type', [
  z.strictObject({ ...contentBase, type: z.literal('text'), data: z.string().describe('The text of a Y.Text.') }),
  z.strictObject({ ...contentBase, type: z.literal('xml'), data: z.string().describe('XML markup for a Y.XmlFragment, e.g. "<paragraph>Hi</paragraph>".') }),
  z.strictObject({ ...contentBase, type: z.literal('map'), data: z.record(z.string(), z.unknown()).describe('A JSON object for a Y.Map.') }),
  z.strictObject({ ...contentBase, type: z.literal('array'), data: z.array(z.unknown()).describe('A JSON array for a Y.Array.') }),
]);

export const fixtureNotification = notificationsAddInput
  .omit({ organizationId: true, documentId: true, createOrganization: true, createDocument: true })
  .describe("The data of /v2/notifications/add without the organization and document (the enclosing document's).");

export const fixtureDocument = z.strictObject({
  id,
  name: z.string().max(1000).optional(),
  folderId: id.optional().describe("A folder of this organization's `folders` (default: the top level)."),
  accessType: accessType.optional().describe("Default: the API key's default document access type (public)."),
  metadata: z.record(z.string(), z.unknown()).optional(),
  disabled: z.boolean().optional(),
  users: z.array(member).optional().describe('Users added at document level (/v2/users/add with documentId).'),
  content: z.array(fixtureContent).optional().describe('Collaborative content, one entry per editor.'),
  comments: z.array(annotationInput).optional().describe('Comment annotations: the items of /v2/commentannotations/add.'),
  notifications: z.array(fixtureNotification).optional(),
});

export const fixtureFolder = z.strictObject({
  id: id.refine((v) => v !== 'root', { error: 'must not be "root" (the name of the top level)' }),
  name: z.string().max(500).optional(),
  parentFolderId: id.optional().describe('A folder listed before this one (default: the top level).'),
  accessType: accessType.optional().describe('Set: this access type; omitted: inherited from the parent.'),
  users: z.array(member).optional().describe('Users added at folder level (/v2/users/add with folderId).'),
});

export const fixtureGroup = z.strictObject({
  id,
  name: z.string().max(500).optional(),
  userIds: z.array(id).optional().describe('Users of this organization (its `users`) in the group.'),
});

export const fixtureOrganization = z.strictObject({
  id,
  name: z.string().max(500).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  disabled: z.boolean().optional(),
  users: z.array(member).optional().describe('Users added at organization level (/v2/users/add).'),
  groups: z.array(fixtureGroup).optional(),
  folders: z.array(fixtureFolder).optional().describe('In order: a parent before its children.'),
  documents: z.array(fixtureDocument).optional(),
});

export const fixturePermission = z.strictObject({
  userId: id,
  resources: z.array(permissionResource).optional().describe('As /v2/auth/permissions/add takes them (expiresAt in Unix seconds).'),
  context: contextPermissions.optional(),
});

export const fixtureAuthToken = z.strictObject({
  token: secretToken.describe('The value sent as x-…-auth-token.'),
  name: z.string().min(1).max(200).optional(),
  domains: z.array(z.string().min(1).max(253)).optional(),
});

export const fixtureApiKey = z.strictObject({
  id: credentialId.describe('The value sent as x-…-api-key.'),
  name: z.string().min(1).max(200).optional(),
  type: z.enum(API_KEY_TYPES).default('testing'),
  ownerEmail: z.email().optional().describe("Default: the workspace owner's."),
  allowedDomains: z.array(z.string().min(1).max(253)).optional(),
  enablePrivateComments: z.boolean().optional(),
  authTokens: z.array(fixtureAuthToken).min(1),
  organizations: z.array(fixtureOrganization).optional(),
  permissions: z.array(fixturePermission).optional().describe('Roles and context given with /v2/auth/permissions/add, after the organizations.'),
});

export const fixtureWorkspace = z.strictObject({
  id: credentialId.describe('The value sent as x-…-workspace-id.'),
  authToken: secretToken.describe('The value sent as x-…-workspace-auth-token.'),
  name: z.string().min(1).max(200).optional(),
  ownerEmail: z.email(),
  ownerName: z.string().max(200).optional(),
  plan: z.enum(WORKSPACE_PLANS).optional(),
  selfServeProduction: z.boolean().optional(),
  maxProductionKeys: z.number().int().min(0).max(1000).optional(),
  apiKeys: z.array(fixtureApiKey).min(1),
});

export const fixturesSchema = z
  .strictObject({
    $schema: z.string().optional().describe('The JSON Schema of this file, for editors (docs/fixtures.schema.json).'),
    version: z.literal(FIXTURES_VERSION),
    workspaces: z.array(fixtureWorkspace),
  })
  .describe('Hearth fixtures: a declarative data set loaded with `hearth fixtures load FILE` (README, "Fixtures").');

export type Fixtures = z.output<typeof fixturesSchema>;
export type FixturesInput = z.input<typeof fixturesSchema>;
