// What a deletion clears, through the API: data is put in every table a deletion names (server/db/tenancy.ts) by
// the operations that write it, then a document, a folder or an organization is deleted, or a user removed from an
// organization; the stored rows must then be exactly those expected: a table's 'deleted' and 'cascade' rows of what
// was deleted are gone, its 'kept' ones remain, and nothing of anything else (a sibling document, another
// organization, another user) was touched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_DATA, ORGANIZATION_DATA, USER_DATA, type Fate } from '../../../server/db/tenancy.ts';
import { configureProviders, startProviders, type Providers } from '../../helpers/ai-providers.ts';
import { b64, WEBM } from '../../helpers/media.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { eventually, type Success, startTestServer, type TestServer } from '../../helpers/server.ts';
import { enableWithEndpoint } from '../../helpers/webhooks.ts';
import { REVIEW_FLOW } from '../../helpers/workflows.ts';

let t: TestServer;
let providers: Providers;
let receiver: Receiver;

const REVIEW = { decision: 'fail', summary: 'One claim needs a source.', findings: [{ quote: 'hello', comment: 'Cite it.', severity: 'high' }] };

beforeAll(async () => {
  providers = await startProviders(() => ({ text: '```json\n' + JSON.stringify(REVIEW) + '\n```' }));
  receiver = await startReceiver();
  t = await startTestServer();
  await configureProviders(t, providers);
  // webhook events are written only for a key that has a subscriber
  await enableWithEndpoint(t, `${receiver.url}/hook`);
  await ok('/v2/agents/create', { agentId: 'claims', name: 'Claims checker', model: 'gpt-4o', instructions: 'Flag unsupported claims.' });
});
afterAll(async () => {
  await t.close();
  await providers.close();
  await receiver.close();
});

/** A classic answer's `result` (message and data); the agents and workflow operations answer their record as `result` itself. */
type Classic<T> = Success<T>['result'];

async function ok<T = unknown>(path: string, data: unknown) {
  const res = await t.callK<{ result: T }>(path, data);
  if (res.status !== 200) throw new Error(`${path} failed: ${JSON.stringify(res.body)}`);
  return res.body.result;
}

/**
 * Puts data in every table of the deletion lists for one document of one organization (in `folder`) and one user:
 * the document made by a migration (so that a migration names it), memberships at every level, a user group,
 * collaborative content with an update log, a notification with a recipient and notification settings, an
 * activity, a comment thread read and reacted to (a judgment), a recording with an attachment, a workflow
 * definition scoped to the document and an agent run over it (its annotation and judgment).
 */
async function populate(organizationId: string, documentId: string, userId: string, folderId: string) {
  const other = `${userId}-colleague`;
  await ok('/v2/organizations/folders/add', { organizationId, createOrganization: true, folders: [{ folderId }] });
  await ok('/v2/organizations/documents/add', { organizationId, folderId, documents: [{ documentId: `${documentId}-draft` }] });
  const { migrationId } = (
    await ok<Classic<{ migrationId: string }>>('/v2/organizations/documents/migrate', {
      organizationId,
      documentId: `${documentId}-draft`,
      newDocumentId: documentId,
    })
  ).data;
  await eventually(async () =>
    expect((await ok<Classic<{ status: string }>>('/v2/organizations/documents/migrate/status', { organizationId, migrationId })).data.status).toBe(
      'completed',
    ),
  );
  await ok('/v2/users/add', { organizationId, users: [{ userId }, { userId: other }] });
  await ok('/v2/users/add', { organizationId, folderId, users: [{ userId, accessRole: 'viewer' }] });
  await ok('/v2/users/add', { organizationId, documentId, users: [{ userId }, { userId: other }] });
  await ok('/v2/organizations/usergroups/add', { organizationId, organizationUserGroups: [{ groupId: `${userId}-team` }] });
  await ok('/v1/organizations/usergroups/users/add', { organizationId, organizationUserGroupId: `${userId}-team`, userIds: [userId, other] });
  await ok('/v2/crdt/add', { organizationId, documentId, editorId: 'body', type: 'text', data: 'hello' });
  await ok('/v2/crdt/update', { organizationId, documentId, editorId: 'body', type: 'text', data: 'hello world' });
  await ok('/v2/notifications/add', {
    organizationId,
    documentId,
    actionUser: { userId: other },
    displayHeadlineMessageTemplate: '{actionUser} pinged',
    displayBodyMessage: 'ping',
    notifyAll: false,
    notifyUsers: [{ userId }],
  });
  await ok('/v2/notifications/config/set', { organizationId, userIds: [userId], documentIds: [documentId], config: { email: 'NONE' } });
  await ok('/v2/activities/add', {
    organizationId,
    documentId,
    activities: [{ featureType: 'custom', actionType: 'custom.x', actionUser: { userId }, targetEntityId: 'x' }],
  });
  const thread = await ok<Classic<Record<string, { annotationId: string; commentIds: number[] }>>>('/v2/commentannotations/add', {
    organizationId,
    documentId,
    commentAnnotations: [{ commentData: [{ commentText: 'a claim', from: { userId } }] }],
  });
  const { annotationId, commentIds } = Object.values(thread.data)[0]!;
  await ok('/v2/commentannotations/read/update', { organizationId, annotationIds: [annotationId], userId });
  await ok('/v2/reactions/add', { organizationId, annotationId, commentId: commentIds[0], icon: '👍', from: { userId } });
  await ok('/v2/recordings/add', {
    organizationId,
    documentId,
    recording: {
      recordingType: 'audio',
      from: { userId },
      recordedTime: { duration: 1 },
      attachments: [{ name: 'a.webm', mimeType: 'audio/webm', data: b64(WEBM) }],
    },
  });
  await ok('/v2/workflow/definitions/create', {
    definitionId: `${organizationId}-${documentId}-review`,
    ...REVIEW_FLOW,
    scope: { level: 'document', organizationId, documentId },
  });
  const run = await ok<{ id: string }>('/v2/agents/execution/run', { agentId: 'claims', organizationId, documentId, userId });
  await eventually(async () => expect((await ok<{ status: string }>('/v2/agents/execution/get', { executionId: run.id })).status).not.toBe('running'));
}

