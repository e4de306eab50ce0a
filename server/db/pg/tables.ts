// drizzle-kit's entry for the PostgreSQL migrations (drizzle.pg.config.ts): it collects the tables a module exports
// by name, so each converted table is exported here (test/unit/pg-schema.test.ts checks that none is missing), and
// the PostgreSQL-only tables beside them.
import { pgTables } from './schema.ts';

export { attachmentBlobs, clusterIdentity } from './schema.ts';

export const {
  workspaces,
  apiKeys,
  authTokens,
  apiKeySecrets,
  loginLinks,
  mailOutbox,
  organizations,
  folders,
  documents,
  users,
  memberships,
  userGroups,
  userGroupMembers,
  documentMigrations,
  notifications,
  notificationRecipients,
  notificationConfigs,
  activities,
  commentAnnotations,
  comments,
  commentReads,
  reactions,
  recordings,
  recordingAttachments,
  userDataJobs,
  crdtDocuments,
  crdtUpdates,
  webhookConfigs,
  webhookEndpoints,
  webhookEvents,
  agents,
  agentExecutions,
  workflowDefinitions,
  judgments,
  masterKeyCheck,
  webhookDeliveries,
  webhookAttempts,
} = pgTables;
