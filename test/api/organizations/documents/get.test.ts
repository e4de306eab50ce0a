import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import type { describeDocument } from '../../../../server/services/documents.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

/** A document as /v2/organizations/documents/get answers it. */
type DocumentItem = ReturnType<typeof describeDocument>;

const path = '/v2/organizations/documents/get';

let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
/** The 250 document ids of `acme`, sorted (the order of the walk). */
const all: string[] = [];
/** Those of them in folder `f`. */
const inFolder: string[] = [];
beforeAll(async () => {
  t = await startTestServer();
  other = await createWorkspace(t);
  await t.callK('/v2/organizations/folders/add', { organizationId: 'acme', createOrganization: true, folders: [{ folderId: 'f' }, { folderId: '*' }] });
  // 250 documents in 5 batches of 50; the odd batches go into folder f. Ids are added out of order.
  for (const batch of [3, 0, 4, 1, 2]) {
    const documents = Array.from({ length: 50 }, (_, i) => ({
      documentId: `doc-${String(batch * 50 + i).padStart(3, '0')}`,
      documentName: `Doc ${batch * 50 + i}`,
    }));
    const res = await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', folderId: batch % 2 ? 'f' : undefined, documents });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    all.push(...documents.map((d) => d.documentId));
    if (batch % 2) inFolder.push(...documents.map((d) => d.documentId));
  }
  all.sort();
  inFolder.sort();
  // a second organization of the same key, and the same organization id under another key
  await t.callK('/v2/organizations/documents/add', { organizationId: 'beta', createOrganization: true, documents: [{ documentId: 'beta-doc' }] });
  await t.callPublic(
    '/v2/organizations/documents/add',
    { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc-000', documentName: 'Theirs' }, { documentId: 'theirs-only' }] },
    other.headersK,
  );
});
afterAll(() => t.close());

const get = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK(path, { organizationId: 'acme', ...data }, headers);

/** Follows page tokens to the end; checks every page's size and envelope. */
async function walk(filters: Record<string, unknown>, pageSize?: number) {
  const seen: string[] = [];
  let pageToken: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const res = await get({ ...filters, pageSize, pageToken });
    expect(res.status).toBe(200);
    expect(resultOf(res).status).toBe('success');
    expect(resultOf(res).message).toBe('Document(s) retrieved successfully.');
    const ids = dataOf<DocumentItem[]>(res).map((d) => d.id);
    seen.push(...ids);
    pageToken = resultOf(res).pageToken ?? undefined;
    if (pageToken) expect(ids).toHaveLength(pageSize ?? 1000);
    else {
      expect(resultOf(res).pageToken).toBeNull();
      return seen;
    }
  }
  throw new Error('pagination did not end');
}

const expectInvalid = async (data: Record<string, unknown>, message: string, headers?: Record<string, string>) => {
  const res = await get(data, headers);
  expect(res.status).toBe(400);
  expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message });
};

