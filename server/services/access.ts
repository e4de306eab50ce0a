import { and, eq, inArray, isNull, or, gt, sql } from 'drizzle-orm';
import type { AccessRole, DocumentAccessType } from '../../shared/schemas/common.ts';
import type { Db } from '../db/client.ts';
import { listValues, placeholderList, preparedFor, preparedShapes } from '../db/prepared.ts';
import { memberships, type MembershipLevel } from '../db/schema.ts';
import { findDocumentIn, type DocumentRow } from './documents.ts';
import { findFolder, type FolderRow } from './folders.ts';
import { findOrganizationIn, type OrganizationRow } from './organizations.ts';

/**
 * The one place that answers "may this user see this document, and as what?". Every other area (users,
 * permissions get, notifications' recipients, the CRDT websocket, comments) asks it; nothing else decides.
 *
 * The rules, in order:
 * 1. The document's effective access type is the stricter of its own and its folder's (folders inherit
 *    from their parent unless set): public < organizationPrivate < restricted.
 * 2. Roles come from unexpired memberships (users add/update, auth permissions, token generation) on the
 *    document, on its folder or any ancestor folder, and on the organization; the organization membership
 *    does not count when the document is restricted.
 * 3. A public document is open to every user of the API key: editor unless a membership says otherwise.
 * 4. The best role wins (editor over viewer); a disabled document or organization makes it viewer.
 * User groups do not grant access: the hosted service uses them for contacts and mentions.
 */

const STRICTNESS: Record<DocumentAccessType, number> = { public: 0, organizationPrivate: 1, restricted: 2 };
const stricter = (a: DocumentAccessType, b: DocumentAccessType) => (STRICTNESS[a] >= STRICTNESS[b] ? a : b);
const better = (a: AccessRole | null, b: AccessRole) => (a === 'editor' || b === 'editor' ? 'editor' : 'viewer');

export interface AccessDecision {
  exists: boolean;
  access: boolean;
  accessRole: AccessRole | null;
  /** The effective access type of the resource (documents and folders). */
  accessType: DocumentAccessType | null;
  /** Why, in words, for the admin UI and for debugging an app's permissions. */
  reasons: string[];
}

type MembershipRow = typeof memberships.$inferSelect;

const m = memberships;
const P = sql.placeholder;
/** The API key's organization, as placeholders `apiKeyId` and `organizationId`. */
const inOrganization = [eq(m.apiKeyId, P('apiKeyId')), eq(m.organizationId, P('organizationId'))];
const queries = preparedFor((db) => ({
  /** A user's memberships in an organization, unexpired at `now`. */
  ofUser: db
    .select()
    .from(m)
    .where(and(...inOrganization, eq(m.userId, P('userId')), or(isNull(m.expiresAt), gt(m.expiresAt, P('now')))))
    .prepare(),
  one: db
    .select()
    .from(m)
    .where(and(...inOrganization, eq(m.level, P('level')), eq(m.resourceId, P('resourceId')), eq(m.userId, P('userId'))))
    .prepare(),
}));

/** The users with a membership at `level` on any of `count` resources (placeholders r0, r1, …). */
const membersAt = preparedShapes((db, shape: `${MembershipLevel}:${number}`) => {
  const [level, count] = shape.split(':') as [MembershipLevel, string];
  return db
    .select({ userId: m.userId })
    .from(m)
    .where(and(...inOrganization, eq(m.level, level), inArray(m.resourceId, placeholderList('r', Number(count)))))
    .prepare();
});

/** Memberships of one user in one organization, unexpired at `now`, grouped by level and resource. */
function loadMemberships(db: Db, apiKeyId: string, organizationId: string, userId: string, now: number) {
  const rows = queries(db).ofUser.all({ apiKeyId, organizationId, userId, now });
  const byKey = new Map<string, MembershipRow>();
  for (const row of rows) byKey.set(`${row.level}:${row.resourceId}`, row);
  return (level: MembershipLevel, resourceId: string) => byKey.get(`${level}:${resourceId}`);
}

/**
 * Answers access questions for one organization, caching what it reads, so that a request that asks about
 * many users and resources (permissions get, notification recipients) reads each row once.
 */
