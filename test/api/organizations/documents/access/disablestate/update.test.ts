import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole, permissionsOf } from '../../../../../helpers/access.ts';
import { createWorkspace } from '../../../../../helpers/factories.ts';
import type { Outcomes } from '../../../../../../server/services/organizations.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../../../helpers/server.ts';

const path = '/v2/organizations/documents/access/disablestate/update';

let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
beforeAll(async () => {
  t = await startTestServer();
  other = await createWorkspace(t);
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [
      { documentId: 'd', accessType: 'organizationPrivate' },
      { documentId: 'open', accessType: 'public' },
      { documentId: 'other-doc', accessType: 'organizationPrivate' },
    ],
  });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'ed' }, { userId: 'viewer', accessRole: 'viewer' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'd', users: [{ userId: 'doc-editor' }] });
  await t.callPublic('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd' }] }, other.headersK);
});
afterAll(() => t.close());

const update = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK(path, data, headers);
const disabledOf = async (id: string, headers?: Record<string, string>) =>
  dataOf<Array<{ disabled: boolean }>>(await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: [id] }, headers))[0]!.disabled;

describe('/v2/organizations/documents/access/disablestate/update', () => {
  it('disables documents: every editor becomes a viewer, with the reason', async () => {
    expect(await documentRole(t, 'acme', 'ed', 'd')).toBe('editor');
    const res = await update({ organizationId: 'acme', documentIds: ['d', 'open'], disabled: true });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Updated disable state for documents successfully.',
      data: {
        d: { success: true, id: 'd', message: 'Document disable state updated.' },
        open: { success: true, id: 'open', message: 'Document disable state updated.' },
      },
    });
    expect(await disabledOf('d')).toBe(true);
    expect(await disabledOf('open')).toBe(true);

    const perms = await permissionsOf(t, 'acme', ['ed', 'doc-editor', 'viewer', 'stranger'], { documentIds: ['d', 'open'] });
    expect(perms.ed!.documents.d).toEqual({
      accessRole: 'viewer',
      accessType: 'organizationPrivate',
      reasons: ['editor through organization membership', 'read-only: the document is disabled'],
    });
    expect(perms['doc-editor']!.documents.d).toMatchObject({
      accessRole: 'viewer',
      reasons: ['editor through document membership', 'read-only: the document is disabled'],
    });
    // a viewer stays a viewer (and gets no read-only note: nothing was taken away)
    expect(perms.viewer!.documents.d).toEqual({ accessRole: 'viewer', accessType: 'organizationPrivate', reasons: ['viewer through organization membership'] });
    // the public document's open editor access becomes read-only too; no access stays no access
    expect(perms.stranger!.documents.open).toMatchObject({
      accessRole: 'viewer',
      reasons: ['editor: the document is public, open to every user of the API key', 'read-only: the document is disabled'],
    });
    expect(perms.stranger!.documents.d).toMatchObject({ errorCode: 'permission_denied' });

    // the other document of the organization, and the organization itself, stay editable
    expect(await disabledOf('other-doc')).toBe(false);
    const rest = await permissionsOf(t, 'acme', ['ed'], { documentIds: ['other-doc'] });
    expect(rest.ed!.documents['other-doc']).toMatchObject({ accessRole: 'editor' });
    expect(rest.ed!.organization.acme).toMatchObject({ accessRole: 'editor' });
  });

  it('is idempotent: disabling a disabled document succeeds and keeps it disabled', async () => {
    const res = await update({ organizationId: 'acme', documentIds: ['d'], disabled: true });
    expect(dataOf<Outcomes>(res)).toEqual({ d: { success: true, id: 'd', message: 'Document disable state updated.' } });
    expect(await documentRole(t, 'acme', 'ed', 'd')).toBe('viewer');
  });

  it('re-enabling restores the editors', async () => {
    const res = await update({ organizationId: 'acme', documentIds: ['d', 'open'], disabled: false });
    expect(res.status).toBe(200);
    expect(dataOf<Outcomes>(res)).toEqual({
      d: { success: true, id: 'd', message: 'Document disable state updated.' },
      open: { success: true, id: 'open', message: 'Document disable state updated.' },
    });
    expect(await disabledOf('d')).toBe(false);
    const perms = await permissionsOf(t, 'acme', ['ed', 'doc-editor', 'stranger'], { documentIds: ['d', 'open'] });
    expect(perms.ed!.documents.d).toEqual({ accessRole: 'editor', accessType: 'organizationPrivate', reasons: ['editor through organization membership'] });
    expect(perms['doc-editor']!.documents.d).toMatchObject({ accessRole: 'editor' });
    expect(perms.stranger!.documents.open).toMatchObject({ accessRole: 'editor' });
  });

  it('reports an unknown id as success:false per item and still updates the others', async () => {
    const res = await update({ organizationId: 'acme', documentIds: ['ghost', 'other-doc'], disabled: true });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Updated disable state for documents successfully.',
      data: {
        ghost: { success: false, id: 'ghost', message: 'Document does not exist' },
        'other-doc': { success: true, id: 'other-doc', message: 'Document disable state updated.' },
      },
    });
    expect(await disabledOf('other-doc')).toBe(true);
    await update({ organizationId: 'acme', documentIds: ['other-doc'], disabled: false });
    expect(await disabledOf('other-doc')).toBe(false);
  });

  it('validates the input, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ organizationId: 'acme', documentIds: ['d'], disabled: 'yes' }, 'disabled must be a boolean, not a string.'],
      [{ organizationId: 'acme', documentIds: ['d'] }, 'disabled is required.'],
      [{ organizationId: 'acme', disabled: true }, 'documentIds is required.'],
      [{ organizationId: 'acme', documentIds: [], disabled: true }, 'documentIds must have at least 1 item(s).'],
      [{ documentIds: ['d'], disabled: true }, 'organizationId is required.'],
    ];
    for (const [data, message] of cases) {
      const res = await update(data);
      expect(res.status).toBe(400);
      expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message });
    }
    expect(await disabledOf('d')).toBe(false);
  });

  it('keeps API keys apart', async () => {
    const res = await t.callPublic(path, { organizationId: 'acme', documentIds: ['open'], disabled: true }, other.headersK);
    expect(res.status).toBe(200);
    expect(dataOf<Outcomes>(res).open).toEqual({ success: false, id: 'open', message: 'Document does not exist' });
    expect(await disabledOf('open')).toBe(false);
    // their own d is a different document
    expect(dataOf<Outcomes>(await t.callPublic(path, { organizationId: 'acme', documentIds: ['d'], disabled: true }, other.headersK)).d!.success).toBe(true);
    expect(await disabledOf('d', other.headersK)).toBe(true);
    expect(await disabledOf('d')).toBe(false);
    expect(await documentRole(t, 'acme', 'ed', 'd')).toBe('editor');
  });
});
