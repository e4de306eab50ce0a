// The access facts on PostgreSQL: the same repository as ../../repos/access.ts (its type is the contract;
// test/pg/access.test.ts runs both on the same questions and compares every answer).
//
// The problem. On SQLite `read(scope, organizationId, ask)` runs the synchronous `ask` (the access resolver's rules,
// services/access.ts) inside one `engine.read`, and each fact it asks for (the organization, a document, a folder, a
// user's memberships, the members of some resources) is a synchronous statement on that connection. PostgreSQL
// cannot answer synchronously, and which facts `ask` needs is only known by running it (a document's folder decides
// which ancestors, its memberships which levels).
//
// The design: `ask` runs over facts served from an in-memory snapshot loaded for this call. A fact that is not
// loaded yet records what is missing (all of it that the call names: `usersAt`'s several resources at once) and
// throws a private sentinel, which ends that run; the missing facts are then loaded, one statement per kind, and
// `ask` runs again, until a run completes without missing anything. Every load is generous with what the resolver
// asks next, so that a question costs a few statements however deep its folder is:
// - a document comes with its folder and all the folder's ancestors (folders carry `ancestors`), in the statement
//   that loads the folders: a document question costs the same for a folder 1 or 20 levels down (today's resolver
//   reads only the document's folder, whose `accessType` is stored resolved, and takes the chain's ids from
//   `ancestors`; the ancestors' rows cost no round trip and serve an ask that walks the chain);
// - a user's memberships are all of that user's rows in the organization (expired ones too), so any `now` is
//   answered in memory, as SQLite's `expires_at IS NULL OR expires_at > now`;
// - the members of resources (`usersAt`, documentUsers' candidates) come with the members of the organization and of
//   the asked documents' folder chains, and the memberships of every member found are loaded in the same round (the
//   resolver asks each candidate's decision next);
// - the second time a kind is missing within one call (a batch about many documents, folders or users, as
//   permissions/get, the admin's access list and notifications ask), the organization's whole set of that kind is
//   loaded in one statement, so a call costs at most two request-driven rounds per kind, whatever its batch size.
//   The bound of MAX_ROUNDS is a safety net (an `ask` that is not deterministic): by construction a call needs
//   at most nine rounds (the organization once, documents, folders, users' memberships and members twice each).
// A run is stopped also when `ask` caught the sentinel itself (anything missing during a run means the run is
// discarded, whatever it returned or threw), and a real error from a run that missed nothing is the answer.
//
// Why running `ask` again is safe: it only reads. The resolver (services/access.ts `rules`) writes to its cache
// only the value a fact returned, after it returned (`cache.documents.set(id, facts.document(id) ?? null)`,
// `cache.organization = facts.organization() ?? null`, `cache.memberships.set(...)` after the rows are read): a
// fact that throws leaves the cache as it was, and a run that follows writes the same values again (from the same
// snapshot), so the writes are idempotent. Its results (decisions, documentUsers' map) are built anew by each run.
//
// One snapshot. Every statement of one call runs in one REPEATABLE READ unit of work (or in the caller's unit of
// work, whose isolation it shares), so the facts are of one instant, as SQLite's single step. A call whose `ask`
// needs no fact it lacks (the resolver's cache holds them all) runs no statement at all.
//
// Differences from SQLite: `membershipsOf` answers a user's rows by level then resource id (SQLite answers them in
// insertion order, the memberships_user index's rowid order; the resolver keys them by level and resource and does
// not see the order). `usersAt` answers by resource id then user id, as SQLite's plan does (the primary key walked
// for each distinct resource id, in order).
import { and, asc, eq, sql } from 'drizzle-orm';
import type { accessRepo, AccessFacts } from '../../repos/access.ts';
import type { DocumentRow } from '../../repos/documents.ts';
import { folderChain, type FolderRow } from '../../repos/folders.ts';
import type { MembershipLevel, MembershipRow } from '../../repos/memberships.ts';
import type { OrganizationRow } from '../../repos/organizations.ts';
import type { TenantScope } from '../../scope.ts';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Prepared, Q } from '../../engine.ts';
import { pgDialect } from '../dialect.ts';
import type { PgDb, PgEngine } from '../engine.ts';
import { pgTableFor } from '../schema.ts';

