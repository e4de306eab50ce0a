// Units of work under concurrent requests, through real HTTP (issue 30). A service's unit of work awaits between
// its statements (test/unit/storage-engine.test.ts proves the engine keeps them apart); this test checks the
// services themselves: writes that each touch many rows (notifications with their recipients, created with their
// organization and document by several requests at once; bulk user and document adds; an organization's delete
// with its folders, documents and members; a folder's delete with its documents; a bulk document delete; a
// user's permissions on many documents) run while readers ask, over and over, for what those writes change. A
// reader must only ever see a write whole or not at all, every answer must be a proper envelope, and at the end
// every write is there in full.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type CallResult, type TestServer } from '../helpers/server.ts';
import { sqliteEngineOf } from '../../server/db/repos/index.ts';

let t: TestServer;

/** Rounds of writes, one after the other; the writes of a round go out at once. */
const ROUNDS = 8;
/** Readers asking all along. */
const READERS = 4;
const RECIPIENTS = 40;
/** Requests of one round that add notifications to the same new organization and document, at once. */
const NOTIFIERS = 4;
const BULK_USERS = 300;
const BULK_DOCUMENTS = 150;
/** Documents of an organization deleted whole, and of a deleted folder (half of them in its subfolder). */
const ORG_DOCUMENTS = 40;
const FOLDER_DOCUMENTS = 20;
const DELETED_DOCUMENTS = 60;
const PERMISSION_DOCUMENTS = 30;

/** The rounds of a sweep, by name (the ids of each round's organizations and documents carry it). */
const rounds = (tag: string) => Array.from({ length: ROUNDS }, (_, n) => `${tag}-${n}`);
const range = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
/** The first, a middle and the last of a bulk write's ids: a write seen in part shows there. */
const probes = (ids: string[]) => [ids[0], ids[Math.floor(ids.length / 2)], ids[ids.length - 1]] as string[];

const STATUS_OF: Record<string, number> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  ABORTED: 409,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
};

type Success<T> = { result: { status: 'success'; message: string; data: T; pageToken?: string | null; nextPageToken?: string | null } };
type Failure = { error: { status: string; message: string; details?: unknown } };
type Answer<T> = Success<T> | Failure;

/** Problems seen by readers and writers (a proper envelope, a write seen whole or not at all). */
const findings: string[] = [];

/** Checks that an answer is a proper envelope: a success with a message, or an error with its status name. */
function envelope<T>(path: string, res: CallResult<Answer<T>>): Answer<T> {
  const body = res.body as unknown;
  const keys = body !== null && typeof body === 'object' ? Object.keys(body) : [];
  if (res.status === 200) {
    const result = (body as Partial<Success<T>>).result;
    const extra = result ? Object.keys(result).filter((key) => !['status', 'message', 'data', 'pageToken', 'nextPageToken'].includes(key)) : [];
    if (keys.join() !== 'result' || result?.status !== 'success' || typeof result.message !== 'string' || extra.length > 0)
      findings.push(`${path}: not a success envelope: ${JSON.stringify(body).slice(0, 200)}`);
  } else {
    const error = (body as Partial<Failure>).error;
    if (keys.join() !== 'error' || typeof error?.message !== 'string' || STATUS_OF[error.status] !== res.status)
      findings.push(`${path}: not an error envelope (HTTP ${res.status}): ${JSON.stringify(body).slice(0, 200)}`);
  }
  return res.body;
}

async function ask<T>(path: string, data: unknown): Promise<Answer<T>> {
  return envelope(path, await t.callK<Answer<T>>(path, data));
}

/** A read's data; a refusal is a finding (the reads below are valid whatever the state). */
async function read<T>(path: string, data: unknown): Promise<T | undefined> {
  const answer = await ask<T>(path, data);
  if ('error' in answer) {
    findings.push(`${path} ${JSON.stringify(data).slice(0, 120)} refused: ${JSON.stringify(answer.error)}`);
    return undefined;
  }
  return answer.result.data;
}

/** A write must succeed (concurrent creates of the same organization included). */
async function write(path: string, data: unknown): Promise<void> {
  const answer = await ask<unknown>(path, data);
  if ('error' in answer) findings.push(`write ${path} refused: ${JSON.stringify(answer.error)}`);
}

type Access = Record<
  string,
  { organization: Record<string, { accessRole?: string; errorCode?: string }>; documents: Record<string, { accessRole?: string; errorCode?: string }> }
>;
type Notification = { id: string; notifyUsersByUserId: Record<string, unknown> };

/** Each distinct state a reader saw of a write: not yet done ('before'), done ('after'). */
const seen = new Map<string, Set<'before' | 'after'>>();
/**
 * What one check saw of a write, read by read in the order asked: each read whole or nothing, and never the
 * write done in an earlier read but not in a later one (time only moves forward).
 */
