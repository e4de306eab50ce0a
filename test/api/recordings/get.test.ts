import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { b64, WEBM } from '../../helpers/media.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';

interface RecordingItem {
  annotationId: string;
}

let t: TestServer;
const ids: string[] = [];
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [{ documentId: 'd1' }, { documentId: 'd2' }],
  });
  for (let i = 0; i < 7; i++) {
    const res = await t.callK('/v2/recordings/add', {
      organizationId: 'acme',
      documentId: i % 2 ? 'd2' : 'd1',
      recording: {
        recordingId: `r${i}`,
        recordingType: 'audio',
        from: { userId: 'ann' },
        recordedTime: { duration: i * 1000 },
        attachments: [{ name: 'a.webm', mimeType: 'audio/webm', data: b64(WEBM) }],
      },
    });
    ids.push(dataOf<RecordingItem>(res).annotationId);
  }
});
afterAll(() => t.close());

async function walk(filters: Record<string, unknown>, pageSize: number) {
  const seen: string[] = [];
  let pageToken: string | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const res = await t.callK('/v2/recordings/get', { organizationId: 'acme', ...filters, pageSize, pageToken });
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('Recorder annotations retrieved successfully.');
    seen.push(...dataOf<RecordingItem[]>(res).map((r) => r.annotationId));
    pageToken = resultOf(res).pageToken ?? undefined;
    if (!pageToken) return seen;
  }
  throw new Error('pagination did not end');
}

describe('/v2/recordings/get', () => {
  it('walks every recording exactly once, newest first, with page sizes 1, 3 and 1000', async () => {
    for (const size of [1, 3, 1000]) expect(await walk({}, size)).toEqual([...ids].reverse());
  });

  it('filters by document and ids', async () => {
    expect(await walk({ documentId: 'd2' }, 2)).toEqual(['r5', 'r3', 'r1']);
    expect(await walk({ recordingIds: ['r0', 'r6', 'zz'] }, 5)).toEqual(['r6', 'r0']);
  });

  it('validates pageSize, refuses foreign tokens, and keeps API keys apart', async () => {
    expect(errorOf(await t.callK('/v2/recordings/get', { organizationId: 'acme', pageSize: 0 })).message).toBe('pageSize must be at least 1.');
    const token = resultOf(await t.callK('/v2/recordings/get', { organizationId: 'acme', pageSize: 2 })).pageToken;
    expect(errorOf(await t.callK('/v2/recordings/get', { organizationId: 'acme', documentId: 'd1', pageToken: token }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'Invalid pageToken.',
    });
    const other = await createWorkspace(t);
    expect(dataOf(await t.callPublic('/v2/recordings/get', { organizationId: 'acme' }, other.headersK))).toEqual([]);
  });
});

describe('/v2/recordings/get: items and tokens', () => {
  it('returns the Recording resource of interface.md', async () => {
    const res = await t.callK('/v2/recordings/get', { organizationId: 'acme', recordingIds: ['r3'] });
    expect(resultOf(res).status).toBe('success');
    expect(resultOf(res).pageToken).toBeNull();
    const [item] = dataOf<unknown[]>(res);
    expect(item).toEqual({
      type: 'recorder',
      annotationId: 'r3',
      recordingType: 'audio',
      mode: 'floating',
      displayName: '',
      metadata: { apiKey: t.credentials.apiKey, documentId: 'd2', organizationId: 'acme' },
      recordedTime: { duration: 3000, display: '00:00:03' },
      from: { userId: 'ann' },
      attachments: [
        {
          attachmentId: 1,
          url: expect.stringMatching(new RegExp(`^${t.url}/attachments/[A-Za-z0-9]{32}$`)),
          mimeType: 'audio/webm',
          name: 'a.webm',
          type: 'audio',
          size: WEBM.length,
          version: 1,
        },
      ],
      latestVersion: 1,
      createdAt: expect.any(Number),
      lastUpdated: expect.any(Number),
    });
  });

  it('combines the document and id filters; an unknown organization or document gives an empty list', async () => {
    expect(await walk({ documentId: 'd1', recordingIds: ['r0', 'r1', 'r2'] }, 1)).toEqual(['r2', 'r0']);
    expect(await walk({ documentId: 'ghost' }, 10)).toEqual([]);
    const res = await t.callK('/v2/recordings/get', { organizationId: 'nobody' });
    expect(resultOf(res)).toEqual({ status: 'success', message: 'Recorder annotations retrieved successfully.', data: [], pageToken: null });
  });

  it('refuses forged, altered and foreign page tokens', async () => {
    const token: string = resultOf(await t.callK('/v2/recordings/get', { organizationId: 'acme', pageSize: 2 })).pageToken!;
    expect(token).toEqual(expect.any(String));
    const [payload, signature] = token.split('.') as [string, string];
    const forged = `${Buffer.from(JSON.stringify([0, 'zzz'])).toString('base64url')}.${signature}`;
    const flipped = `${payload}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of [forged, flipped, 'not-a-token', `${payload}.`]) {
      const res = await t.callK('/v2/recordings/get', { organizationId: 'acme', pageSize: 2, pageToken: bad });
      expect({ status: res.status, error: errorOf(res) }).toEqual({ status: 400, error: { status: 'INVALID_ARGUMENT', message: 'Invalid pageToken.' } });
    }
    // the same token with other filters, or from another API key, is not valid either
    for (const filters of [{ recordingIds: ['r1'] }, { organizationId: 'other' }]) {
      const res = await t.callK('/v2/recordings/get', { organizationId: 'acme', pageSize: 2, ...filters, pageToken: token });
      expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message: 'Invalid pageToken.' });
    }
    const other = await createWorkspace(t);
    const foreign = await t.callPublic('/v2/recordings/get', { organizationId: 'acme', pageSize: 2, pageToken: token }, other.headersK);
    expect(errorOf(foreign)).toEqual({ status: 'INVALID_ARGUMENT', message: 'Invalid pageToken.' });
    // while the token still works for its own query
    const next = await t.callK('/v2/recordings/get', { organizationId: 'acme', pageSize: 2, pageToken: token });
    expect(dataOf<RecordingItem[]>(next).map((r) => r.annotationId)).toEqual(['r4', 'r3']);
  });

  it('validates its input', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'organizationId is required.'],
      [{ organizationId: 'acme', pageSize: 1001 }, 'pageSize must be at most 1000.'],
      [{ organizationId: 'acme', recordingIds: [] }, 'recordingIds must have at least 1 item(s).'],
      [{ organizationId: 'acme', recordingIds: Array.from({ length: 31 }, (_, i) => `r${i}`) }, 'recordingIds must have at most 30 item(s).'],
    ];
    for (const [data, message] of cases) {
      const res = await t.callK('/v2/recordings/get', data);
      expect({ status: res.status, error: errorOf(res) }).toEqual({ status: 400, error: { status: 'INVALID_ARGUMENT', message } });
    }
  });

  it('another API key sees none of these recordings, even by id and document', async () => {
    const other = await createWorkspace(t);
    await t.callPublic(
      '/v2/organizations/documents/add',
      { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd1' }] },
      other.headersK,
    );
    for (const filters of [{}, { documentId: 'd1' }, { recordingIds: ['r0', 'r1'] }]) {
      const res = await t.callPublic('/v2/recordings/get', { organizationId: 'acme', ...filters }, other.headersK);
      expect(dataOf(res)).toEqual([]);
    }
  });
});