export type AccessRepo = ReturnType<typeof accessRepo>;

const { table: organizations, c: o } = pgTableFor('organizations');
const { table: documents, c: d } = pgTableFor('documents');
const { table: folders, c: f } = pgTableFor('folders');
const { table: memberships, c: m } = pgTableFor('memberships');

/** Runs of `ask` one call may take before it gives up (a safety net: a deterministic `ask` needs far fewer). */
export const MAX_ROUNDS = 32;

/** Thrown by a fact that is not loaded yet; never leaves this module. */
const MISSING: unique symbol = Symbol('hearth.access.missing');

const anyOf = (column: PgColumn, name: string) => sql`${column} = ANY(${sql.placeholder(name)}::text[])`;
const membersKey = (level: MembershipLevel, resourceId: string) => `${level}\u0000${resourceId}`;
/** Ascending, as SQLite's BINARY and PostgreSQL's C collation compare ids (ids are ASCII in practice). */
const ascending = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** What one call has loaded, and what the current run of `ask` lacked. */
class Snapshot {
  organization: { row: OrganizationRow | undefined } | undefined;
  readonly documents = new Map<string, DocumentRow | null>();
  readonly folders = new Map<string, FolderRow | null>();
  /** Every row of a user in the organization (expired ones too), by level then resource id. */
  readonly memberships = new Map<string, MembershipRow[]>();
  /** The users with a membership on one resource (`membersKey`), by user id. */
  readonly membersAt = new Map<string, string[]>();
  allDocuments = false;
  allFolders = false;
  allMemberships = false;
  /** Request-driven loads so far, per kind: the second loads the organization's whole set. */
  readonly loads = { documents: 0, folders: 0, memberships: 0, membersAt: 0 };
  want = Snapshot.nothing();

  static nothing() {
    return {
      organization: false,
      documents: new Set<string>(),
      folders: new Set<string>(),
      users: new Set<string>(),
      membersAt: new Map<string, [MembershipLevel, string]>(),
    };
  }

  wanting(): boolean {
    const w = this.want;
    return w.organization || w.documents.size + w.folders.size + w.users.size + w.membersAt.size > 0;
  }
}

function factsOf(s: Snapshot): AccessFacts {
  return {
    organization() {
      if (s.organization) return s.organization.row;
      s.want.organization = true;
      throw MISSING;
    },
    document(id) {
      const row = s.documents.get(id);
      if (row !== undefined) return row ?? undefined;
      if (s.allDocuments) return undefined;
      s.want.documents.add(id);
      throw MISSING;
    },
    folder(id) {
      const row = s.folders.get(id);
      if (row !== undefined) return row ?? undefined;
      if (s.allFolders) return undefined;
      s.want.folders.add(id);
      throw MISSING;
    },
    membershipsOf(userId, now) {
      const rows = s.memberships.get(userId) ?? (s.allMemberships ? [] : undefined);
      if (!rows) {
        s.want.users.add(userId);
        throw MISSING;
      }
      return rows.filter((row) => row.expiresAt === null || row.expiresAt > now);
    },
    usersAt(level, resourceIds) {
      const users: string[] = [];
      let missing = false;
      for (const id of [...new Set(resourceIds)].sort(ascending)) {
        const key = membersKey(level, id);
        const found = s.membersAt.get(key) ?? (s.allMemberships ? [] : undefined);
        if (found) users.push(...found);
        else {
          s.want.membersAt.set(key, [level, id]);
          missing = true;
        }
      }
      if (missing) throw MISSING;
      return users;
    },
  };
}

type Run<T> = { done: true; value: T } | { done: false };

/** One run of `ask`: its answer, or that it lacked facts (recorded in `s.want`). */
function attempt<T>(ask: (facts: AccessFacts) => T, facts: AccessFacts, s: Snapshot): Run<T> {
  s.want = Snapshot.nothing();
  let value: T;
  try {
    value = ask(facts);
  } catch (error) {
    // a run that missed a fact is discarded, whatever it threw (the sentinel, or an error `ask` made of it)
    if (error === MISSING || s.wanting()) return { done: false };
    throw error;
  }
  return s.wanting() ? { done: false } : { done: true, value };
}