function saw(name: string, reads: ReadonlyArray<{ what: string; done: boolean | 'partial' }>) {
  const partial = reads.filter((read) => read.done === 'partial');
  const firstDone = reads.findIndex((read) => read.done === true);
  const undoneLater = firstDone >= 0 && reads.slice(firstDone).some((read) => read.done === false);
  if (partial.length > 0 || undoneLater) findings.push(`${name}: seen in part: ${JSON.stringify(reads)}`);
  else seen.set(name, (seen.get(name) ?? new Set()).add(reads.every((read) => read.done === true) ? 'after' : 'before'));
}
/** Whether a count of rows a write adds (or takes away) says done, not yet, or in part. */
const countSays = (count: number, whole: number, adds: boolean): boolean | 'partial' => (count === whole ? adds : count === 0 ? !adds : 'partial');

/** How many of `ids` documents/get finds (it answers NOT_FOUND with the missing ones when any is missing). */
async function documentsFound(organizationId: string, ids: string[]): Promise<number> {
  const answer = await ask<{ id: string }[]>('/v2/organizations/documents/get', { organizationId, documentIds: ids });
  if ('result' in answer) return answer.result.data.length;
  const missing = answer.error.details;
  return Array.isArray(missing) ? ids.length - missing.length : 0;
}

type FolderNode = { folderId: string; subFolders?: FolderNode[] };
/** Whether a folder and its subfolder are in an organization's tree: both, neither, or one (in part). */
async function folderThere(organizationId: string, folderId: string, subFolderId: string): Promise<boolean | 'partial' | undefined> {
  const tree = await read<FolderNode[]>('/v2/organizations/folders/get', { organizationId });
  if (!tree) return undefined;
  const folder = tree.find((node) => node.folderId === folderId);
  const sub = folder?.subFolders?.some((node) => node.folderId === subFolderId) ?? false;
  return folder === undefined ? false : sub ? true : 'partial';
}

/** The checks of round r, each a few reads that must see each write whole or not at all. */
function checksOf(r: string): (() => Promise<void>)[] {
  return [
    // notifications added at once to a new organization and document, each with all its recipients, and the
    // organization and document that came with the first of them
    async () => {
      const organizationId = `notified-${r}`;
      const found = await read<Notification[]>('/v2/notifications/get', { organizationId, documentId: 'doc', notificationIds: range(NOTIFIERS, 'n') });
      if (!found) return;
      const organizations = found.length > 0 ? await read<{ id: string }[]>('/v2/organizations/get', { organizationIds: [organizationId] }) : undefined;
      const document = found.length > 0 ? await documentsFound(organizationId, ['doc']) : 1;
      for (const notificationId of range(NOTIFIERS, 'n')) {
        const notification = found.find((n) => n.id === notificationId);
        const recipients = notification ? Object.keys(notification.notifyUsersByUserId).length : 0;
        const reads = [{ what: 'notification and recipients', done: countSays(recipients, RECIPIENTS, true) }];
        if (notification) reads.push({ what: 'organization and document', done: organizations?.length === 1 && document === 1 });
        saw(`notification ${organizationId}/${notificationId}`, reads);
      }
    },
    // users added in bulk (with their organization)
    async () => {
      const organizationId = `bulk-users-${r}`;
      const access = await read<Access>('/v2/auth/permissions/get', { organizationId, userIds: probes(range(BULK_USERS, 'u')) });
      if (!access) return;
      const members = Object.values(access).filter((user) => user.organization[organizationId]?.accessRole === 'editor').length;
      saw(`users of ${organizationId}`, [{ what: 'members', done: countSays(members, 3, true) }]);
    },
    // documents added in bulk (with their organization)
    async () => {
      const organizationId = `bulk-docs-${r}`;
      const documents = await read<{ id: string }[]>('/v2/organizations/documents/get', { organizationId });
      if (documents) saw(`documents of ${organizationId}`, [{ what: 'documents', done: countSays(documents.length, BULK_DOCUMENTS, true) }]);
    },
    // an organization deleted with its folders, documents and members
    async () => {
      const organizationId = `deleted-${r}`;
      const documents = await read<{ id: string }[]>('/v2/organizations/documents/get', { organizationId });
      const folders = await folderThere(organizationId, 'top', 'sub');
      const access = await read<Access>('/v2/auth/permissions/get', { organizationId, userIds: ['m0', 'm1'] });
      const organizations = await read<{ id: string }[]>('/v2/organizations/get', { organizationIds: [organizationId] });
      if (!documents || folders === undefined || !access || !organizations) return;
      const members = Object.values(access).filter((user) => user.organization[organizationId]?.accessRole === 'editor').length;
      saw(`delete of ${organizationId}`, [
        { what: 'documents', done: countSays(documents.length, ORG_DOCUMENTS, false) },
        { what: 'folders', done: folders === 'partial' ? folders : !folders },
        { what: 'members', done: countSays(members, 2, false) },
        { what: 'organization', done: organizations.length === 0 },
      ]);
    },
    // a folder deleted with its subfolder and their documents
    async () => {
      const found = await documentsFound('folders', probes(range(FOLDER_DOCUMENTS, `f${r}-d`)));
      const folder = await folderThere('folders', `fold-${r}`, `fold-${r}-sub`);
      if (folder === undefined) return;
      saw(`delete of fold-${r}`, [
        { what: 'documents', done: countSays(found, 3, false) },
        { what: 'folders', done: folder === 'partial' ? folder : !folder },
      ]);
    },
    // documents deleted in bulk
    async () => {
      const found = await documentsFound('doc-deletes', probes(range(DELETED_DOCUMENTS, `x${r}-`)));
      saw(`documents delete ${r}`, [{ what: 'documents', done: countSays(found, 3, false) }]);
    },
    // a user's permissions on many restricted documents, added in one call
    async () => {
      const ids = range(PERMISSION_DOCUMENTS, 'p');
      const access = await read<Access>('/v2/auth/permissions/get', { organizationId: 'perms', userIds: [`grantee-${r}`], documentIds: ids });
      if (!access) return;
      const granted = Object.values(access[`grantee-${r}`]?.documents ?? {}).filter((doc) => doc.accessRole === 'viewer').length;
      saw(`permissions of grantee-${r}`, [{ what: 'documents granted', done: countSays(granted, ids.length, true) }]);
    },
  ];
}

