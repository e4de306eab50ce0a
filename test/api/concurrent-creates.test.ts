// Ten identical requests at once that each create the same rows (issue 43): two browser tabs opening one new
// document do this. SQLite runs one writer at a time, so each request finds the others' rows or makes them; on
// PostgreSQL units of work run side by side, and a request that checked for a row another then made met a unique
// key (HTTP 500). Each case here is answered as the interface says on both engines (this file runs under
// `npm test` and `npm run test:pg`): exactly one request creates, the others get ALREADY_EXISTS or their per-item
// outcome, nobody gets a 5xx, and exactly one row is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64, WEBM } from '../helpers/media.ts';
import { startTestServer, type CallResult, type TestServer } from '../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  expect((await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'race' }] })).status).toBe(200);
});
afterAll(() => t.close());

const AT_ONCE = 10;

type Body = { result?: { data?: unknown; message?: string }; error?: { status: string; message: string; details?: unknown } };

/** The same request AT_ONCE times at once; every answer a proper envelope, none a 5xx. */
async function burst(path: string, data: unknown, legacy = false): Promise<CallResult<Body>[]> {
  const answers = await Promise.all(Array.from({ length: AT_ONCE }, () => (legacy ? t.callPublic<Body>(path, data) : t.callK<Body>(path, data))));
  for (const answer of answers) {
    expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(500);
    expect(answer.body.result ?? answer.body.error, JSON.stringify(answer.body)).toBeDefined();
  }
  return answers;
}

/** How many answers of each kind: `200`, or the error's status and message. */
function tally(
  answers: CallResult<Body>[],
  key: (a: CallResult<Body>) => string = (a) => (a.status === 200 ? '200' : `${a.body.error?.status}: ${a.body.error?.message}`),
) {
  const counts: Record<string, number> = {};
  for (const a of answers) counts[key(a)] = (counts[key(a)] ?? 0) + 1;
  return counts;
}