type Row = Record<string, unknown>;
const onPostgres = () => t.server.app.storage.engine.kind === 'postgres';

/**
 * Each table's primary-key columns (on SQLite, its rowid when it has none): what identifies a row whatever later
 * updates change in it. PostgreSQL has no rowid that survives an update: a table without a primary key there fails
 * the test rather than being compared by less.
 */
async function keyColumns(table: string): Promise<string[]> {
  if (onPostgres()) {
    const pk = await t.query<{ name: string }>(
      `SELECT k.column_name AS name FROM information_schema.table_constraints c
       JOIN information_schema.key_column_usage k ON k.constraint_name = c.constraint_name AND k.table_schema = c.table_schema AND k.table_name = c.table_name
       WHERE c.table_schema = current_schema() AND c.table_name = ? AND c.constraint_type = 'PRIMARY KEY' ORDER BY k.ordinal_position`,
      [table],
    );
    if (pk.length === 0) throw new Error(`${table} has no primary key on PostgreSQL: its rows cannot be told apart across an update`);
    return pk.map((c) => c.name);
  }
  const pk = (await t.query<{ name: string; pk: number }>(`PRAGMA table_info(${table})`)).filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
  return pk.length > 0 ? pk.map((c) => c.name) : ['__rowid'];
}

/** The key's rows of these tables, each with its identity. */
async function snapshot(tables: string[]): Promise<Map<string, Map<string, Row>>> {
  const out = new Map<string, Map<string, Row>>();
  for (const table of tables) {
    const keys = await keyColumns(table);
    const rows = await t.query(`SELECT ${onPostgres() ? '' : 'rowid AS __rowid, '}* FROM ${table} WHERE api_key_id = ?`, [t.credentials.apiKey]);
    out.set(table, new Map(rows.map((row) => [JSON.stringify(keys.map((k) => row[k])), row])));
  }
  return out;
}

const valuesOf = (row: Row, pattern: RegExp) =>
  Object.keys(row)
    .filter((column) => pattern.test(column))
    .map((column) => row[column]);
const orgMatches = (row: Row, organizationId: string) => !('organization_id' in row) || row.organization_id === organizationId;
/** Rows that name the document: a document id column (a migration's from or to), or a membership on it. */
const namesDocument = (organizationId: string, documentId: string) => (table: string, row: Row) =>
  row.organization_id === organizationId &&
  (valuesOf(row, /(^|_)document_id$/).includes(documentId) || (table === 'memberships' && row.level === 'document' && row.resource_id === documentId));
const inOrganization = (organizationId: string) => (_table: string, row: Row) => row.organization_id === organizationId;
/** Rows of the user in the organization (the profile and the erasure jobs are the key's, not an organization's). */
const namesUser = (organizationId: string, userId: string) => (table: string, row: Row) =>
  orgMatches(row, organizationId) && (valuesOf(row, /(^|_)user_id$/).includes(userId) || (table === 'users' && row.id === userId));

/**
 * Runs `deletion` and checks every table of `list`: the rows `owned` names were there before (so that each
 * expectation can fail), and after it the ones of a 'deleted' or 'cascade' table are gone (and none has come
 * back), those of a 'kept' table remain, and every other row remains.
 */
