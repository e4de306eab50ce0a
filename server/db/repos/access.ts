// What the access resolver (services/access.ts) decides from: an organization's row, its documents and folders,
// and users' memberships there. A question is answered from these facts within one step (one `engine.read`), so
// that a resolver asked about many users and documents reads each row once and waits once per question.
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { preparedFor } from '../prepared.ts';
import { organizations } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';
import { findDocumentOn, type DocumentRow } from './documents.ts';
import { findFolderOn, type FolderRow } from './folders.ts';
import { membershipReads, type MembershipLevel, type MembershipRow } from './memberships.ts';
import type { OrganizationRow } from './organizations.ts';

const organizationById = preparedFor((db) =>
  db
    .select()
    .from(organizations)
    .where(and(eq(organizations.apiKeyId, sql.placeholder('apiKeyId')), eq(organizations.id, sql.placeholder('id'))))
    .prepare(),
);

/** The organization, on a given connection (the access facts and notifications/add's first read read it inside their own step). */
export const findOrganizationOn = (db: Db, apiKeyId: string, id: string): OrganizationRow | undefined => organizationById(db).get({ apiKeyId, id });

/** The reads of one organization of a key, on one connection, for the duration of one step. */
export interface AccessFacts {
  organization(): OrganizationRow | undefined;
  document(id: string): DocumentRow | undefined;
  folder(id: string): FolderRow | undefined;
  /** The user's memberships in the organization, unexpired at `now`. */
  membershipsOf(userId: string, now: number): MembershipRow[];
  /** The users with a membership at `level` on any of these resources (repeated when on several). */
  usersAt(level: MembershipLevel, resourceIds: readonly string[]): string[];
}

function factsOn(db: Db, apiKeyId: string, organizationId: string): AccessFacts {
  return {
    organization: () => findOrganizationOn(db, apiKeyId, organizationId),
    document: (id) => findDocumentOn(db, apiKeyId, organizationId, id),
    folder: (id) => findFolderOn(db, apiKeyId, organizationId, id),
    membershipsOf: (userId, now) => membershipReads.ofUser(db, apiKeyId, organizationId, userId, now),
    usersAt: (level, resourceIds) => membershipReads.usersAt(db, apiKeyId, organizationId, level, resourceIds),
  };
}

export function accessRepo(engine: SqliteEngine) {
  return {
    /** Runs `ask` (synchronous, reads only) over the facts of the key's organization, in one step. */
    read: <T>(scope: TenantScope, organizationId: string, ask: (facts: AccessFacts) => T) =>
      engine.read((db) => ask(factsOn(db, scope.apiKeyId, organizationId))),
  };
}