const count = async (table: string, where: string, params: unknown[]) =>
  Number((await t.query<{ n: number | string }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`, params))[0]?.n);

const users = (id: string) => count('users', 'id = ?', [id]);
const documents = (id: string) => count('documents', "organization_id = 'race' AND id = ?", [id]);
const folders = (id: string) => count('folders', "organization_id = 'race' AND id = ?", [id]);

describe(`${AT_ONCE} identical creates at once`, () => {
  it('crdt/add of one editor: one is added, the others get ALREADY_EXISTS', async () => {
    const answers = await burst('/v2/crdt/add', { organizationId: 'race', documentId: 'crdt', editorId: 'e', type: 'text', data: 'hello' });
    expect(tally(answers)).toEqual({ 200: 1, 'ALREADY_EXISTS: CRDT data already exists for this editor ID.': AT_ONCE - 1 });
    expect(await count('crdt_documents', "organization_id = 'race' AND document_id = 'crdt'", [])).toBe(1);
    const read = await t.callK<Body>('/v2/crdt/get', { organizationId: 'race', documentId: 'crdt', editorId: 'e' });
    expect(read.body.result?.data).toMatchObject([{ id: 'e', data: 'hello' }]);
  });

  it('folders/add of one folder: one "added", the others "already exists", one folder', async () => {
    const answers = await burst('/v2/organizations/folders/add', { organizationId: 'race', folders: [{ folderId: 'f' }] });
    const outcome = (a: CallResult<Body>) => JSON.stringify((a.body.result?.data as Record<string, unknown>)?.f);
    expect(tally(answers, outcome)).toEqual({
      [JSON.stringify({ success: true, id: 'f', message: 'Folder added.' })]: 1,
      [JSON.stringify({ success: false, id: 'f', message: 'Folder already exists.' })]: AT_ONCE - 1,
    });
    expect(await folders('f')).toBe(1);
  });

  it('auth/permissions/add, auth/generate_token and the legacy token/get for one new user: all succeed, one user', async () => {
    const permissions = await burst('/v2/auth/permissions/add', {
      user: { userId: 'perm-user' },
      permissions: { resources: [{ type: 'organization', id: 'race', accessRole: 'editor' }] },
    });
    expect(tally(permissions)).toEqual({ 200: AT_ONCE });
    expect(await users('perm-user')).toBe(1);
    expect(await count('memberships', "organization_id = 'race' AND user_id = ?", ['perm-user'])).toBe(1);

    expect(tally(await burst('/v2/auth/generate_token', { userId: 'token-user' }))).toEqual({ 200: AT_ONCE });
    expect(await users('token-user')).toBe(1);

    const legacy = { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken, userId: 'legacy-user', userProperties: { organizationId: 'race' } };
    expect(tally(await burst('/v1/auth/token/get', legacy, true))).toEqual({ 200: AT_ONCE });
    expect(await users('legacy-user')).toBe(1);
  });

  it('users/add with createFolder and with createDocument: every answer the same success, one folder, document and user', async () => {
    const inFolder = await burst('/v2/users/add', { organizationId: 'race', folderId: 'uf', createFolder: true, users: [{ userId: 'uf-user' }] });
    expect(tally(inFolder)).toEqual({ 200: AT_ONCE });
    expect(new Set(inFolder.map((a) => JSON.stringify(a.body.result)))).toHaveProperty('size', 1);
    expect(await folders('uf')).toBe(1);
    expect(await users('uf-user')).toBe(1);

    const onDocument = await burst('/v2/users/add', { organizationId: 'race', documentId: 'ud', createDocument: true, users: [{ userId: 'ud-user' }] });
    expect(tally(onDocument)).toEqual({ 200: AT_ONCE });
    expect(new Set(onDocument.map((a) => JSON.stringify(a.body.result)))).toHaveProperty('size', 1);
    expect(await documents('ud')).toBe(1);
    expect(await users('ud-user')).toBe(1);
  });

  it('documents/add with createFolder: one added, the others ALREADY_EXISTS with the per-item outcome', async () => {
    const answers = await burst('/v2/organizations/documents/add', {
      organizationId: 'race',
      folderId: 'df',
      createFolder: true,
      documents: [{ documentId: 'dd' }],
    });
    expect(tally(answers)).toEqual({ 200: 1, 'ALREADY_EXISTS: Error adding document(s).': AT_ONCE - 1 });
    for (const refused of answers.filter((a) => a.status !== 200))
      expect(refused.body.error?.details).toEqual({ dd: { success: false, code: 'already-exists', message: expect.any(String) } });
    expect(await documents('dd')).toBe(1);
    expect(await folders('df')).toBe(1);
  });

  it('notifications/add with createDocument: ten notifications on one document; with one notificationId: one', async () => {
    const notification = {
      organizationId: 'race',
      actionUser: { userId: 'a' },
      displayHeadlineMessageTemplate: 'h',
      displayBodyMessage: 'b',
      notifyUsers: [{ userId: 'b' }],
    };
    expect(tally(await burst('/v2/notifications/add', { ...notification, documentId: 'nd', createDocument: true }))).toEqual({ 200: AT_ONCE });
    expect(await documents('nd')).toBe(1);
    expect(await count('notifications', "organization_id = 'race' AND document_id = 'nd'", [])).toBe(AT_ONCE);

    const once = await burst('/v2/notifications/add', { ...notification, documentId: 'nid', createDocument: true, notificationId: 'once' });
    const message = (a: CallResult<Body>) => (a.body.result?.data as { message?: string })?.message ?? 'none';
    expect(tally(once, message)).toEqual({ 'Notification added successfully.': 1, 'Notification already exists.': AT_ONCE - 1 });
    expect(await count('notifications', "organization_id = 'race' AND id = 'once'", [])).toBe(1);
  });

  it('commentannotations/add with createDocument: one annotation added, the others told it exists', async () => {
    const answers = await burst('/v2/commentannotations/add', {
      organizationId: 'race',
      documentId: 'cd',
      createDocument: true,
      commentAnnotations: [{ annotationId: 'ann', commentData: [{ commentText: 'hi', from: { userId: 'a' } }] }],
    });
    const outcome = (a: CallResult<Body>) => String((a.body.result?.data as Record<string, { success?: boolean }>)?.ann?.success);
    expect(tally(answers, outcome)).toEqual({ true: 1, false: AT_ONCE - 1 });
    expect(await documents('cd')).toBe(1);
    expect(await count('comment_annotations', "organization_id = 'race' AND id = 'ann'", [])).toBe(1);
  });

  it('recordings/add with createDocument: ten recordings on one document', async () => {
    const answers = await burst('/v2/recordings/add', {
      organizationId: 'race',
      documentId: 'rd',
      createDocument: true,
      recording: {
        recordingType: 'audio',
        from: { userId: 'a' },
        recordedTime: { duration: 1 },
        attachments: [{ name: 'v.webm', mimeType: 'audio/webm', data: b64(WEBM) }],
      },
    });
    expect(tally(answers)).toEqual({ 200: AT_ONCE });
    expect(await documents('rd')).toBe(1);
    expect(await count('recordings', "organization_id = 'race' AND document_id = 'rd'", [])).toBe(AT_ONCE);
  });
});