/** Keeps a user's memberships (rows of one user, in the order loaded) and the members of each resource. */
function keepMemberships(s: Snapshot, users: Iterable<string>, rows: MembershipRow[]) {
  for (const user of users) if (!s.memberships.has(user)) s.memberships.set(user, []);
  for (const row of rows) s.memberships.get(row.userId)?.push(row);
}

/**
 * The statements of `load`, each prepared once per connection (named, as every hot statement of the engine): every
 * access question of a request that is not in its resolver's cache runs some of them (notifications/add three).
 */
function statements(engine: PgEngine) {
  const one = pgDialect(engine);
  // typed by the caller: these are PostgreSQL's tables (pgTableFor), not the source schema's
  const named = <Row>(name: string, build: (db: PgDb) => unknown): Prepared<Row> =>
    one.prepare(name, (db: Q) => build(db as unknown as PgDb) as never) as unknown as Prepared<Row>;
  const key = sql.placeholder('apiKeyId');
  const org = sql.placeholder('organizationId');
  const inDocuments = and(eq(d.apiKeyId, key), eq(d.organizationId, org));
  const inFolders = and(eq(f.apiKeyId, key), eq(f.organizationId, org));
  const inMemberships = and(eq(m.apiKeyId, key), eq(m.organizationId, org));
  return {
    organization: named<OrganizationRow>('access.organization', (db) =>
      db
        .select()
        .from(organizations)
        .where(and(eq(o.apiKeyId, key), eq(o.id, org)))
        .limit(1),
    ),
    documents: named<DocumentRow>('access.documents', (db) =>
      db
        .select()
        .from(documents)
        .where(and(inDocuments, anyOf(d.id, 'ids'))),
    ),
    allDocuments: named<DocumentRow>('access.allDocuments', (db) => db.select().from(documents).where(inDocuments)),
    // the folders and every ancestor of theirs, in one statement
    folders: named<FolderRow>('access.folders', (db) =>
      db
        .select()
        .from(folders)
        .where(
          and(
            inFolders,
            sql`(${f.id} = ANY(${sql.placeholder('ids')}::text[]) OR ${f.id} IN (SELECT json_array_elements_text(a.ancestors) FROM folders a
              WHERE a.api_key_id = ${key} AND a.organization_id = ${org} AND a.id = ANY(${sql.placeholder('ids')}::text[])))`,
          ),
        ),
    ),
    allFolders: named<FolderRow>('access.allFolders', (db) => db.select().from(folders).where(inFolders)),
    allMemberships: named<MembershipRow>('access.allMemberships', (db) =>
      db.select().from(memberships).where(inMemberships).orderBy(asc(m.userId), asc(m.level), asc(m.resourceId)),
    ),
    membersAt: named<{ level: MembershipLevel; resourceId: string; userId: string }>('access.membersAt', (db) =>
      db
        .select({ level: m.level, resourceId: m.resourceId, userId: m.userId })
        .from(memberships)
        .where(and(inMemberships, anyOf(m.level, 'levels'), anyOf(m.resourceId, 'resources')))
        .orderBy(asc(m.level), asc(m.resourceId), asc(m.userId)),
    ),
    membershipsOf: named<MembershipRow>('access.membershipsOf', (db) =>
      db
        .select()
        .from(memberships)
        .where(and(inMemberships, anyOf(m.userId, 'users')))
        .orderBy(asc(m.userId), asc(m.level), asc(m.resourceId)),
    ),
  };
}

type Statements = ReturnType<typeof statements>;

