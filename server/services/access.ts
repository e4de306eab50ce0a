import { currentTime } from '../clock.ts';
import type { AccessRole, DocumentAccessType } from '../../shared/schemas/common.ts';
import type { AccessFacts } from '../db/repos/access.ts';
import type { DocumentRow } from '../db/repos/documents.ts';
import { folderChain, type FolderRow } from '../db/repos/folders.ts';
import type { Storage } from '../db/repos/index.ts';
import type { MembershipLevel, MembershipRow } from '../db/repos/memberships.ts';
import type { OrganizationRow } from '../db/repos/organizations.ts';
import type { TenantScope } from '../db/scope.ts';

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

/** What a resolver keeps between questions: each row read once per resolver. */
interface Cache {
  organization: OrganizationRow | null | undefined;
  documents: Map<string, DocumentRow | null>;
  folders: Map<string, FolderRow | null>;
  memberships: Map<string, (level: MembershipLevel, resourceId: string) => MembershipRow | undefined>;
  /** The users with a membership on a resource (`level:resourceId`), by user id: only what the caller knew. */
  members: Map<string, string[]>;
}

const newCache = (): Cache => ({ organization: undefined, documents: new Map(), folders: new Map(), memberships: new Map(), members: new Map() });
const ascending = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The resources whose members documentUsers asks for: the document, the organization and the document's folder chain. */
export function documentMemberships(organizationId: string, documentId: string, folder: FolderRow | null | undefined): Array<[MembershipLevel, string[]]> {
  const at: Array<[MembershipLevel, string[]]> = [
    ['document', [documentId]],
    ['organization', [organizationId]],
  ];
  if (folder) at.push(['folder', folderChain(folder)]);
  return at;
}

/**
 * The rules over one organization's facts (read on one connection for the current step), remembering in `cache`
 * what they read.
 */
function rules(facts: AccessFacts, cache: Cache, organizationId: string, now: number) {
  const org = () => (cache.organization === undefined ? (cache.organization = facts.organization() ?? null) : cache.organization);
  const doc = (id: string) => {
    if (!cache.documents.has(id)) cache.documents.set(id, facts.document(id) ?? null);
    return cache.documents.get(id) ?? null;
  };
  const folder = (id: string) => {
    if (!cache.folders.has(id)) cache.folders.set(id, facts.folder(id) ?? null);
    return cache.folders.get(id) ?? null;
  };
  /**
   * The users with a membership at `level` on any of the resources, as facts.usersAt answers them (by resource id,
   * then user id; repeated when on several): from what the caller knew when it knew them all.
   */
  const usersAt = (level: MembershipLevel, ids: readonly string[]): string[] => {
    const lists = [...new Set(ids)].sort(ascending).map((id) => cache.members.get(`${level}:${id}`));
    return lists.every((list) => list !== undefined) ? lists.flat() : facts.usersAt(level, ids);
  };
  /** Memberships of one user in the organization, unexpired at `now`, by level and resource. */
  const membershipOf = (userId: string) => {
    let lookup = cache.memberships.get(userId);
    if (!lookup) {
      const byKey = new Map<string, MembershipRow>();
      for (const row of facts.membershipsOf(userId, now)) byKey.set(`${row.level}:${row.resourceId}`, row);
      cache.memberships.set(userId, (lookup = (level, resourceId) => byKey.get(`${level}:${resourceId}`)));
    }
    return lookup;
  };

  /** Roles from the folder chain: the folder itself and every ancestor. */
  function folderChainRole(userId: string, f: FolderRow, reasons: string[]): AccessRole | null {
    let role: AccessRole | null = null;
    for (const id of folderChain(f)) {
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
      const candidates = new Set<string>();
      for (const [level, ids] of documentMemberships(organizationId, documentId, f)) for (const userId of usersAt(level, ids)) candidates.add(userId);
      for (const userId of candidates) {
        const decision = this.document(userId, documentId);
        if (decision.accessRole) result.set(userId, decision.accessRole);
      }
      return result;
    },
  };
}

type Rules = ReturnType<typeof rules>;

/**
 * Answers access questions for one organization of the key, caching what it reads, so that a request that asks
 * about many users and resources (permissions get, notification recipients) reads each row once. Each question
 * is one step of storage (inside the caller's unit of work, if any); `batch` asks several in one.
 */
export function createAccessResolver(
  deps: { storage: Pick<Storage, 'access'> },
  scope: TenantScope,
  organizationId: string,
  now = currentTime(),
  known?: {
    organization?: OrganizationRow | undefined;
    documents?: readonly DocumentRow[];
    folders?: readonly FolderRow[];
    /** The members of the resources `at` (every one of them, none left out), by level, resource and user. */
    members?: { at: Array<[MembershipLevel, string[]]>; rows: ReadonlyArray<{ level: MembershipLevel; resourceId: string; userId: string }> } | undefined;
  },
) {
  const cache = newCache();
  // rows the caller read in its own step (notifications/add's prelude: the organization, the document, its folder
  // and members), so that the resolver does not read them again: on PostgreSQL each is a round trip of its own
  if (known?.organization) cache.organization = known.organization;
  for (const row of known?.documents ?? []) cache.documents.set(row.id, row);
  for (const row of known?.folders ?? []) cache.folders.set(row.id, row);
  for (const [level, ids] of known?.members?.at ?? []) for (const id of ids) cache.members.set(`${level}:${id}`, []);
  for (const row of known?.members?.rows ?? []) cache.members.get(`${row.level}:${row.resourceId}`)?.push(row.userId);
  const batch = <T>(ask: (resolver: Rules) => T): Promise<T> =>
    deps.storage.access.read(scope, organizationId, (facts) => ask(rules(facts, cache, organizationId, now)));
  return {
    batch,
    organization: (userId: string) => batch((r) => r.organization(userId)),
    folder: (userId: string, folderId: string) => batch((r) => r.folder(userId, folderId)),
    document: (userId: string, documentId: string) => batch((r) => r.document(userId, documentId)),
    documentUsers: (documentId: string) => batch((r) => r.documentUsers(documentId)),
  };
}

export type AccessResolver = ReturnType<typeof createAccessResolver>;

/** Convenience for one question. */
export function documentAccess(
  deps: { storage: Pick<Storage, 'access'> },
  scope: TenantScope,
  organizationId: string,
  documentId: string,
  userId: string,
): Promise<AccessDecision> {
  return createAccessResolver(deps, scope, organizationId).document(userId, documentId);
}
