// The repositories written once for both engines (docs/storage.md, "One storage code"): both storages register them
// from here, SQLite's (index.ts, over sqliteDialect) and PostgreSQL's (pg/storage.ts, over pgDialect). What each
// engine still has of its own, it registers beside them.
import type { Engine } from '../engine.ts';
import type { SqliteEngine } from '../storage.ts';
import { activitiesRepo } from './activities.ts';
import { agentsRepo } from './agents.ts';
import { commentsRepo } from './comments.ts';
import { crdtRepo } from './crdt.ts';
import { documentDataRepo } from './document-data.ts';
import { documentMigrationsRepo } from './document-migrations.ts';
import { documentsRepo } from './documents.ts';
import { foldersRepo } from './folders.ts';
import { groupsRepo } from './groups.ts';
import { inspectionRepo } from './inspection.ts';
import { judgmentsRepo } from './judgments.ts';
import { keyTransferRepo } from './key-transfer.ts';
import { keysRepo, type TableChanges } from './keys.ts';
import { loginLinksRepo } from './login-links.ts';
import { mailRepo } from './mail.ts';
import { membershipsRepo } from './memberships.ts';
import { organizationsRepo } from './organizations.ts';
import { reactionsRepo } from './reactions.ts';
import { recordingsRepo } from './recordings.ts';
import { seedRepo } from './seed.ts';
import { userDataRepo } from './user-data.ts';
import { usersRepo } from './users.ts';
import { webhooksRepo } from './webhooks.ts';
import { workflowsRepo } from './workflows.ts';
import { workspacesRepo } from './workspaces.ts';

/**
 * The repositories over `one`. `changes`: the engine's change counts per table (the credentials cache's stamp);
 * `sqlite`: SQLite's connections, for the checkpointer's coordination (webhooks' `workerCheckpoints`, nothing on
 * PostgreSQL, which checkpoints itself) and the seed's bulk load on the main connection (seed.ts).
 */
export function reposWrittenOnce(one: Engine, changes: TableChanges, sqlite?: SqliteEngine) {
  return {
    organizations: organizationsRepo(one),
    activities: activitiesRepo(one),
    reactions: reactionsRepo(one),
    recordings: recordingsRepo(one),
    // its `checkpoint` (SQLite's write-ahead log folded into the file) does nothing on PostgreSQL
    userData: userDataRepo(one),
    workspaces: workspacesRepo(one),
    keys: keysRepo(one, changes),
    loginLinks: loginLinksRepo(one),
    mail: mailRepo(one),
    comments: commentsRepo(one),
    judgments: judgmentsRepo(one),
    agents: agentsRepo(one),
    workflows: workflowsRepo(one),
    folders: foldersRepo(one),
    documents: documentsRepo(one),
    users: usersRepo(one),
    memberships: membershipsRepo(one),
    groups: groupsRepo(one),
    documentData: documentDataRepo(one),
    documentMigrations: documentMigrationsRepo(one),
    webhooks: webhooksRepo(one, sqlite),
    inspection: inspectionRepo(one),
    crdt: crdtRepo(one),
    seed: seedRepo(one, sqlite),
    keyTransfer: keyTransferRepo(one),
  };
}