/** The writes of round r, all at once. */
function writesOf(r: string): Promise<void>[] {
  const recipients = range(RECIPIENTS, 'r').map((userId) => ({ userId }));
  return [
    ...range(NOTIFIERS, 'n').map((notificationId) =>
      write('/v2/notifications/add', {
        organizationId: `notified-${r}`,
        createOrganization: true,
        documentId: 'doc',
        createDocument: true,
        notificationId,
        actionUser: { userId: 'actor' },
        displayHeadlineMessageTemplate: 'h',
        displayBodyMessage: 'b',
        notifyAll: false,
        notifyUsers: recipients,
      }),
    ),
    write('/v2/users/add', { organizationId: `bulk-users-${r}`, users: range(BULK_USERS, 'u').map((userId) => ({ userId, name: userId })) }),
    write('/v2/organizations/documents/add', {
      organizationId: `bulk-docs-${r}`,
      createOrganization: true,
      documents: range(BULK_DOCUMENTS, 'd').map((documentId) => ({ documentId })),
    }),
    write('/v2/organizations/delete', { organizationIds: [`deleted-${r}`] }),
    write('/v2/organizations/folders/delete', { organizationId: 'folders', folderId: `fold-${r}` }),
    write('/v2/organizations/documents/delete', { organizationId: 'doc-deletes', documentIds: range(DELETED_DOCUMENTS, `x${r}-`) }),
    write('/v2/auth/permissions/add', {
      user: { userId: `grantee-${r}` },
      permissions: { resources: range(PERMISSION_DOCUMENTS, 'p').map((id) => ({ type: 'document', id, organizationId: 'perms', accessRole: 'viewer' })) },
    }),
  ];
}