describe('/v2/organizations/documents/get', () => {
  it('walks all 250 documents exactly once, in id order, with page sizes 1, 7 and 1000', async () => {
    expect(all).toHaveLength(250);
    for (const size of [1, 7, 1000]) {
      const seen = await walk({}, size);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual(all);
    }
  });

  it('walks the same way filtered by folderId, and by root for the top level', async () => {
    for (const size of [1, 7, 1000]) expect(await walk({ folderId: 'f' }, size)).toEqual(inFolder);
    const top = all.filter((id) => !inFolder.includes(id));
    expect(top).toHaveLength(150);
    for (const size of [1, 7, 1000]) expect(await walk({ folderId: 'root' }, size)).toEqual(top);
    // an existing but empty folder, and an unknown one, list nothing
    expect(await walk({ folderId: '*' }, 5)).toEqual([]);
    expect(await walk({ folderId: 'no-such-folder' }, 5)).toEqual([]);
  });

  it('uses a default pageSize of 1000', async () => {
    const whole = await get({});
    expect(dataOf<DocumentItem[]>(whole)).toHaveLength(250);
    expect(resultOf(whole).pageToken).toBeNull();
    // 1001 documents in another organization: the first page without pageSize holds 1000
    const many = Array.from({ length: 1001 }, (_, i) => ({ documentId: `m-${String(i).padStart(4, '0')}` }));
    await t.callK('/v2/organizations/documents/add', { organizationId: 'big', createOrganization: true, documents: many.slice(0, 1000) });
    await t.callK('/v2/organizations/documents/add', { organizationId: 'big', documents: many.slice(1000) });
    const first = await t.callK(path, { organizationId: 'big' });
    expect(dataOf<DocumentItem[]>(first)).toHaveLength(1000);
    expect(dataOf<DocumentItem[]>(first)[999]!.id).toBe('m-0999');
    expect(typeof resultOf(first).pageToken).toBe('string');
    const second = await t.callK(path, { organizationId: 'big', pageToken: resultOf(first).pageToken });
    expect(dataOf<DocumentItem[]>(second).map((d) => d.id)).toEqual(['m-1000']);
    expect(resultOf(second).pageToken).toBeNull();
  });

  it('keeps its place when pageSize changes between pages, and reads pageToken null as the first page', async () => {
    const first = await get({ pageSize: 3, pageToken: null });
    expect(dataOf<DocumentItem[]>(first).map((d) => d.id)).toEqual(all.slice(0, 3));
    const next = await get({ pageSize: 10, pageToken: resultOf(first).pageToken });
    expect(dataOf<DocumentItem[]>(next).map((d) => d.id)).toEqual(all.slice(3, 13));
  });

  it('returns document records', async () => {
    const res = await get({ documentIds: ['doc-051'] });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Document(s) retrieved successfully.',
      data: [
        {
          id: 'doc-051',
          documentName: 'Doc 51',
          disabled: false,
          accessType: 'public',
          folderId: 'f',
          organizationId: 'acme',
          metadata: {},
          createdAt: expect.any(Number),
          lastUpdated: expect.any(Number),
        },
      ],
      pageToken: null,
    });
  });

  it('returns documentIds in request order, up to 30; 31 is INVALID_ARGUMENT', async () => {
    const res = await get({ documentIds: ['doc-009', 'doc-001', 'doc-120'] });
    expect(dataOf<DocumentItem[]>(res).map((d) => d.id)).toEqual(['doc-009', 'doc-001', 'doc-120']);
    const thirty = [...all.slice(200, 230)].reverse();
    const max = await get({ documentIds: thirty });
    expect(max.status).toBe(200);
    expect(dataOf<DocumentItem[]>(max).map((d) => d.id)).toEqual(thirty);
    await expectInvalid({ documentIds: all.slice(0, 31) }, 'documentIds must have at most 30 item(s).');
    // the ids alone are what is asked for, in any folder; a folderId given with them narrows them to that folder
    const mixed = await get({ documentIds: ['doc-001', 'doc-051'] });
    expect(dataOf<DocumentItem[]>(mixed).map((d) => d.folderId)).toEqual(['root', 'f']);
    expect(dataOf<DocumentItem[]>(await get({ documentIds: ['doc-001', 'doc-051'], folderId: 'f' })).map((d) => d.id)).toEqual(['doc-051']);
    expect(dataOf<DocumentItem[]>(await get({ documentIds: ['doc-001', 'doc-051'], folderId: 'root' })).map((d) => d.id)).toEqual(['doc-001']);
    expect(dataOf<DocumentItem[]>(await get({ documentIds: ['doc-001'], folderId: '*' }))).toEqual([]);
  });

  it('fails with 404 NOT_FOUND on a missing id, details as an array in request order', async () => {
    const res = await get({ documentIds: ['doc-001', 'ghost', 'doc-051', 'beta-doc', 'theirs-only'] });
    expect(res.status).toBe(404);
    expect(errorOf(res).status).toBe('NOT_FOUND');
    expect(errorOf(res).message).toBe('Error retrieving document(s).');
    const notFound = (id: string) => ({ id, success: false, message: 'Document does not exist', code: 'not-found' });
    expect(errorOf(res).details).toEqual([
      expect.objectContaining({ id: 'doc-001', documentName: 'Doc 1', folderId: 'root' }),
      notFound('ghost'),
      expect.objectContaining({ id: 'doc-051', folderId: 'f' }),
      // another organization of the key, and another key's document, are not in acme
      notFound('beta-doc'),
      notFound('theirs-only'),
    ]);
  });

  it('refuses forged, altered and foreign page tokens with INVALID_ARGUMENT "Invalid pageToken."', async () => {
    const token: string = resultOf(await get({ pageSize: 5 })).pageToken!;
    const folderToken: string = resultOf(await get({ pageSize: 5, folderId: 'f' })).pageToken!;
    const [payload, signature] = token.split('.') as [string, string];
    const bad = (data: Record<string, unknown>, headers?: Record<string, string>) => expectInvalid({ pageSize: 5, ...data }, 'Invalid pageToken.', headers);

    await bad({ pageToken: 'garbage' });
    // forged: another cursor under the real signature
    await bad({ pageToken: `${Buffer.from('["doc-100"]').toString('base64url')}.${signature}` });
    // altered signature, truncated signature
    await bad({ pageToken: `${payload}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}` });
    await bad({ pageToken: `${payload}.${signature.slice(0, -2)}` });
    // another folderId filter (including a folder literally named "*", and root)
    await bad({ pageToken: token, folderId: 'f' });
    await bad({ pageToken: token, folderId: '*' });
    await bad({ pageToken: token, folderId: 'root' });
    await bad({ pageToken: folderToken });
    // another organizationId of the same key
    await bad({ pageToken: token, organizationId: 'beta' });
    // another API key, same organization id
    await bad({ pageToken: token }, other.headersK);

    // the genuine token still works afterwards
    const ok = await get({ pageSize: 5, pageToken: token });
    expect(dataOf<DocumentItem[]>(ok).map((d) => d.id)).toEqual(all.slice(5, 10));
  });

  it('validates the input, naming the field', async () => {
    const noOrg = await t.callK(path, {});
    expect(noOrg.status).toBe(400);
    expect(errorOf(noOrg)).toEqual({ status: 'INVALID_ARGUMENT', message: 'organizationId is required.' });
    await expectInvalid({ organizationId: '' }, 'organizationId must not be empty.');
    await expectInvalid({ pageSize: 0 }, 'pageSize must be at least 1.');
    await expectInvalid({ pageSize: 1001 }, 'pageSize must be at most 1000.');
    await expectInvalid({ pageSize: 1.5 }, 'pageSize must be an integer, not a number.');
    await expectInvalid({ documentIds: [] }, 'documentIds must have at least 1 item(s).');
    await expectInvalid({ documentIds: 'doc-001' }, 'documentIds must be an array, not a string.');
    await expectInvalid({ pageToken: '' }, 'pageToken must not be empty.');
    await expectInvalid({ pageToken: 5 }, 'pageToken must be a string, not a number.');
  });

  it('keeps API keys apart: another key sees only its own documents under the same organization id', async () => {
    const theirs = await get({}, other.headersK);
    expect(theirs.status).toBe(200);
    expect(dataOf<DocumentItem[]>(theirs).map((d) => [d.id, d.documentName])).toEqual([
      ['doc-000', 'Theirs'],
      ['theirs-only', ''],
    ]);
    const byId = await get({ documentIds: ['doc-001'] }, other.headersK);
    expect(byId.status).toBe(404);
    expect(errorOf(byId).details).toEqual([{ id: 'doc-001', success: false, message: 'Document does not exist', code: 'not-found' }]);
    expect(dataOf<DocumentItem[]>(await get({ documentIds: ['doc-000'] }))[0]!.documentName).toBe('Doc 0');
    // a key without the organization at all lists nothing
    const third = await createWorkspace(t);
    const none = await t.callPublic(path, { organizationId: 'acme' }, third.headersK);
    expect(resultOf(none)).toEqual({ status: 'success', message: 'Document(s) retrieved successfully.', data: [], pageToken: null });
  });
});
