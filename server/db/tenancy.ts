// What happens to each table of tenant data when its owner goes, in one place: a key (and its workspace), an
// organization, a document, a user removed from an organization. `cascade`: the database's own foreign key clears
// it with its parent row; `deleted`: the repository that deletes the owner clears it (db/repos/); `kept`: it stays,
// for the reason given. test/unit/tenancy.test.ts holds the schema to these lists: a new table that holds a tenant's
// data cannot be added without saying what each deletion does to it.

export type Fate = 'cascade' | 'deleted' | { kept: string };

const KEPT_EVENTS = { kept: 'events already emitted (the deletion itself among them) are still delivered' };
const KEPT_CONFIG = { kept: "a workflow definition is the app's configuration; its scope is a filter, not an owner" };

/** Every table of one API key's data: all go with the key (ON DELETE CASCADE from api_keys). */
export const KEY_DATA: Readonly<Record<string, Fate>> = {
  activities: 'cascade',
  agent_executions: 'cascade',
  agents: 'cascade',
  api_key_secrets: 'cascade',
  auth_tokens: 'cascade',
  comment_annotations: 'cascade',
  comment_reads: 'cascade',
  comments: 'cascade',
  crdt_documents: 'cascade',
  crdt_updates: 'cascade',
  document_migrations: 'cascade',
  documents: 'cascade',
  folders: 'cascade',
  judgments: 'cascade',
  mail_outbox: 'cascade',
  memberships: 'cascade',
  notification_configs: 'cascade',
  notification_recipients: 'cascade',
  notifications: 'cascade',
  organizations: 'cascade',
  reactions: 'cascade',
  recording_attachments: 'cascade',
  recordings: 'cascade',
  user_data_jobs: 'cascade',
  user_group_members: 'cascade',
  user_groups: 'cascade',
  users: 'cascade',
  webhook_configs: 'cascade',
  webhook_endpoints: 'cascade',
  webhook_events: 'cascade',
  workflow_definitions: 'cascade',
};

/** organizations/delete: everything in the organization. */
export const ORGANIZATION_DATA: Readonly<Record<string, Fate>> = {
  activities: 'cascade',
  agent_executions: 'deleted',
  comment_annotations: 'cascade',
  comment_reads: 'cascade',
  comments: 'cascade',
  crdt_documents: 'deleted',
  crdt_updates: 'cascade',
  document_migrations: 'deleted',
  documents: 'cascade',
  folders: 'cascade',
  judgments: 'deleted',
  memberships: 'cascade',
  notification_configs: 'cascade',
  notification_recipients: 'cascade',
  notifications: 'cascade',
  reactions: 'cascade',
  recording_attachments: 'cascade',
  recordings: 'cascade',
  user_group_members: 'cascade',
  user_groups: 'cascade',
  webhook_events: KEPT_EVENTS,
  workflow_definitions: KEPT_CONFIG,
};

/** organizations/documents/delete (and a folder's deletion, for its documents): what belongs to the document. */
export const DOCUMENT_DATA: Readonly<Record<string, Fate>> = {
  activities: 'deleted',
  agent_executions: { kept: 'the run history of the key’s agents; a run names the document it read, it is not part of it' },
  comment_annotations: 'deleted',
  crdt_documents: 'deleted',
  crdt_updates: 'cascade',
  document_migrations: { kept: 'the record of a migration job, which outlives the ids it moved' },
  judgments: { kept: 'review decisions memory/suggest learns from; they name the document, they are not its content' },
  memberships: 'deleted',
  notification_configs: 'deleted',
  notification_recipients: 'cascade',
  notifications: 'deleted',
  recordings: 'deleted',
  webhook_events: KEPT_EVENTS,
  workflow_definitions: KEPT_CONFIG,
};

/**
 * users/delete removes a user from an organization (or a folder or a document): their access goes, what they did
 * stays (their data is erased by users/data/delete, a job of its own).
 */
export const USER_DATA: Readonly<Record<string, Fate>> = {
  memberships: 'deleted',
  user_group_members: 'deleted',
  activities: { kept: 'what the user did; erased by users/data/delete' },
  comment_annotations: { kept: 'what the user did; erased by users/data/delete' },
  comment_reads: { kept: 'what the user read; erased by users/data/delete' },
  comments: { kept: 'what the user wrote; erased by users/data/delete' },
  notification_configs: { kept: 'the user’s settings; erased by users/data/delete' },
  notification_recipients: { kept: 'notifications the user received; erased by users/data/delete' },
  reactions: { kept: 'what the user did; erased by users/data/delete' },
  recordings: { kept: 'what the user recorded; erased by users/data/delete' },
  user_data_jobs: { kept: 'the erasure jobs themselves' },
  users: { kept: 'the profile is the key’s, shared by every organization the user is in' },
};