beforeAll(async () => {
  t = await startTestServer();
  const must = async (path: string, data: unknown) => {
    const res = await t.callK<Answer<unknown>>(path, data);
    if (res.status !== 200) throw new Error(`set-up ${path} failed: ${JSON.stringify(res.body)}`);
  };
  await must('/v2/organizations/add', { organizations: [{ organizationId: 'folders' }, { organizationId: 'doc-deletes' }, { organizationId: 'perms' }] });
  await must('/v2/organizations/documents/add', {
    organizationId: 'perms',
    documents: range(PERMISSION_DOCUMENTS, 'p').map((documentId) => ({ documentId, accessType: 'restricted' })),
  });
  for (const r of [...rounds('shipped'), ...rounds('trips')]) {
    // an organization with a folder tree, documents, members and a group, to be deleted whole
    const organizationId = `deleted-${r}`;
    await must('/v2/organizations/folders/add', {
      organizationId,
      createOrganization: true,
      folders: [{ folderId: 'top' }, { folderId: 'sub', parentFolderId: 'top' }],
    });
    await must('/v2/organizations/documents/add', {
      organizationId,
      folderId: 'sub',
      documents: range(ORG_DOCUMENTS, 'd').map((documentId) => ({ documentId })),
    });
    await must('/v2/users/add', { organizationId, users: [{ userId: 'm0' }, { userId: 'm1' }] });
    await must('/v2/organizations/usergroups/add', { organizationId, organizationUserGroups: [{ groupId: 'g' }] });
    // a folder and its subfolder, half of the documents in each, to be deleted
    await must('/v2/organizations/folders/add', {
      organizationId: 'folders',
      folders: [{ folderId: `fold-${r}` }, { folderId: `fold-${r}-sub`, parentFolderId: `fold-${r}` }],
    });
    const inFolder = range(FOLDER_DOCUMENTS, `f${r}-d`);
    await must('/v2/organizations/documents/add', {
      organizationId: 'folders',
      folderId: `fold-${r}`,
      documents: inFolder.slice(0, FOLDER_DOCUMENTS / 2).map((documentId) => ({ documentId })),
    });
    await must('/v2/organizations/documents/add', {
      organizationId: 'folders',
      folderId: `fold-${r}-sub`,
      documents: inFolder.slice(FOLDER_DOCUMENTS / 2).map((documentId) => ({ documentId })),
    });
    // documents to be deleted in one call
    await must('/v2/organizations/documents/add', {
      organizationId: 'doc-deletes',
      documents: range(DELETED_DOCUMENTS, `x${r}-`).map((documentId) => ({ documentId })),
    });
  }
}, 120_000);
afterAll(() => t?.close());

/**
 * Writes round after round while readers ask about the current round all along; then every check once more, which
 * must find every write whole.
 */
async function sweep(tag: string) {
  findings.length = 0;
  seen.clear();
  let writing = true;
  let checks = 0;
  const all = rounds(tag);
  /** The round whose writes are under way: the readers ask about them. */
  let current = all[0] as string;
  const reader = async (offset: number) => {
    for (let i = offset; writing; i++) {
      const ofRound = checksOf(current);
      await (ofRound[i % ofRound.length] as () => Promise<void>)();
      checks++;
    }
  };
  const readers = Array.from({ length: READERS }, (_, n) => reader(n * 2));
  try {
    for (const r of all) {
      current = r;
      await Promise.all(writesOf(r));
    }
  } finally {
    writing = false;
  }
  await Promise.all(readers);
  const seenWhileWriting = [...seen.values()].filter((states) => states.size === 2).length;
  // every write whole at the end: each check once more, per round, must see it done
  seen.clear();
  for (const r of all) for (const check of checksOf(r)) await check();
  const notDone = [...seen].filter(([, states]) => states.has('before')).map(([name]) => name);
  for (const r of all) {
    const found = await read<Notification[]>('/v2/notifications/get', { organizationId: `notified-${r}`, documentId: 'doc' });
    expect(found?.map((n) => n.id).sort()).toEqual(range(NOTIFIERS, 'n'));
  }
  console.log(
    `concurrency (${tag}): ${checks} checks while ${ROUNDS} rounds of writes ran; ${seenWhileWriting} writes seen both before and after; findings: ${findings.length}`,
  );
  expect(findings).toEqual([]);
  expect(notDone).toEqual([]);
  expect(seen.size).toBe(ROUNDS * (NOTIFIERS + 6));
  // the readers did run among the writes
  expect(checks).toBeGreaterThan(ROUNDS);
  return seenWhileWriting;
}

describe('units of work under concurrent requests (real HTTP)', () => {
  it('never let a reader see a write in part, answer every request with a proper envelope, and end with every write whole', async () => {
    await sweep('shipped');
  }, 120_000);

  it('hold when every statement is a round trip, as to a database across a network (other requests run between any two)', async () => {
    // SQLite answers at once, so a unit of work runs from its first statement to its commit without other
    // requests' code between its awaits; a network database's would not. Every statement here waits a turn of
    // the event loop first: readers then run inside units of work, and a write split in two would show.
    // On PostgreSQL (npm run test:pg) every statement is one already: the sweep runs as it is.
    if (t.server.app.storage.engine.kind === 'postgres') {
      expect(await sweep('trips')).toBeGreaterThan(0);
      return;
    }
    const engine = sqliteEngineOf(t.server.app.storage);
    const { read: readNow, write: writeNow } = engine;
    const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
    engine.read = async (work) => {
      await turn();
      return readNow(work);
    };
    engine.write = async (work) => {
      await turn();
      return writeNow(work);
    };
    try {
      // and the readers did get between the writes' statements: writes were seen both not yet done and done
      expect(await sweep('trips')).toBeGreaterThan(0);
    } finally {
      Object.assign(engine, { read: readNow, write: writeNow });
    }
  }, 120_000);
});
