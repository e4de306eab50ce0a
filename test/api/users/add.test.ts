import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole, permissionsOf } from '../../helpers/access.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';
import type { Outcomes } from '../../../server/services/organizations.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'plan' }] });
});
afterAll(() => t.close());

const add = (data: unknown, headers?: Record<string, string>) => t.callK('/v2/users/add', data, headers);

describe('/v2/users/add', () => {
  it('adds users to the organization with the default role editor and a stable 32-hex id', async () => {
    const res = await add({
      organizationId: 'acme',
      users: [
        { userId: 'jane', name: 'Jane Doe', email: 'jane@example.com' },
        { userId: 'vic', accessRole: 'viewer' },
      ],
    });
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('User(s) processed successfully.');
    expect(dataOf(res)).toEqual({
      jane: { success: true, id: expect.stringMatching(/^[0-9a-f]{32}$/), message: 'User added.' },
      vic: { success: true, id: expect.stringMatching(/^[0-9a-f]{32}$/), message: 'User added.' },
    });
    const again = await add({ organizationId: 'acme', users: [{ userId: 'jane' }] });
    expect(dataOf<Outcomes>(again).jane!.id).toBe(dataOf<Outcomes>(res).jane!.id);
    expect(await documentRole(t, 'acme', 'jane', 'plan')).toBe('editor');
    expect(await documentRole(t, 'acme', 'vic', 'plan')).toBe('viewer');
  });

  it('keeps the role on a second add without accessRole, and changes it when given', async () => {
    await add({ organizationId: 'acme', users: [{ userId: 'kim', accessRole: 'viewer' }] });
    await add({ organizationId: 'acme', users: [{ userId: 'kim', name: 'Kim' }] });
    expect(await documentRole(t, 'acme', 'kim', 'plan')).toBe('viewer');
    await add({ organizationId: 'acme', users: [{ userId: 'kim', accessRole: 'editor' }] });
    expect(await documentRole(t, 'acme', 'kim', 'plan')).toBe('editor');
  });

  it('creates a missing organization (rule 4)', async () => {
    expect((await add({ organizationId: 'fresh-org', users: [{ userId: 'u1' }] })).status).toBe(200);
    const orgs = await t.callK('/v2/organizations/get', { organizationIds: ['fresh-org'] });
    expect(dataOf<Array<{ id: string }>>(orgs).map((o) => o.id)).toEqual(['fresh-org']);
    expect((await permissionsOf(t, 'fresh-org', ['u1'])).u1!.organization['fresh-org']!.accessRole).toBe('editor');
  });

  it('adds at document level only: no organization access', async () => {
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', documents: [{ documentId: 'secret', accessType: 'restricted' }] });
    await add({ organizationId: 'acme', documentId: 'secret', users: [{ userId: 'doc-only', accessRole: 'viewer' }] });
    const data = await permissionsOf(t, 'acme', ['doc-only'], { documentIds: ['secret', 'plan'] });
    expect(data['doc-only']!.organization.acme!.errorCode).toBe('permission_denied');
    expect(data['doc-only']!.documents.secret).toMatchObject({
      accessRole: 'viewer',
      accessType: 'restricted',
      reasons: ['viewer through document membership'],
    });
    // plan is public: open to any user of the key, but not through a membership
    expect(data['doc-only']!.documents.plan!.reasons).toContain('editor: the document is public, open to every user of the API key');
  });

  it('adds at folder level: access to the documents of the folder and its subfolders', async () => {
    await t.callK('/v2/organizations/folders/add', {
      organizationId: 'acme',
      folders: [
        { folderId: 'eng', accessType: 'restricted' },
        { folderId: 'eng-sub', parentFolderId: 'eng' },
      ],
    });
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', folderId: 'eng-sub', documents: [{ documentId: 'design' }] });
    await add({ organizationId: 'acme', folderId: 'eng', users: [{ userId: 'engineer' }] });
    expect(await documentRole(t, 'acme', 'engineer', 'design')).toBe('editor');
    // an organization member without folder membership is kept out of the restricted folder's document
    expect(await documentRole(t, 'acme', 'jane', 'design')).toBeNull();
  });

  it('creates a missing document or folder only when asked', async () => {
    const noDoc = await add({ organizationId: 'acme', documentId: 'nope', users: [{ userId: 'x' }] });
    expect(noDoc.status).toBe(404);
    expect(errorOf(noDoc)).toEqual({ status: 'NOT_FOUND', message: 'Document does not exist: nope. Pass createDocument: true to create it.' });
    const noFolder = await add({ organizationId: 'acme', folderId: 'nope', users: [{ userId: 'x' }] });
    expect(errorOf(noFolder).status).toBe('NOT_FOUND');
    expect((await add({ organizationId: 'acme', documentId: 'made', createDocument: true, users: [{ userId: 'x' }] })).status).toBe(200);
    expect((await add({ organizationId: 'acme', folderId: 'made-folder', createFolder: true, users: [{ userId: 'x' }] })).status).toBe(200);
    const docs = await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: ['made'] });
    expect(dataOf<Array<{ id: string }>>(docs)[0]!.id).toBe('made');
    const folders = await t.callK('/v2/organizations/folders/get', { organizationId: 'acme', folderId: 'made-folder' });
    expect(dataOf<Array<{ folderId: string }>>(folders)[0]!.folderId).toBe('made-folder');
  });

  it('validates the input, naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ users: [{ userId: 'a' }] }, 'organizationId is required.'],
      [{ organizationId: 'acme' }, 'users is required.'],
      [{ organizationId: 'acme', users: [] }, 'users must have at least 1 item(s).'],
      [{ organizationId: 'acme', users: [{ name: 'no id' }] }, 'users[0].userId is required.'],
      [{ organizationId: 'acme', users: [{ userId: 'a', accessRole: 'owner' }] }, 'users[0].accessRole must be one of: viewer, editor.'],
      [{ organizationId: '', users: [{ userId: 'a' }] }, 'organizationId must not be empty.'],
      [{ organizationId: 'acme', documentId: 'plan', folderId: 'eng', users: [{ userId: 'a' }] }, 'Use either documentId or folderId, not both.'],
    ];
    for (const [data, message] of cases) {
      const res = await add(data);
      expect({ data, status: res.status, error: errorOf(res) }).toEqual({ data, status: 400, error: { status: 'INVALID_ARGUMENT', message } });
    }
  });

  it("keeps API keys apart: another key's users/add does not touch this key's organization", async () => {
    const other = await createWorkspace(t);
    await add({ organizationId: 'acme', users: [{ userId: 'intruder' }] }, other.headersK);
    expect((await permissionsOf(t, 'acme', ['intruder'])).intruder!.organization.acme!.errorCode).toBe('permission_denied');
    const theirs = await permissionsOf(t, 'acme', ['jane'], { documentIds: ['plan'] }, other.headersK);
    expect(theirs.jane!.documents.plan!.errorCode).toBe('does_not_exist');
    expect(theirs.jane!.organization.acme!.errorCode).toBe('permission_denied');
  });
});