async function expectClears(list: Readonly<Record<string, Fate>>, owned: (table: string, row: Row) => boolean, deletion: () => Promise<unknown>) {
  const tables = Object.keys(list);
  const before = await snapshot(tables);
  for (const table of tables)
    expect([...before.get(table)!.values()].filter((row) => owned(table, row)).length, `${table}: rows of what is deleted`).toBeGreaterThan(0);
  await deletion();
  const after = await snapshot(tables);
  const wrong: string[] = [];
  for (const [table, fate] of Object.entries(list)) {
    const gone = fate === 'deleted' || fate === 'cascade';
    const now = after.get(table)!;
    for (const [key, row] of before.get(table)!) {
      const expected = !(gone && owned(table, row));
      if (now.has(key) !== expected) wrong.push(`${table} ${key}: ${expected ? 'should remain' : `should be gone (${fate})`}`);
    }
    if (gone) for (const [key, row] of now) if (owned(table, row) && !before.get(table)!.has(key)) wrong.push(`${table} ${key}: written after the deletion`);
  }
  expect(wrong).toEqual([]);
}

describe('what each deletion clears (db/tenancy.ts), through the API', () => {
  it("a document's deletion clears its data, keeps what outlives it, and leaves its sibling's alone", async () => {
    await populate('tdoc', 'gone', 'ann', 'f');
    await populate('tdoc', 'stays', 'bob', 'f');
    await expectClears(DOCUMENT_DATA, namesDocument('tdoc', 'gone'), () =>
      ok('/v2/organizations/documents/delete', { organizationId: 'tdoc', documentIds: ['gone'] }),
    );
    expect((await t.callK('/v2/organizations/documents/get', { organizationId: 'tdoc', documentIds: ['stays'] })).status).toBe(200);
  });

  it("a folder's deletion clears its documents' data as a document's deletion does, with its subfolders and their memberships", async () => {
    await populate('tfolder', 'inside', 'cy', 'top');
    await ok('/v2/organizations/folders/add', { organizationId: 'tfolder', folders: [{ folderId: 'sub', parentFolderId: 'top' }] });
    await ok('/v2/users/add', { organizationId: 'tfolder', folderId: 'sub', users: [{ userId: 'cy' }] });
    await populate('tfolder', 'outside', 'dee', 'elsewhere');
    const folders = () => t.query("SELECT id FROM folders WHERE api_key_id = ? AND organization_id = 'tfolder' ORDER BY id", [t.credentials.apiKey]);
    expect(await folders()).toEqual([{ id: 'elsewhere' }, { id: 'sub' }, { id: 'top' }]);
    // the documents' data, and the memberships on the folders
    const inside = namesDocument('tfolder', 'inside');
    const owned = (table: string, row: Row) =>
      inside(table, row) ||
      (table === 'memberships' && row.organization_id === 'tfolder' && row.level === 'folder' && ['top', 'sub'].includes(row.resource_id as string));
    await expectClears(DOCUMENT_DATA, owned, () => ok('/v2/organizations/folders/delete', { organizationId: 'tfolder', folderId: 'top' }));
    expect(await folders()).toEqual([{ id: 'elsewhere' }]);
  });

  it("an organization's deletion clears everything in it (its collaborative content, judgments, agent runs and migrations too), and no other organization's", async () => {
    await populate('torg', 'doc', 'eve', 'f');
    await populate('torg-next-door', 'doc', 'eve', 'f');
    await expectClears(ORGANIZATION_DATA, inOrganization('torg'), () => ok('/v2/organizations/delete', { organizationIds: ['torg'] }));
    // its collaborative content is gone: the organization made again has none
    await ok('/v2/organizations/add', { organizations: [{ organizationId: 'torg' }] });
    expect((await ok<Classic<unknown>>('/v2/crdt/get', { organizationId: 'torg', documentId: 'doc', editorId: 'body' })).data).toEqual([]);
  });

  it("a user's removal from an organization takes their access there (memberships, groups) and keeps what they did", async () => {
    // an erasure job of the user's, run before what they do here (it would erase that)
    const { jobId } = (await ok<Classic<{ jobId: string }>>('/v2/users/data/delete', { userId: 'fay' })).data;
    await eventually(async () => expect((await ok<Classic<{ status: string }>>('/v2/users/data/delete/status', { jobId })).data.status).toBe('completed'));
    await populate('tuser', 'doc', 'fay', 'f');
    await populate('tuser-elsewhere', 'doc', 'fay', 'f');
    await expectClears(USER_DATA, namesUser('tuser', 'fay'), () => ok('/v2/users/delete', { organizationId: 'tuser', userIds: ['fay'] }));
  });
});
