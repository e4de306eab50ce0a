import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole, permissionsOf } from '../../../helpers/access.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import type { describeDocument } from '../../../../server/services/documents.ts';
import type { describeFolder } from '../../../../server/services/folders.ts';
import type { Outcomes } from '../../../../server/services/organizations.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

/** A document as /v2/organizations/documents/get answers it. */
type DocumentItem = ReturnType<typeof describeDocument>;
/** A folder as /v2/organizations/folders/get answers it. */
type FolderItem = ReturnType<typeof describeFolder>;

const path = '/v2/organizations/documents/add';

let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
beforeAll(async () => {
  t = await startTestServer();
  other = await createWorkspace(t);
});
afterAll(() => t.close());

const add = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK(path, data, headers);
const getDocs = (organizationId: string, documentIds: string[], headers?: Record<string, string>) =>
  t.callK('/v2/organizations/documents/get', { organizationId, documentIds }, headers);
const exists = async (organizationId: string, documentId: string) => (await getDocs(organizationId, [documentId])).status === 200;
const organizationExists = async (organizationId: string) =>
  dataOf<unknown[]>(await t.callK('/v2/organizations/get', { organizationIds: [organizationId] })).length === 1;
const folderExists = async (organizationId: string, folderId: string) =>
  (await t.callK('/v2/organizations/folders/get', { organizationId, folderId })).status === 200;
const expectInvalid = async (data: Record<string, unknown>, message: string) => {
  const res = await add(data);
  expect(res.status).toBe(400);
  expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message });
};

