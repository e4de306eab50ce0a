import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import type { describeDocument } from '../../../../server/services/documents.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

/** A document as /v2/organizations/documents/get answers it. */
type DocumentItem = ReturnType<typeof describeDocument>;

const path = '/v2/organizations/documents/update';

let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
beforeAll(async () => {
  t = await startTestServer();
  other = await createWorkspace(t);
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    folderId: 'f',
    createFolder: true,
    documents: [
      { documentId: 'd1', documentName: 'One', accessType: 'restricted', metadata: { a: 1, keep: 'yes' } },
      { documentId: 'd2' },
      { documentId: 'd3', documentName: 'Three' },
    ],
  });
  await t.callPublic(
    '/v2/organizations/documents/add',
    { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd1', documentName: 'Theirs' }] },
    other.headersK,
  );
});
afterAll(() => t.close());

const update = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK(path, data, headers);
const doc = async (id: string, headers?: Record<string, string>) =>
  dataOf<DocumentItem[]>(await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: [id] }, headers))[0]!;
const expectInvalid = async (data: Record<string, unknown>, message: string) => {
  const res = await update(data);
  expect(res.status).toBe(400);
  expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message });
};

describe('/v2/organizations/documents/update', () => {
  it('renames documents and merges their metadata, with per-id outcomes', async () => {
    const before = await doc('d1');
    const res = await update({
      organizationId: 'acme',
      documents: [
        { documentId: 'd1', documentName: 'Uno', metadata: { a: 2, b: { deep: true } } },
        { documentId: 'd2', documentName: 'Dos' },
      ],
    });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Document(s) updated successfully.',
      data: {
        d1: { success: true, id: 'd1', message: 'Updated Successfully' },
        d2: { success: true, id: 'd2', message: 'Updated Successfully' },
      },
    });
    const after = await doc('d1');
    expect(after).toEqual({
      ...before,
      documentName: 'Uno',
      metadata: { a: 2, keep: 'yes', b: { deep: true } },
      lastUpdated: expect.any(Number),
    });
    expect(after.lastUpdated).toBeGreaterThanOrEqual(before.lastUpdated);
    expect(after.createdAt).toBe(before.createdAt);
    expect((await doc('d2')).documentName).toBe('Dos');
  });

  it('changes only what is sent: no name keeps the name, no metadata keeps the metadata', async () => {
    await update({ organizationId: 'acme', documents: [{ documentId: 'd1', metadata: { c: 3 } }] });
    expect(await doc('d1')).toMatchObject({ documentName: 'Uno', metadata: { a: 2, keep: 'yes', b: { deep: true }, c: 3 } });
    await update({ organizationId: 'acme', documents: [{ documentId: 'd1', documentName: 'Uno again' }] });
    expect(await doc('d1')).toMatchObject({ documentName: 'Uno again', metadata: { a: 2, keep: 'yes', b: { deep: true }, c: 3 } });
  });

  it('does not change access type, disabled state or folder (those have their own operations)', async () => {
    const res = await update({ organizationId: 'acme', documents: [{ documentId: 'd1', accessType: 'public', disabled: true, folderId: 'root' }] });
    expect(res.status).toBe(200);
    expect(await doc('d1')).toMatchObject({ accessType: 'restricted', disabled: false, folderId: 'f' });
  });

  it('is all or nothing: a missing id fails the call with 404 and per-id details, and nothing changes', async () => {
    const res = await update({
      organizationId: 'acme',
      documents: [
        { documentId: 'd3', documentName: 'Changed?' },
        { documentId: 'ghost', documentName: 'Boo' },
      ],
    });
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({
      status: 'NOT_FOUND',
      message: 'Error updating document(s).',
      details: {
        d3: { success: false, code: 'aborted', message: 'Not changed: another document of the request failed.' },
        ghost: { success: false, code: 'not-found', message: 'Document does not exist' },
      },
    });
    expect((await doc('d3')).documentName).toBe('Three');
    expect((await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: ['ghost'] })).status).toBe(404);

    // in an unknown organization every document is missing
    const noOrg = await update({ organizationId: 'nope', documents: [{ documentId: 'd1' }] });
    expect(noOrg.status).toBe(404);
    expect(errorOf(noOrg)).toEqual({
      status: 'NOT_FOUND',
      message: 'Error updating document(s).',
      details: { d1: { success: false, code: 'not-found', message: 'Document does not exist' } },
    });
  });

  it('validates the input, naming the field', async () => {
    await expectInvalid({ documents: [{ documentId: 'd1' }] }, 'organizationId is required.');
    await expectInvalid({ organizationId: 'acme' }, 'documents is required.');
    await expectInvalid({ organizationId: 'acme', documents: [] }, 'documents must have at least 1 item(s).');
    await expectInvalid({ organizationId: 'acme', documents: [{ documentName: 'x' }] }, 'documents[0].documentId is required.');
    await expectInvalid({ organizationId: 'acme', documents: [{ documentId: 'd1' }, { documentId: '' }] }, 'documents[1].documentId must not be empty.');
    await expectInvalid(
      { organizationId: 'acme', documents: [{ documentId: 'd1', documentName: 7 }] },
      'documents[0].documentName must be a string, not a number.',
    );
    await expectInvalid(
      {
        organizationId: 'acme',
        documents: [
          { documentId: 'd1', documentName: 'A' },
          { documentId: 'd1', documentName: 'B' },
        ],
      },
      'documents lists a document more than once.',
    );
    const badMetadata = await update({ organizationId: 'acme', documents: [{ documentId: 'd1', metadata: 'x' }] });
    expect(badMetadata.status).toBe(400);
    expect(errorOf(badMetadata).status).toBe('INVALID_ARGUMENT');
    expect(errorOf(badMetadata).message).toMatch(/^documents\[0\]\.metadata must be /);
    expect((await doc('d1')).documentName).toBe('Uno again');
  });

  it('keeps API keys apart', async () => {
    // another key cannot change ours: to it, d2 does not exist
    const hijack = await t.callPublic(path, { organizationId: 'acme', documents: [{ documentId: 'd2', documentName: 'Hijacked' }] }, other.headersK);
    expect(hijack.status).toBe(404);
    expect(errorOf(hijack).details).toEqual({ d2: { success: false, code: 'not-found', message: 'Document does not exist' } });
    expect((await doc('d2')).documentName).toBe('Dos');
    // its own d1 is a different document: updating it leaves ours alone, and the other way round
    expect(
      (await t.callPublic(path, { organizationId: 'acme', documents: [{ documentId: 'd1', documentName: 'Theirs renamed' }] }, other.headersK)).status,
    ).toBe(200);
    expect((await doc('d1')).documentName).toBe('Uno again');
    expect((await update({ organizationId: 'acme', documents: [{ documentId: 'd1', documentName: 'Ours renamed' }] })).status).toBe(200);
    expect((await doc('d1', other.headersK)).documentName).toBe('Theirs renamed');
  });
});
