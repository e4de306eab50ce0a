// The repositories, one per area, over one engine: what services ask for their data. Each method that reads or
// writes tenant data takes the tenant's scope and filters by it itself. `transaction` groups calls into one unit of
// work (storage.ts).
import type { SqliteEngine } from '../storage.ts';
import { activitiesRepo } from './activities.ts';
import { notificationsRepo } from './notifications.ts';
import { reactionsRepo } from './reactions.ts';
import { recordingsRepo } from './recordings.ts';
import { userDataRepo } from './user-data.ts';
import { crdtRepo } from './crdt.ts';
import { documentDataRepo } from './document-data.ts';
import { keysRepo } from './keys.ts';
import { loginLinksRepo } from './login-links.ts';
import { workspacesRepo } from './workspaces.ts';
import { mailRepo } from './mail.ts';
import { organizationsRepo } from './organizations.ts';
import { agentsRepo } from './agents.ts';
import { commentsRepo } from './comments.ts';
import { judgmentsRepo } from './judgments.ts';
import { workflowsRepo } from './workflows.ts';
import { accessRepo } from './access.ts';
import { documentMigrationsRepo } from './document-migrations.ts';
import { documentsRepo } from './documents.ts';
import { foldersRepo } from './folders.ts';
import { groupsRepo } from './groups.ts';
import { membershipsRepo } from './memberships.ts';
import { usersRepo } from './users.ts';
import { seedRepo } from './seed.ts';
import { webhooksRepo } from './webhooks.ts';
import { inspectionRepo } from './inspection.ts';
import { keyTransferRepo } from './key-transfer.ts';

export function createStorage(engine: SqliteEngine) {
  return {
    engine,
    transaction: engine.transaction,
    inTransaction: engine.inTransaction,
    organizations: organizationsRepo(engine),
    documentData: documentDataRepo(engine),
    activities: activitiesRepo(engine),
    notifications: notificationsRepo(engine),
    reactions: reactionsRepo(engine),
    recordings: recordingsRepo(engine),
    userData: userDataRepo(engine),
    comments: commentsRepo(engine),
    judgments: judgmentsRepo(engine),
    agents: agentsRepo(engine),
    workflows: workflowsRepo(engine),
    crdt: crdtRepo(engine),
    workspaces: workspacesRepo(engine),
    keys: keysRepo(engine),
    loginLinks: loginLinksRepo(engine),
    mail: mailRepo(engine),
    folders: foldersRepo(engine),
    documents: documentsRepo(engine),
    users: usersRepo(engine),
    memberships: membershipsRepo(engine),
    groups: groupsRepo(engine),
    access: accessRepo(engine),
    documentMigrations: documentMigrationsRepo(engine),
    seed: seedRepo(engine),
    webhooks: webhooksRepo(engine),
    inspection: inspectionRepo(engine),
    keyTransfer: keyTransferRepo(engine),
  };
}

export type Storage = ReturnType<typeof createStorage>;