describe('/v2/organizations/documents/add', () => {
  it('adds documents to a new organization with createOrganization, with the per-id outcomes', async () => {
    const res = await add({
      organizationId: 'acme',
      createOrganization: true,
      documents: [
        { documentId: 'd1', documentName: 'One', metadata: { k: 1, nested: { a: [1, 2] } } },
        { documentId: 'd2', accessType: 'restricted' },
      ],
    });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Document(s) added successfully.',
      data: {
        d1: { success: true, id: 'd1', message: 'Added Successfully' },
        d2: { success: true, id: 'd2', message: 'Added Successfully' },
      },
    });
    expect(await organizationExists('acme')).toBe(true);
    const docs = dataOf<DocumentItem[]>(await getDocs('acme', ['d1', 'd2']));
    expect(docs).toEqual([
      {
        id: 'd1',
        documentName: 'One',
        disabled: false,
        accessType: 'public',
        folderId: 'root',
        organizationId: 'acme',
        metadata: { k: 1, nested: { a: [1, 2] } },
        createdAt: expect.any(Number),
        lastUpdated: expect.any(Number),
      },
      {
        id: 'd2',
        documentName: '',
        disabled: false,
        accessType: 'restricted',
        folderId: 'root',
        organizationId: 'acme',
        metadata: {},
        createdAt: expect.any(Number),
        lastUpdated: expect.any(Number),
      },
    ]);
  });

  it('adds into an existing folder, into a new folder with createFolder, and at the top level with folderId root', async () => {
    await t.callK('/v2/organizations/folders/add', { organizationId: 'acme', folders: [{ folderId: 'existing' }] });
    expect((await add({ organizationId: 'acme', folderId: 'existing', documents: [{ documentId: 'in-existing' }] })).status).toBe(200);

    expect(await folderExists('acme', 'made-on-demand')).toBe(false);
    const res = await add({
      organizationId: 'acme',
      folderId: 'made-on-demand',
      createFolder: true,
      documents: [{ documentId: 'in-new-1' }, { documentId: 'in-new-2' }],
    });
    expect(res.status).toBe(200);
    expect(Object.keys(dataOf<Outcomes>(res))).toEqual(['in-new-1', 'in-new-2']);
    const folder = await t.callK('/v2/organizations/folders/get', { organizationId: 'acme', folderId: 'made-on-demand' });
    expect(folder.status).toBe(200);
    expect(dataOf<FolderItem[]>(folder)).toHaveLength(1);
    expect(dataOf<FolderItem[]>(folder)[0]).toMatchObject({
      folderId: 'made-on-demand',
      parentFolderId: 'root',
      ancestors: ['root'],
      accessType: 'public',
      inheritAccessFromParent: true,
    });

    expect((await add({ organizationId: 'acme', folderId: 'root', documents: [{ documentId: 'at-top' }] })).status).toBe(200);

    const docs = dataOf<DocumentItem[]>(await getDocs('acme', ['in-existing', 'in-new-1', 'in-new-2', 'at-top']));
    expect(docs.map((d) => [d.id, d.folderId])).toEqual([
      ['in-existing', 'existing'],
      ['in-new-1', 'made-on-demand'],
      ['in-new-2', 'made-on-demand'],
      ['at-top', 'root'],
    ]);
    // the folder filter of documents/get sees them there
    const inFolder = await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', folderId: 'made-on-demand' });
    expect(dataOf<DocumentItem[]>(inFolder).map((d) => d.id)).toEqual(['in-new-1', 'in-new-2']);
  });

  it('answers NOT_FOUND for a missing organization or folder without the flag, writing nothing', async () => {
    const noOrg = await add({ organizationId: 'nope', documents: [{ documentId: 'x' }] });
    expect(noOrg.status).toBe(404);
    expect(errorOf(noOrg)).toEqual({ status: 'NOT_FOUND', message: 'Organization does not exist: nope. Pass createOrganization: true to create it.' });
    expect(await organizationExists('nope')).toBe(false);

    const noFolder = await add({ organizationId: 'acme', folderId: 'nope', documents: [{ documentId: 'x' }] });
    expect(noFolder.status).toBe(404);
    expect(errorOf(noFolder)).toEqual({ status: 'NOT_FOUND', message: 'Folder does not exist: nope. Pass createFolder: true to create it.' });
    expect(await exists('acme', 'x')).toBe(false);
    expect(await folderExists('acme', 'nope')).toBe(false);

    // createOrganization without createFolder: the organization is not left behind either
    const both = await add({ organizationId: 'half-made', createOrganization: true, folderId: 'nope', documents: [{ documentId: 'x' }] });
    expect(both.status).toBe(404);
    expect(errorOf(both).message).toBe('Folder does not exist: nope. Pass createFolder: true to create it.');
    expect(await organizationExists('half-made')).toBe(false);
  });

  it('is all or nothing: an existing id fails the whole call with 409 and per-id details, and nothing of it is written', async () => {
    const res = await add({
      organizationId: 'acme',
      folderId: 'rolled-back-folder',
      createFolder: true,
      documents: [{ documentId: 'fresh', documentName: 'Fresh' }, { documentId: 'd1', documentName: 'Replaced?' }, { documentId: 'fresh-2' }],
    });
    expect(res.status).toBe(409);
    expect(errorOf(res)).toEqual({
      status: 'ALREADY_EXISTS',
      message: 'Error adding document(s).',
      details: {
        fresh: { success: false, code: 'aborted', message: 'Not added: another document of the request failed.' },
        d1: { success: false, code: 'already-exists', message: 'Document already exists.' },
        'fresh-2': { success: false, code: 'aborted', message: 'Not added: another document of the request failed.' },
      },
    });
    expect(await exists('acme', 'fresh')).toBe(false);
    expect(await exists('acme', 'fresh-2')).toBe(false);
    expect(await folderExists('acme', 'rolled-back-folder')).toBe(false);
    // the existing document is untouched
    const d1 = dataOf<DocumentItem[]>(await getDocs('acme', ['d1']))[0];
    expect(d1).toMatchObject({ documentName: 'One', folderId: 'root', metadata: { k: 1, nested: { a: [1, 2] } } });
  });

  it('refuses a document id listed twice in one request (also after trimming) with INVALID_ARGUMENT', async () => {
    await expectInvalid(
      { organizationId: 'acme', documents: [{ documentId: 'twice' }, { documentId: 'twice' }] },
      'documents lists a document more than once.',
    );
    await expectInvalid(
      { organizationId: 'acme', documents: [{ documentId: 'twice' }, { documentId: ' twice ' }] },
      'documents lists a document more than once.',
    );
    expect(await exists('acme', 'twice')).toBe(false);
  });

  it('validates the input, naming the field', async () => {
    await expectInvalid({ documents: [{ documentId: 'x' }] }, 'organizationId is required.');
    await expectInvalid({ organizationId: '  ', documents: [{ documentId: 'x' }] }, 'organizationId must not be empty.');
    await expectInvalid({ organizationId: 'acme' }, 'documents is required.');
    await expectInvalid({ organizationId: 'acme', documents: 'x' }, 'documents must be an array, not a string.');
    await expectInvalid({ organizationId: 'acme', documents: [] }, 'documents must have at least 1 item(s).');
    await expectInvalid(
      { organizationId: 'acme', documents: Array.from({ length: 1001 }, (_, i) => ({ documentId: `many-${i}` })) },
      'documents must have at most 1000 item(s).',
    );
    await expectInvalid({ organizationId: 'acme', documents: [{ documentName: 'x' }] }, 'documents[0].documentId is required.');
    await expectInvalid({ organizationId: 'acme', documents: [{ documentId: 'ok' }, { documentId: '' }] }, 'documents[1].documentId must not be empty.');
    await expectInvalid(
      { organizationId: 'acme', documents: [{ documentId: 'x'.repeat(257) }] },
      'documents[0].documentId must be at most 256 characters long.',
    );
    await expectInvalid(
      { organizationId: 'acme', documents: [{ documentId: 'x', documentName: 5 }] },
      'documents[0].documentName must be a string, not a number.',
    );
    await expectInvalid(
      { organizationId: 'acme', documents: [{ documentId: 'x', accessType: 'everyone' }] },
      'documents[0].accessType must be one of: public, restricted, organizationPrivate.',
    );
    await expectInvalid(
      { organizationId: 'acme', createOrganization: 'yes', documents: [{ documentId: 'x' }] },
      'createOrganization must be a boolean, not a string.',
    );
    await expectInvalid(
      { organizationId: 'acme', createFolder: 1, folderId: 'f', documents: [{ documentId: 'x' }] },
      'createFolder must be a boolean, not a number.',
    );
    const badMetadata = await add({ organizationId: 'acme', documents: [{ documentId: 'x', metadata: [] }] });
    expect(badMetadata.status).toBe(400);
    expect(errorOf(badMetadata).status).toBe('INVALID_ARGUMENT');
    expect(errorOf(badMetadata).message).toMatch(/^documents\[0\]\.metadata must be /);
    expect(await exists('acme', 'x')).toBe(false);
  });

  it("takes the default accessType from the API key's defaultDocumentAccessType, which apikeyconfig/update changes", async () => {
    await add({ organizationId: 'acme', documents: [{ documentId: 'default-before' }] });
    expect(dataOf<DocumentItem[]>(await getDocs('acme', ['default-before']))[0]!.accessType).toBe('public');

    const config = await t.callK('/v2/workspace/apikeyconfig/update', { defaultDocumentAccessType: 'restricted' });
    expect(config.status).toBe(200);
    expect(dataOf<{ defaultDocumentAccessType: string }>(config).defaultDocumentAccessType).toBe('restricted');
    await add({ organizationId: 'acme', documents: [{ documentId: 'default-restricted' }, { documentId: 'explicit-public', accessType: 'public' }] });
    const docs = dataOf<DocumentItem[]>(await getDocs('acme', ['default-restricted', 'explicit-public', 'default-before']));
    expect(docs.map((d) => d.accessType)).toEqual(['restricted', 'public', 'public']);

    // the default really restricts: an organization member has no access, a stranger none either
    await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'org-member' }] });
    const perms = await permissionsOf(t, 'acme', ['org-member'], { documentIds: ['default-restricted', 'explicit-public'] });
    expect(perms['org-member']!.documents['default-restricted']).toMatchObject({ errorCode: 'permission_denied' });
    expect(perms['org-member']!.documents['explicit-public']).toMatchObject({ accessRole: 'editor', accessType: 'public' });

    await t.callK('/v2/workspace/apikeyconfig/update', { defaultDocumentAccessType: 'organizationPrivate' });
    await add({ organizationId: 'acme', documents: [{ documentId: 'default-org-private' }] });
    expect(dataOf<DocumentItem[]>(await getDocs('acme', ['default-org-private']))[0]!.accessType).toBe('organizationPrivate');
    expect(await documentRole(t, 'acme', 'org-member', 'default-org-private')).toBe('editor');
    expect(await documentRole(t, 'acme', 'stranger', 'default-org-private')).toBeNull();

    // another API key's default is its own
    await add({ organizationId: 'theirs', createOrganization: true, documents: [{ documentId: 'their-doc' }] }, other.headersK);
    expect(dataOf<DocumentItem[]>(await getDocs('theirs', ['their-doc'], other.headersK))[0]!.accessType).toBe('public');

    await t.callK('/v2/workspace/apikeyconfig/update', { defaultDocumentAccessType: 'public' });
    await add({ organizationId: 'acme', documents: [{ documentId: 'default-after' }] });
    expect(dataOf<DocumentItem[]>(await getDocs('acme', ['default-after']))[0]!.accessType).toBe('public');
  });

  it('keeps API keys apart: same organization and document ids are separate documents', async () => {
    const notTheirs = await t.callPublic(path, { organizationId: 'acme', documents: [{ documentId: 'd1' }] }, other.headersK);
    expect(notTheirs.status).toBe(404);
    expect(errorOf(notTheirs)).toEqual({ status: 'NOT_FOUND', message: 'Organization does not exist: acme. Pass createOrganization: true to create it.' });

    const theirs = await t.callPublic(
      path,
      { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd1', documentName: 'Theirs' }] },
      other.headersK,
    );
    expect(theirs.status).toBe(200);
    expect(dataOf<Outcomes>(theirs).d1).toEqual({ success: true, id: 'd1', message: 'Added Successfully' });
    expect(dataOf<DocumentItem[]>(await getDocs('acme', ['d1']))[0]!.documentName).toBe('One');
    expect(dataOf<DocumentItem[]>(await getDocs('acme', ['d1'], other.headersK))[0]!.documentName).toBe('Theirs');
    // our other documents stay invisible to them
    expect((await getDocs('acme', ['d2'], other.headersK)).status).toBe(404);
  });
});
