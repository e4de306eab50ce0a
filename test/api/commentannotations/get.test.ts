import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';

interface Model {
  id: string;
  doc: string;
  loc: string;
  status: string;
  authors: string[];
  mentions: string[];
  visibleTo?: string[];
}

/** An annotation as /v2/commentannotations/get answers it (the fields these tests read). */
interface AnnotationItem {
  annotationId: string;
  documentId: string;
  comments: Array<{ commentText: string | null }>;
}

const PATH = '/v2/commentannotations/get';
let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
const model: Model[] = [];

beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [{ documentId: 'doc' }, { documentId: 'doc2' }, { documentId: 'doc3' }],
  });
  await t.callK('/v2/workspace/apikeyconfig/update', { enablePrivateComments: true });
  for (let i = 0; i < 9; i++) {
    const m: Model = {
      id: `a${i}`,
      doc: i % 2 ? 'doc2' : 'doc',
      loc: `L${i % 3}`,
      status: i % 4 === 0 ? 'RESOLVED' : 'OPEN',
      authors: [i % 3 === 0 ? 'ann' : 'bob'],
      mentions: i === 4 ? ['cat'] : i === 7 ? ['dan'] : [],
    };
    const tagged = i === 4 ? [{ userId: 'cat' }] : i === 7 ? [{ contact: { userId: 'dan', name: 'Dan' } }] : [];
    const res = await t.callK('/v2/commentannotations/add', {
      organizationId: 'acme',
      documentId: m.doc,
      commentAnnotations: [
        {
          annotationId: m.id,
          location: { id: m.loc },
          status: { id: m.status },
          commentData: [{ commentText: `c${i}`, from: { userId: m.authors[0] }, taggedUserContacts: tagged }],
        },
      ],
    });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    model.push(m);
  }
  // a reply by cat makes cat one of a1's authors
  await t.callK('/v2/commentannotations/comments/add', {
    organizationId: 'acme',
    annotationId: 'a1',
    commentData: [{ commentText: 'reply', from: { userId: 'cat' } }],
  });
  model[1]!.authors.push('cat');
  const privates: Model[] = [
    { id: 'p1', doc: 'doc', loc: 'L0', status: 'OPEN', authors: ['ann'], mentions: [], visibleTo: ['cat'] },
    { id: 'p2', doc: 'doc2', loc: 'L1', status: 'OPEN', authors: ['bob'], mentions: [], visibleTo: [] },
  ];
  for (const m of privates) {
    await t.callK('/v2/commentannotations/add', {
      organizationId: 'acme',
      documentId: m.doc,
      commentAnnotations: [
        {
          annotationId: m.id,
          location: { id: m.loc },
          visibility: { type: 'restricted', ...(m.visibleTo!.length ? { userIds: m.visibleTo } : {}) },
          commentData: [{ commentText: 'psst', from: { userId: m.authors[0] } }],
        },
      ],
    });
    model.push(m);
  }
  other = await createWorkspace(t);
});
afterAll(() => t.close());

const ids = (where: (m: Model) => boolean) => model.filter(where).map((m) => m.id);

async function walk(filters: Record<string, unknown>, pageSize: number, headers?: Record<string, string>) {
  const seen: string[] = [];
  let pageToken: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const res = await t.callK(PATH, { organizationId: 'acme', ...filters, pageSize, pageToken }, headers);
    expect(res.status).toBe(200);
    expect(resultOf(res).status).toBe('success');
    expect(resultOf(res).message).toBe('Annotation(s) fetched successfully.');
    expect(dataOf<AnnotationItem[]>(res).length).toBeLessThanOrEqual(pageSize);
    seen.push(...dataOf<AnnotationItem[]>(res).map((a) => a.annotationId));
    pageToken = resultOf(res).pageToken ?? undefined;
    if (!pageToken) return seen;
  }
  throw new Error('pagination did not end');
}