export function createAccessResolverIn(db: Db, apiKeyId: string, organizationId: string, now = Date.now()) {
  let organization: OrganizationRow | null | undefined;
  const docs = new Map<string, DocumentRow | null>();
  const foldersById = new Map<string, FolderRow | null>();
  const userMemberships = new Map<string, ReturnType<typeof loadMemberships>>();

  const org = () => (organization === undefined ? (organization = findOrganizationIn(db, apiKeyId, organizationId) ?? null) : organization);
  const doc = (id: string) => {
    if (!docs.has(id)) docs.set(id, findDocumentIn(db, apiKeyId, organizationId, id) ?? null);
    return docs.get(id) ?? null;
  };
  const folder = (id: string) => {
    if (!foldersById.has(id)) foldersById.set(id, findFolder(db, apiKeyId, organizationId, id) ?? null);
    return foldersById.get(id) ?? null;
  };
  const membershipOf = (userId: string) => {
    let lookup = userMemberships.get(userId);
    if (!lookup) userMemberships.set(userId, (lookup = loadMemberships(db, apiKeyId, organizationId, userId, now)));
    return lookup;
  };

  /** Roles from the folder chain: the folder itself and every ancestor. */
  function folderChainRole(userId: string, f: FolderRow, reasons: string[]): AccessRole | null {
    let role: AccessRole | null = null;
    for (const id of [...f.ancestors.filter((a) => a !== 'root'), f.id]) {
      const m = membershipOf(userId)('folder', id);
      if (m) {
        role = better(role, m.accessRole);
        reasons.push(`${m.accessRole} through membership of folder "${id}"`);
      }
    }
    return role;
  }

  function finish(role: AccessRole | null, accessType: DocumentAccessType | null, reasons: string[], disabledBy: string | null): AccessDecision {
    if (role && disabledBy && role === 'editor') {
      role = 'viewer';
      reasons.push(`read-only: ${disabledBy} is disabled`);
    }
    if (!role) reasons.push('no membership grants access');
    return { exists: true, access: role !== null, accessRole: role, accessType, reasons };
  }

  return {
    organization(userId: string): AccessDecision {
      const o = org();
      if (!o) return { exists: false, access: false, accessRole: null, accessType: null, reasons: ['the organization does not exist'] };
      const m = membershipOf(userId)('organization', organizationId);
      const reasons = m ? [`${m.accessRole} through organization membership`] : [];
      return finish(m?.accessRole ?? null, null, reasons, o.disabled ? 'the organization' : null);
    },

    folder(userId: string, folderId: string): AccessDecision {
      const o = org();
      const f = o ? folder(folderId) : null;
      if (!o || !f) return { exists: false, access: false, accessRole: null, accessType: null, reasons: ['the folder does not exist'] };
      const reasons: string[] = [];
      let role = folderChainRole(userId, f, reasons);
      const orgMembership = membershipOf(userId)('organization', organizationId);
      if (orgMembership) {
        if (f.accessType === 'restricted') reasons.push('organization membership does not apply: the folder is restricted');
        else {
          role = better(role, orgMembership.accessRole);
          reasons.push(`${orgMembership.accessRole} through organization membership`);
        }
      }
      return finish(role, f.accessType, reasons, o.disabled ? 'the organization' : null);
    },

    document(userId: string, documentId: string): AccessDecision {
      const o = org();
      const d = o ? doc(documentId) : null;
      if (!o || !d) return { exists: false, access: false, accessRole: null, accessType: null, reasons: ['the document does not exist'] };
      const reasons: string[] = [];
      const f = d.folderId ? folder(d.folderId) : null;
      const accessType = stricter(d.accessType, f?.accessType ?? 'public');
      if (accessType !== d.accessType && f) reasons.push(`the document is ${d.accessType}, but its folder "${f.id}" makes it ${accessType}`);
      let role: AccessRole | null = null;
      const docMembership = membershipOf(userId)('document', documentId);
      if (docMembership) {
        role = docMembership.accessRole;
        reasons.push(`${docMembership.accessRole} through document membership`);
      }
      if (f) {
        const folderRole = folderChainRole(userId, f, reasons);
        if (folderRole) role = better(role, folderRole);
      }
      const orgMembership = membershipOf(userId)('organization', organizationId);
      if (orgMembership) {
        if (accessType === 'restricted') reasons.push('organization membership does not apply: the document is restricted');
        else {
          role = better(role, orgMembership.accessRole);
          reasons.push(`${orgMembership.accessRole} through organization membership`);
        }
      }
      if (!role && accessType === 'public') {
        role = 'editor';
        reasons.push('editor: the document is public, open to every user of the API key');
      }
      return finish(role, accessType, reasons, d.disabled ? 'the document' : o.disabled ? 'the organization' : null);
    },

    /**
     * Everyone who can open the document, with their role: the members of the document, of its folder chain
     * and (unless restricted) of the organization. For a public document that is every user known there.
     */
    documentUsers(documentId: string): Map<string, AccessRole> {
      const d = org() ? doc(documentId) : null;
      const result = new Map<string, AccessRole>();
      if (!d) return result;
      const f = d.folderId ? folder(d.folderId) : null;
      const targets: Array<[MembershipLevel, string[]]> = [
        ['document', [documentId]],
        ['organization', [organizationId]],
      ];
      if (f) targets.push(['folder', [...f.ancestors.filter((a) => a !== 'root'), f.id]]);
      const candidates = new Set<string>();
      for (const [level, ids] of targets) {
        const values: Record<string, string> = { apiKeyId, organizationId };
        listValues(values, 'r', ids);
        for (const row of membersAt(db, `${level}:${ids.length}`).all(values)) candidates.add(row.userId);
      }
      for (const userId of candidates) {
        const decision = this.document(userId, documentId);
        if (decision.accessRole) result.set(userId, decision.accessRole);
      }
      return result;
    },
  };
}

export type AccessResolverIn = ReturnType<typeof createAccessResolverIn>;

/** Convenience for one question. */
export function documentAccessIn(db: Db, apiKeyId: string, organizationId: string, documentId: string, userId: string): AccessDecision {
  return createAccessResolverIn(db, apiKeyId, organizationId).document(userId, documentId);
}

/** Writes one membership (insert or change the role and expiry). */
export function upsertMembershipIn(
  tx: Db,
  row: { apiKeyId: string; organizationId: string; level: MembershipLevel; resourceId: string; userId: string; accessRole: AccessRole; expiresAt: number | null },
) {
  const now = Date.now();
  tx.insert(memberships)
    .values({ ...row, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: [memberships.apiKeyId, memberships.organizationId, memberships.level, memberships.resourceId, memberships.userId],
      set: { accessRole: row.accessRole, expiresAt: row.expiresAt, updatedAt: now },
    })
    .run();
}

export function findMembershipIn(tx: Db, key: { apiKeyId: string; organizationId: string; level: MembershipLevel; resourceId: string; userId: string }) {
  return queries(tx).one.get(key);
}