/** Loads what the last run lacked, and what the resolver will ask next: one statement per kind. */
async function load(db: Q, st: Statements, apiKeyId: string, organizationId: string, s: Snapshot): Promise<void> {
  const w = s.want;
  const where = { apiKeyId, organizationId };

  if (w.organization) s.organization = { row: await st.organization.one(db, where) };

  const folderIds = new Set(w.folders);
  if (w.documents.size > 0) {
    const all = ++s.loads.documents > 1;
    const rows = all ? await st.allDocuments.all(db, where) : await st.documents.all(db, { ...where, ids: [...w.documents] });
    for (const id of w.documents) s.documents.set(id, null);
    for (const row of rows) {
      s.documents.set(row.id, row);
      // generous: the document's folder (and, below, its ancestors) is what the resolver reads next
      if (row.folderId && !s.folders.has(row.folderId)) folderIds.add(row.folderId);
    }
    if (all) s.allDocuments = true;
  }

  if (folderIds.size > 0 && !s.allFolders) {
    const all = w.folders.size > 0 && ++s.loads.folders > 1;
    const rows = all ? await st.allFolders.all(db, where) : await st.folders.all(db, { ...where, ids: [...folderIds] });
    for (const id of folderIds) s.folders.set(id, null);
    for (const row of rows) s.folders.set(row.id, row);
    if (all) s.allFolders = true;
  }

  const all = (w.users.size > 0 && ++s.loads.memberships > 1) || (w.membersAt.size > 0 && ++s.loads.membersAt > 1);
  if (all && !s.allMemberships) {
    // a call about many users or resources: the organization's memberships, in one statement
    const rows = await st.allMemberships.all(db, where);
    s.memberships.clear();
    s.membersAt.clear();
    keepMemberships(
      s,
      rows.map((row) => row.userId),
      rows,
    );
    const byResource = [...rows].sort((a, b) => ascending(a.level, b.level) || ascending(a.resourceId, b.resourceId) || ascending(a.userId, b.userId));
    for (const row of byResource) {
      const key = membersKey(row.level, row.resourceId);
      const users = s.membersAt.get(key);
      if (users) users.push(row.userId);
      else s.membersAt.set(key, [row.userId]);
    }
    s.allMemberships = true;
    return;
  }

  const users = new Set(w.users);
  if (w.membersAt.size > 0 && !s.allMemberships) {
    // generous: with the members of documents, those of the organization and of the documents' folder chains
    const wanted = new Map(w.membersAt);
    wanted.set(membersKey('organization', organizationId), ['organization', organizationId]);
    for (const [level, id] of w.membersAt.values()) {
      const folderId = level === 'document' ? s.documents.get(id)?.folderId : null;
      const folder = folderId ? s.folders.get(folderId) : null;
      if (folder) for (const chain of folderChain(folder)) wanted.set(membersKey('folder', chain), ['folder', chain]);
    }
    for (const key of wanted.keys()) if (s.membersAt.has(key)) wanted.delete(key);
    const levels = [...new Set([...wanted.values()].map(([level]) => level))];
    const resources = [...new Set([...wanted.values()].map(([, id]) => id))];
    const rows = await st.membersAt.all(db, { ...where, levels, resources });
    for (const key of wanted.keys()) s.membersAt.set(key, []);
    for (const row of rows) {
      const members = s.membersAt.get(membersKey(row.level, row.resourceId));
      if (!members) continue; // a level and resource pair nobody asked for
      members.push(row.userId);
      // generous: every member's decision is what the resolver asks next
      if (!s.memberships.has(row.userId)) users.add(row.userId);
    }
  }

  if (users.size > 0) keepMemberships(s, users, await st.membershipsOf.all(db, { ...where, users: [...users] }));
}

export function accessRepoPg(engine: PgEngine): AccessRepo {
  const st = statements(engine);
  return {
    read: async <T>(scope: TenantScope, organizationId: string, ask: (facts: AccessFacts) => T): Promise<T> => {
      const s = new Snapshot();
      const facts = factsOf(s);
      // everything in the resolver's cache already: no statement at all
      const first = attempt(ask, facts, s);
      if (first.done) return first.value;
      const rounds = () =>
        engine.read(async (db) => {
          for (let round = 1; round <= MAX_ROUNDS; round++) {
            await load(db as unknown as Q, st, scope.apiKeyId, organizationId, s);
            const run = attempt(ask, facts, s);
            if (run.done) return run.value;
          }
          throw new Error(`access facts: the question still lacked facts after ${MAX_ROUNDS} loads (is its ask deterministic, reading only its facts?)`);
        });
      // one snapshot for the whole call: the caller's unit of work, or one REPEATABLE READ of its own
      return engine.inTransaction() ? rounds() : engine.transaction(rounds, { isolation: 'repeatable read' });
    },
  };
}