describe('/v2/commentannotations/get', () => {
  it('walks every annotation exactly once with page sizes 1, 3 and 1000, oldest first with asc, newest first by default', async () => {
    const all = model.map((m) => m.id);
    for (const size of [1, 3, 1000]) {
      expect(await walk({ order: 'asc' }, size)).toEqual(all);
      expect(await walk({ order: 'desc' }, size)).toEqual([...all].reverse());
      expect(await walk({}, size)).toEqual([...all].reverse());
    }
  });

  it('returns annotations with their comments; the last page has pageToken null', async () => {
    const res = await t.callK(PATH, { organizationId: 'acme', annotationIds: ['a1'] });
    expect(resultOf(res).pageToken).toBeNull();
    expect(dataOf<AnnotationItem[]>(res)).toEqual([
      expect.objectContaining({
        annotationId: 'a1',
        documentId: 'doc2',
        locationId: 'L1',
        location: { id: 'L1' },
        status: { id: 'OPEN' },
        from: { userId: 'bob' },
        comments: [
          expect.objectContaining({ commentText: 'c1', from: { userId: 'bob' } }),
          expect.objectContaining({ commentText: 'reply', from: { userId: 'cat' } }),
        ],
      }),
    ]);
    const first = await t.callK(PATH, { organizationId: 'acme', pageSize: 2 });
    expect(dataOf<AnnotationItem[]>(first)).toHaveLength(2);
    expect(resultOf(first).pageToken).toEqual(expect.any(String));
  });

  it('applies each filter', async () => {
    const cases: Array<[Record<string, unknown>, (m: Model) => boolean]> = [
      [{ documentId: 'doc2' }, (m) => m.doc === 'doc2'],
      [{ documentIds: ['doc'] }, (m) => m.doc === 'doc'],
      [{ documentIds: ['doc', 'doc2'] }, () => true],
      [{ documentIds: ['doc3'] }, () => false],
      [{ annotationIds: ['a2', 'a5', 'p2', 'ghost'] }, (m) => ['a2', 'a5', 'p2'].includes(m.id)],
      [{ locationIds: ['L1'] }, (m) => m.loc === 'L1'],
      [{ locationIds: ['L0', 'L2'] }, (m) => m.loc !== 'L1'],
      [{ userIds: ['ann'] }, (m) => m.authors.includes('ann')],
      [{ userIds: ['cat'] }, (m) => m.authors.includes('cat')],
      [{ userIds: ['cat', 'ann'] }, (m) => m.authors.includes('cat') || m.authors.includes('ann')],
      [{ mentionedUserIds: ['cat'] }, (m) => m.mentions.includes('cat')],
      [{ mentionedUserIds: ['dan'] }, (m) => m.mentions.includes('dan')],
      [{ mentionedUserIds: ['cat', 'dan'] }, (m) => m.mentions.length > 0],
      [{ mentionedUserIds: ['bob'] }, () => false],
      [{ statusIds: ['RESOLVED'] }, (m) => m.status === 'RESOLVED'],
      [{ statusIds: ['OPEN', 'RESOLVED'] }, () => true],
    ];
    for (const [filters, where] of cases) expect({ filters, got: await walk({ ...filters, order: 'asc' }, 2) }).toEqual({ filters, got: ids(where) });
    // sanity of the model: every filter above selects a proper subset somewhere
    expect(ids((m) => m.authors.includes('cat'))).toEqual(['a1']);
    expect(ids((m) => m.status === 'RESOLVED')).toEqual(['a0', 'a4', 'a8']);
  });

  it('combines filters, paginating the combined set', async () => {
    const cases: Array<[Record<string, unknown>, (m: Model) => boolean]> = [
      [{ documentId: 'doc', userIds: ['bob'], statusIds: ['OPEN'] }, (m) => m.doc === 'doc' && m.authors.includes('bob') && m.status === 'OPEN'],
      [{ documentIds: ['doc2'], locationIds: ['L1'] }, (m) => m.doc === 'doc2' && m.loc === 'L1'],
      [{ documentId: 'doc', statusIds: ['RESOLVED'], mentionedUserIds: ['cat'] }, (m) => m.id === 'a4'],
      [{ userIds: ['ann'], locationIds: ['L0'], statusIds: ['OPEN'] }, (m) => m.authors.includes('ann') && m.loc === 'L0' && m.status === 'OPEN'],
      [{ annotationIds: ['a0', 'a1', 'a2', 'a3'], documentIds: ['doc'] }, (m) => ['a0', 'a2'].includes(m.id)],
      [{ documentId: 'doc2', statusIds: ['RESOLVED'] }, () => false],
    ];
    for (const [filters, where] of cases) {
      const expected = ids(where);
      for (const size of [1, 1000]) {
        expect({ filters, size, got: await walk({ ...filters, order: 'asc' }, size) }).toEqual({ filters, size, got: expected });
        expect({ filters, size, got: await walk(filters, size) }).toEqual({ filters, size, got: [...expected].reverse() });
      }
    }
  });

  it('with the reader userId, leaves out restricted annotations the reader is neither named in nor the author of', async () => {
    const readable = (reader: string) => ids((m) => !m.visibleTo || m.authors[0] === reader || m.visibleTo.includes(reader));
    for (const reader of ['ann', 'bob', 'cat', 'dan'])
      expect({ reader, got: await walk({ userId: reader, order: 'asc' }, 3) }).toEqual({ reader, got: readable(reader) });
    expect(readable('dan')).not.toContain('p1');
    expect(readable('cat')).toContain('p1');
    expect(readable('bob')).toContain('p2');
    expect(await walk({ userId: 'dan', annotationIds: ['p1', 'p2', 'a0'] }, 5)).toEqual(['a0']);
    expect(await walk({ userId: 'cat', documentId: 'doc2', locationIds: ['L1'], order: 'asc' }, 5)).toEqual(['a1', 'a7']);
  });

  it('refuses forged, altered and foreign page tokens with INVALID_ARGUMENT', async () => {
    const token: string = resultOf(await t.callK(PATH, { organizationId: 'acme', pageSize: 2 })).pageToken!;
    const bad = async (data: Record<string, unknown>, headers?: Record<string, string>) => {
      const res = await t.callK(PATH, { organizationId: 'acme', pageSize: 2, ...data }, headers);
      expect({ data, status: res.status, body: res.body }).toEqual({
        data,
        status: 400,
        body: { error: { status: 'INVALID_ARGUMENT', message: 'Invalid pageToken.' } },
      });
    };
    await bad({ pageToken: 'garbage' });
    await bad({ pageToken: `${token}0` });
    const [payload, signature] = token.split('.');
    await bad({ pageToken: `${Buffer.from(JSON.stringify([0, ''])).toString('base64url')}.${signature}` });
    await bad({ pageToken: `${payload}.${signature!.slice(0, -1)}${signature!.endsWith('A') ? 'B' : 'A'}` });
    // bound to the query: another filter, order or organization refuses it
    await bad({ pageToken: token, documentId: 'doc' });
    await bad({ pageToken: token, userId: 'ann' });
    await bad({ pageToken: token, order: 'asc' });
    await bad({ pageToken: token, organizationId: 'other' });
    // bound to the API key
    await bad({ pageToken: token }, other.headersK);
    // the same token still works for its own query
    expect((await t.callK(PATH, { organizationId: 'acme', pageSize: 2, pageToken: token })).status).toBe(200);
  });

  it('reads "pageToken": null as the first page', async () => {
    const res = await t.callK(PATH, { organizationId: 'acme', pageToken: null, order: 'asc' });
    expect(dataOf<AnnotationItem[]>(res).map((a) => a.annotationId)).toEqual(model.map((m) => m.id));
  });

  it('validates the input, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ organizationId: undefined }, 'organizationId is required.'],
      [{ pageSize: 0 }, 'pageSize must be at least 1.'],
      [{ pageSize: 1001 }, 'pageSize must be at most 1000.'],
      [{ pageSize: 2.5 }, 'pageSize must be an integer, not a number.'],
      [{ order: 'up' }, 'order must be one of: asc, desc.'],
      [{ documentIds: [] }, 'documentIds must have at least 1 item(s).'],
      [{ documentIds: Array.from({ length: 31 }, (_, i) => `d${i}`) }, 'documentIds must have at most 30 item(s).'],
      [{ statusIds: [''] }, 'statusIds[0] must not be empty.'],
      [{ userIds: 'ann' }, 'userIds must be an array, not a string.'],
      [{ mentionedUserIds: [] }, 'mentionedUserIds must have at least 1 item(s).'],
      [{ pageToken: '' }, 'pageToken must not be empty.'],
      [{ folderId: '' }, 'folderId must not be empty.'],
      [{ resolvedBy: 7 }, 'resolvedBy must be a string, not a number.'],
      [{ createdAfter: -1 }, 'createdAfter must be at least 0.'],
      [{ updatedBefore: '2026-01-01' }, 'updatedBefore must be a number, not a string.'],
      [{ createdBefore: 1.5 }, 'createdBefore must be an integer, not a number.'],
      [{ groupByDocumentId: 'yes' }, 'groupByDocumentId must be a boolean, not a string.'],
    ];
    for (const [data, message] of cases) {
      const res = await t.callK(PATH, { organizationId: 'acme', ...data });
      expect({ data, status: res.status, body: res.body }).toEqual({ data, status: 400, body: { error: { status: 'INVALID_ARGUMENT', message } } });
    }
  });

  it('filters by folder, resolver and creation and update times, alone and together, paginating the result', async () => {
    await t.callK('/v2/organizations/folders/add', { organizationId: 'acme', folders: [{ folderId: 'f1' }] });
    expect((await t.callK('/v2/organizations/documents/move', { organizationId: 'acme', documentIds: ['doc2'], folderId: 'f1' })).status).toBe(200);
    for (const [annotationId, user] of [
      ['a2', 'ann'],
      ['a5', 'ann'],
      ['a6', 'bob'],
    ] as const) {
      const res = await t.callK('/v2/commentannotations/update', {
        organizationId: 'acme',
        annotationIds: [annotationId],
        updatedData: { resolvedByUserId: user },
      });
      expect(res.status).toBe(200);
    }
    // the expected sets come from the records' own fields
    type Item = { annotationId: string; documentId: string; resolvedByUserId: string | null; createdAt: number; lastUpdated: number };
    const records = dataOf<Item[]>(await t.callK(PATH, { organizationId: 'acme', order: 'asc' }));
    const created = [...new Set(records.map((r) => r.createdAt))];
    const updated = [...new Set(records.map((r) => r.lastUpdated))];
    expect(created.length).toBeGreaterThanOrEqual(3);
    expect(updated.length).toBeGreaterThanOrEqual(3);
    const middle = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
    const cases: Array<[Record<string, unknown>, (r: Item) => boolean]> = [
      [{ folderId: 'f1' }, (r) => r.documentId === 'doc2'],
      [{ folderId: 'root' }, (r) => r.documentId === 'doc'],
      [{ folderId: 'nowhere' }, () => false],
      [{ resolvedBy: 'ann' }, (r) => r.resolvedByUserId === 'ann'],
      [{ resolvedBy: 'bob', folderId: 'root' }, (r) => r.resolvedByUserId === 'bob' && r.documentId === 'doc'],
      [{ resolvedBy: 'ann', folderId: 'f1' }, (r) => r.resolvedByUserId === 'ann' && r.documentId === 'doc2'],
      ...created.flatMap(
        (time): Array<[Record<string, unknown>, (r: Item) => boolean]> => [
          [{ createdAfter: time }, (r) => r.createdAt > time],
          [{ createdBefore: time }, (r) => r.createdAt < time],
        ],
      ),
      ...updated.flatMap(
        (time): Array<[Record<string, unknown>, (r: Item) => boolean]> => [
          [{ updatedAfter: time }, (r) => r.lastUpdated > time],
          [{ updatedBefore: time, folderId: 'f1' }, (r) => r.lastUpdated < time && r.documentId === 'doc2'],
        ],
      ),
      [{ createdAfter: Math.min(...created) - 1, createdBefore: Math.max(...created) + 1 }, () => true],
      [{ createdAfter: middle(created), updatedBefore: middle(updated) }, (r) => r.createdAt > middle(created) && r.lastUpdated < middle(updated)],
    ];
    for (const [filters, where] of cases) {
      const expected = records.filter(where).map((r) => r.annotationId);
      expect({ filters, got: await walk({ ...filters, order: 'asc' }, 2) }).toEqual({ filters, got: expected });
      expect({ filters, got: await walk(filters, 1000) }).toEqual({ filters, got: [...expected].reverse() });
    }
    // the model selects proper subsets
    expect(records.filter((r) => r.resolvedByUserId === 'ann').map((r) => r.annotationId)).toEqual(['a2', 'a5']);
    // another API key with a folder of the same id sees none of these
    expect(await walk({ folderId: 'f1' }, 10, other.headersK)).toEqual([]);
  });

  it('groups the page by document with groupByDocumentId, in the hosted words of that variant', async () => {
    const flat = dataOf<AnnotationItem[]>(await t.callK(PATH, { organizationId: 'acme', order: 'asc' }));
    const grouped = await t.callK(PATH, { organizationId: 'acme', order: 'asc', groupByDocumentId: true });
    expect(resultOf(grouped).message).toBe('Annotations fetched successfully.');
    expect(resultOf(grouped).pageToken).toBeNull();
    const expected: Record<string, string[]> = {};
    for (const a of flat) (expected[a.documentId] ??= []).push(a.annotationId);
    expect(Object.keys(expected).sort()).toEqual(['doc', 'doc2']);
    expect(
      Object.fromEntries(Object.entries(dataOf<Record<string, AnnotationItem[]>>(grouped)).map(([doc, list]) => [doc, list.map((a) => a.annotationId)])),
    ).toEqual(expected);
    // paginated as the flat list is, each page grouped
    const seen: string[] = [];
    let pageToken: string | undefined;
    do {
      const res = await t.callK(PATH, { organizationId: 'acme', order: 'asc', groupByDocumentId: true, pageSize: 3, pageToken });
      const page = dataOf<Record<string, AnnotationItem[]>>(res);
      for (const [doc, list] of Object.entries(page)) for (const a of list) expect(a.documentId).toBe(doc);
      seen.push(
        ...Object.values(page)
          .flat()
          .map((a) => a.annotationId),
      );
      pageToken = resultOf(res).pageToken ?? undefined;
    } while (pageToken);
    expect(seen.sort()).toEqual(flat.map((a) => a.annotationId).sort());
  });

  it("never shows another API key's annotations", async () => {
    expect(await walk({ annotationIds: ['a0', 'p1'] }, 10, other.headersK)).toEqual([]);
    await t.callPublic(
      '/v2/commentannotations/add',
      {
        organizationId: 'acme',
        createOrganization: true,
        documentId: 'doc',
        createDocument: true,
        commentAnnotations: [{ annotationId: 'a0', commentData: [{ commentText: 'theirs', from: { userId: 'ann' } }] }],
      },
      other.headersK,
    );
    const theirs = dataOf<AnnotationItem[]>(await t.callPublic(PATH, { organizationId: 'acme' }, other.headersK));
    expect(theirs.map((a) => [a.annotationId, a.comments[0]!.commentText])).toEqual([['a0', 'theirs']]);
    const mine = dataOf<AnnotationItem[]>(await t.callK(PATH, { organizationId: 'acme', annotationIds: ['a0'] }));
    expect(mine.map((a) => [a.annotationId, a.comments[0]!.commentText])).toEqual([['a0', 'c0']]);
  });
});
