import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation } from '../../../helpers/comments.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, eventually, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

const PATH = '/v2/commentannotations/read/update';

/** The per-annotation outcomes of /v2/commentannotations/read/update, keyed by annotation id. */
type Outcomes = Record<string, { success: boolean; message: string }>;
let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
let first: string;
let second: string;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  first = (await addAnnotation(t, { commentData: [{ commentText: 'x', from: { userId: 'bob' } }] })).annotationId;
  second = (await addAnnotation(t, { commentData: [{ commentText: 'y', from: { userId: 'bob' } }] })).annotationId;
  other = await createWorkspace(t);
});
afterAll(() => t.close());

const unread = async (userId: string) =>
  dataOf<{ doc: { total: number; unread: number } }>(
    await t.callK('/v2/commentannotations/count/get', { organizationId: 'acme', documentIds: ['doc'], userId }),
  ).doc.unread;
const markRead = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK(PATH, { organizationId: 'acme', ...data }, headers);
/** Read marks compare millisecond timestamps: let the clock move on before the next write. */
const nextMillisecond = async () => {
  const now = Date.now();
  await eventually(() => expect(Date.now()).toBeGreaterThan(now));
};

describe('/v2/commentannotations/read/update', () => {
  it('marks annotations read for one user, per item', async () => {
    expect(await unread('ann')).toBe(2);
    const res = await markRead({ annotationIds: [first, 'ghost', first], userId: 'ann' });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Annotations marked as read successfully.',
      data: { [first]: { success: true, message: 'Marked as read.' }, ghost: { success: false, message: 'Annotation not found.' } },
    });
    expect(await unread('ann')).toBe(1);
    // another user's unread is untouched
    expect(await unread('cat')).toBe(2);
    await markRead({ annotationIds: [first, second], userId: 'ann' });
    expect(await unread('ann')).toBe(0);
    // marking again is harmless
    expect(dataOf<Outcomes>(await markRead({ annotationIds: [second], userId: 'ann' }))).toEqual({ [second]: { success: true, message: 'Marked as read.' } });
    expect(await unread('ann')).toBe(0);
  });

  it('a new comment by someone else after the read mark makes the annotation unread again', async () => {
    await markRead({ annotationIds: [first, second], userId: 'cat' });
    expect(await unread('cat')).toBe(0);
    await nextMillisecond();
    await t.callK('/v2/commentannotations/comments/add', {
      organizationId: 'acme',
      annotationId: second,
      commentData: [{ commentText: 'news', from: { userId: 'dan' } }],
    });
    expect(await unread('cat')).toBe(1);
    await nextMillisecond();
    expect((await markRead({ annotationIds: [second], userId: 'cat' })).status).toBe(200);
    expect(await unread('cat')).toBe(0);
  });

  it('validates the input, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ organizationId: 'acme', annotationIds: [first] }, 'userId is required.'],
      [{ organizationId: 'acme', annotationIds: [first], userId: '' }, 'userId must not be empty.'],
      [{ organizationId: 'acme', userId: 'ann' }, 'annotationIds is required.'],
      [{ organizationId: 'acme', userId: 'ann', annotationIds: [] }, 'annotationIds must have at least 1 item(s).'],
      [{ organizationId: 'acme', userId: 'ann', annotationIds: [''] }, 'annotationIds[0] must not be empty.'],
      [{ annotationIds: [first], userId: 'ann' }, 'organizationId is required.'],
    ];
    for (const [data, message] of cases) {
      const res = await t.callK(PATH, data);
      expect({ data, status: res.status, body: res.body }).toEqual({ data, status: 400, body: { error: { status: 'INVALID_ARGUMENT', message } } });
    }
  });

  it("cannot mark another API key's annotations", async () => {
    expect(await unread('eve')).toBe(2);
    const res = await markRead({ annotationIds: [first, second], userId: 'eve' }, other.headersK);
    expect(res.status).toBe(200);
    expect(dataOf<Outcomes>(res)).toEqual({
      [first]: { success: false, message: 'Annotation not found.' },
      [second]: { success: false, message: 'Annotation not found.' },
    });
    expect(await unread('eve')).toBe(2);
  });
});
