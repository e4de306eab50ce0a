import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { b64, PNG, storedAttachments, WEBM } from '../../helpers/media.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';
import type { describeRecording } from '../../../server/services/recordings.ts';
import type { ActivityRecord } from '../../helpers/comments.ts';

/** A recording as recordings/get answers it. */
type Recording = ReturnType<typeof describeRecording>;
/** recordings/add answers the recording with its id. */
type AddedRecording = Recording & { recordingId: string };
type Attachment = Recording['attachments'][number];

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
});
afterAll(() => t.close());

// headers with each allowed type's magic numbers, followed by filler bytes
const filler = Buffer.from('0123456789abcdef');
const SAMPLES: Record<string, Buffer> = {
  'video/webm': WEBM,
  'audio/webm': WEBM,
  'video/mp4': Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), filler]),
  'audio/ogg': Buffer.concat([Buffer.from('OggS'), Buffer.from([0, 2]), filler]),
  'audio/mpeg': Buffer.concat([Buffer.from('ID3'), Buffer.from([4, 0, 0]), filler]),
  'audio/wav': Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0, 0, 0]), Buffer.from('WAVEfmt '), filler]),
  'image/png': PNG,
  'image/jpeg': Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), filler]),
  'image/webp': Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0, 0, 0]), Buffer.from('WEBPVP8 '), filler]),
  'image/gif': Buffer.concat([Buffer.from('GIF89a'), filler]),
};
const MP3_FRAME = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), filler]);

const recording = (extra: Record<string, unknown> = {}) => ({
  recordingType: 'screen',
  displayName: 'Walkthrough',
  from: { userId: 'ann', name: 'Ann' },
  recordedTime: { duration: 3_723_000 },
  attachments: [
    { name: 'rec.webm', mimeType: 'video/webm', data: b64(WEBM) },
    { name: 'thumb.png', mimeType: 'image/png', data: b64(PNG) },
  ],
  ...extra,
});
const add = (rec: Record<string, unknown>, extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  t.callK('/v2/recordings/add', { organizationId: 'acme', documentId: 'doc', recording: rec, ...extra }, headers);
const files = () => storedAttachments(t);

describe('/v2/recordings/add', () => {
  it('stores the recording and serves its attachments back byte for byte', async () => {
    const res = await add(recording({ recordingId: 'rec-1' }));
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('Recording added successfully.');
    const data = dataOf<AddedRecording>(res);
    expect(data).toMatchObject({
      type: 'recorder',
      annotationId: 'rec-1',
      recordingType: 'screen',
      mode: 'floating',
      displayName: 'Walkthrough',
      recordedTime: { duration: 3_723_000, display: '01:02:03' },
      latestVersion: 1,
      metadata: { apiKey: t.credentials.apiKey, documentId: 'doc', organizationId: 'acme' },
    });
    expect(data.attachments.map((a) => [a.attachmentId, a.name, a.mimeType, a.type, a.size, a.version])).toEqual([
      [1, 'rec.webm', 'video/webm', 'video', WEBM.length, 1],
      [2, 'thumb.png', 'image/png', 'image', PNG.length, 1],
    ]);
    const served = await fetch(data.attachments[0]!.url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('video/webm');
    expect(Buffer.from(await served.arrayBuffer()).equals(WEBM)).toBe(true);
  });

  it('adds a new version to an existing recording, keeping the earlier attachments', async () => {
    const res = await add(
      recording({ recordingId: 'rec-1', recordedTime: { duration: 5000 }, attachments: [{ name: 'v2.webm', mimeType: 'video/webm', data: b64(WEBM) }] }),
    );
    expect(dataOf(res)).toMatchObject({ latestVersion: 2, recordedTime: { duration: 5000, display: '00:00:05' } });
    expect(dataOf<AddedRecording>(res).attachments.map((a) => [a.attachmentId, a.version])).toEqual([
      [1, 1],
      [2, 1],
      [3, 2],
    ]);
    const activities = dataOf<ActivityRecord[]>(await t.callK('/v2/activities/get', { organizationId: 'acme', featureTypes: ['recorder'], order: 'asc' }));
    // (sorted: two calls within one millisecond share a timestamp)
    expect(activities.map((a) => [a.actionType, a.targetEntityId]).sort()).toEqual([
      ['recorder.add', 'rec-1'],
      ['recorder.update', 'rec-1'],
    ]);
  });

  it('checks attachments: base64, size, MIME type and the bytes matching it; a refused add leaves no file', async () => {
    const before = await files();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'x', mimeType: 'video/webm', data: 'not base64!' }, 'recording.attachments[0].data is not valid base64.'],
      [{ name: 'x', mimeType: 'video/webm', data: b64(PNG) }, 'recording.attachments[0] is not a valid video/webm file.'],
      [
        { name: 'x', mimeType: 'application/zip', data: b64(PNG) },
        'recording.attachments[0].mimeType must be one of: video/webm, video/mp4, audio/webm, audio/ogg, audio/mpeg, audio/wav, image/png, image/jpeg, image/webp, image/gif.',
      ],
    ];
    for (const [attachment, message] of cases) {
      const res = await add(recording({ attachments: [attachment] }));
      expect({ status: res.status, error: errorOf(res) }).toEqual({ status: 400, error: { status: 'INVALID_ARGUMENT', message } });
    }
    // a valid file with a missing document: refused after the file was written, which is then removed
    expect((await add(recording(), { documentId: 'nope' })).status).toBe(404);
    expect(await files()).toBe(before);
  });

  it('refuses an attachment over 8 MiB (with a body limit that lets it through)', async () => {
    const big = await startTestServer({ maxBodyBytes: 16 * 1024 * 1024 });
    try {
      await big.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
      const res = await big.callK('/v2/recordings/add', {
        organizationId: 'acme',
        documentId: 'doc',
        recording: recording({ attachments: [{ name: 'x', mimeType: 'image/png', data: b64(Buffer.concat([PNG, Buffer.alloc(8 * 1024 * 1024)])) }] }),
      });
      expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message: 'recording.attachments[0] is larger than 8388608 bytes.' });
    } finally {
      await big.close();
    }
  });

  it('validates the rest and keeps API keys apart', async () => {
    expect(errorOf(await add(recording({ recordedTime: {} }))).message).toBe('recording.recordedTime.duration is required.');
    expect(errorOf(await add(recording({ recordingType: 'hologram' }))).message).toBe('recording.recordingType must be one of: screen, video, audio.');
    const other = await createWorkspace(t);
    expect((await add(recording(), {}, other.headersK)).status).toBe(404);
  });
});

describe('/v2/recordings/add: response, attachments, activities', () => {
  it('returns recordingId, latestVersion and the attachments; a generated id is 20 alphanumerics', async () => {
    const res = await add(recording({ displayName: undefined, from: { userId: 'bob' }, recordedTime: { duration: 0 } }));
    expect(res.status).toBe(200);
    expect(resultOf(res).status).toBe('success');
    const data = dataOf<AddedRecording>(res);
    expect(data.recordingId).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(data.annotationId).toBe(data.recordingId);
    expect(data).toMatchObject({ latestVersion: 1, displayName: '', recordedTime: { duration: 0, display: '00:00:00' }, from: { userId: 'bob' } });
    expect(data.attachments).toHaveLength(2);
    for (const a of data.attachments) expect(a.url).toMatch(new RegExp(`^${t.url}/attachments/[A-Za-z0-9]{32}$`));
    // the activity names the user by userId when there is no name
    const activity = dataOf<ActivityRecord[]>(await t.callK('/v2/activities/get', { organizationId: 'acme', targetEntityId: data.recordingId }));
    expect(activity).toHaveLength(1);
    expect(activity[0]).toMatchObject({
      featureType: 'recorder',
      actionType: 'recorder.add',
      actionUser: { userId: 'bob' },
      targetEntityId: data.recordingId,
      displayMessageTemplate: '{{actionUser}} added a recording',
      displayMessageTemplateData: { actionUser: 'bob' },
      metadata: { documentId: 'doc', organizationId: 'acme' },
    });
  });

  it('records recorder.add and recorder.update with their templates, named by the user name', async () => {
    await add(recording({ recordingId: 'rec-act', from: { userId: 'ann', name: 'Ann', email: 'ann@example.com' } }));
    await add(recording({ recordingId: 'rec-act', displayName: 'Second take' }));
    const res = await t.callK('/v2/activities/get', { organizationId: 'acme', featureTypes: ['recorder'], targetEntityId: 'rec-act', order: 'asc' });
    expect(
      dataOf<ActivityRecord[]>(res)
        .map((a) => [a.actionType, a.displayMessageTemplate, a.displayMessageTemplateData, a.actionUser])
        .sort(),
    ).toEqual([
      ['recorder.add', '{{actionUser}} added a recording', { actionUser: 'Ann' }, { userId: 'ann', name: 'Ann', email: 'ann@example.com' }],
      ['recorder.update', '{{actionUser}} added a new version of a recording', { actionUser: 'Ann' }, { userId: 'ann', name: 'Ann' }],
    ]);
    // the new version updated the display name
    const got = await t.callK('/v2/recordings/get', { organizationId: 'acme', recordingIds: ['rec-act'] });
    expect(dataOf<Recording[]>(got)[0]).toMatchObject({ displayName: 'Second take', latestVersion: 2 });
  });

  it('serves each attachment with its type, length and cache headers; unknown keys are 404', async () => {
    const data = dataOf<AddedRecording>(await add(recording({ recordingId: 'rec-serve' })));
    const png = data.attachments.find((a) => a.name === 'thumb.png')!;
    const served = await fetch(png.url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('content-length')).toBe(String(PNG.length));
    expect(served.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
    for (const key of ['A'.repeat(32), 'short', '..%2F..%2Fhearth.db', `${png.url.split('/').pop()}x`]) {
      const missing = await fetch(`${t.url}/attachments/${key}`);
      expect(missing.status).toBe(404);
      expect(missing.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await missing.text()).toBe('Not Found');
    }
  });

  it('accepts every allowed MIME type whose bytes match, and derives or keeps the attachment type', async () => {
    const attachments = Object.entries(SAMPLES).map(([mimeType, bytes]) => ({ name: mimeType, mimeType, data: b64(bytes) }));
    attachments.push({ name: 'frame.mp3', mimeType: 'audio/mpeg', data: b64(MP3_FRAME) });
    const stored: Attachment[] = [];
    for (let i = 0; i < attachments.length; i += 5) {
      const res = await add(recording({ recordingId: 'rec-types', attachments: attachments.slice(i, i + 5) }));
      expect(res.status).toBe(200);
      stored.splice(0, stored.length, ...dataOf<AddedRecording>(res).attachments);
    }
    expect(stored.map((a) => [a.mimeType, a.type])).toEqual(attachments.map((a) => [a.mimeType, a.mimeType.split('/')[0]]));
    expect(stored.map((a) => a.version)).toEqual([1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3]);
    for (const [i, a] of stored.entries()) {
      const served = await fetch(a.url);
      expect(served.headers.get('content-type')).toBe(a.mimeType);
      expect(Buffer.from(await served.arrayBuffer()).toString('base64')).toBe(attachments[i]!.data);
    }
    const typed = await add(recording({ attachments: [{ name: 'cover', mimeType: 'image/png', type: 'thumbnail', data: b64(PNG) }] }));
    expect(dataOf<AddedRecording>(typed).attachments[0]).toMatchObject({ type: 'thumbnail', mimeType: 'image/png', size: PNG.length, version: 1 });
  });

  it('refuses bytes that do not match the declared type, an empty attachment, and 0 or 6 attachments', async () => {
    const before = await files();
    const mismatches: Array<[string, Buffer]> = [
      ['image/webp', SAMPLES['audio/wav']!],
      ['audio/wav', SAMPLES['image/webp']!],
      ['video/mp4', WEBM],
      ['image/jpeg', PNG],
      ['image/gif', PNG],
      ['audio/ogg', WEBM],
      ['audio/mpeg', PNG],
      ['image/png', Buffer.from('plain text, not an image')],
    ];
    for (const [mimeType, bytes] of mismatches) {
      const res = await add(
        recording({
          attachments: [
            { name: 'ok.webm', mimeType: 'video/webm', data: b64(WEBM) },
            { name: 'x', mimeType, data: b64(bytes) },
          ],
        }),
      );
      expect({ status: res.status, error: errorOf(res) }).toEqual({
        status: 400,
        error: { status: 'INVALID_ARGUMENT', message: `recording.attachments[1] is not a valid ${mimeType} file.` },
      });
    }
    const cases: Array<[unknown, string]> = [
      [[{ name: 'x', mimeType: 'video/webm', data: '' }], 'recording.attachments[0].data must not be empty.'],
      [[{ name: 'x', mimeType: 'video/webm', data: b64(WEBM).slice(0, -1) }], 'recording.attachments[0].data is not valid base64.'],
      [[{ name: 'x', mimeType: 'video/webm', data: `${b64(WEBM)}====` }], 'recording.attachments[0].data is not valid base64.'],
      [[], 'recording.attachments must have at least 1 item(s).'],
      [Array.from({ length: 6 }, () => ({ name: 'x', mimeType: 'video/webm', data: b64(WEBM) })), 'recording.attachments must have at most 5 item(s).'],
    ];
    for (const [attachments, message] of cases) {
      const res = await add(recording({ attachments }));
      expect({ status: res.status, error: errorOf(res) }).toEqual({ status: 400, error: { status: 'INVALID_ARGUMENT', message } });
    }
    expect(await files()).toBe(before);
  });

  it('validates recordingId and duration', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ recordingId: 'bad id' }, 'recording.recordingId may contain only letters, digits, _ and -.'],
      [{ recordedTime: { duration: -1 } }, 'recording.recordedTime.duration must be at least 0.'],
      [{ recordedTime: { duration: 1.5 } }, 'recording.recordedTime.duration must be an integer, not a number.'],
    ];
    for (const [extra, message] of cases) {
      const res = await add(recording(extra));
      expect({ status: res.status, error: errorOf(res) }).toEqual({ status: 400, error: { status: 'INVALID_ARGUMENT', message } });
    }
  });

  it('shows the recorded time as hh:mm:ss', async () => {
    for (const [duration, display] of [
      [999, '00:00:00'],
      [59_999, '00:00:59'],
      [60_000, '00:01:00'],
      [3_599_000, '00:59:59'],
      [86_400_000, '24:00:00'],
    ] as const) {
      const res = await add(recording({ recordedTime: { duration } }));
      expect(dataOf<AddedRecording>(res).recordedTime).toEqual({ duration, display });
    }
  });

  it('needs the organization and the document unless asked to create them', async () => {
    const before = await files();
    const org = await add(recording(), { organizationId: 'neworg', documentId: 'nd' });
    expect({ status: org.status, error: errorOf(org) }).toEqual({
      status: 404,
      error: { status: 'NOT_FOUND', message: 'Organization does not exist: neworg. Pass createOrganization: true to create it.' },
    });
    const doc = await add(recording(), { organizationId: 'neworg', documentId: 'nd', createOrganization: true });
    expect({ status: doc.status, error: errorOf(doc) }).toEqual({
      status: 404,
      error: { status: 'NOT_FOUND', message: 'Document does not exist: nd. Pass createDocument: true to create it.' },
    });
    expect(await files()).toBe(before);
    const ok = await add(recording({ recordingId: 'in-new-doc' }), {
      organizationId: 'neworg',
      documentId: 'nd',
      createOrganization: true,
      createDocument: true,
    });
    expect(ok.status).toBe(200);
    expect(dataOf<AddedRecording>(ok).metadata).toEqual({ apiKey: t.credentials.apiKey, documentId: 'nd', organizationId: 'neworg' });
    const docs = await t.callK('/v2/organizations/documents/get', { organizationId: 'neworg' });
    expect(dataOf<Array<{ id: string }>>(docs).map((d) => d.id)).toEqual(['nd']);
    expect(await files()).toBe(before + 2);
  });

  it('a new version in another document fails inside the transaction and leaves no file and no row', async () => {
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', documents: [{ documentId: 'other-doc' }] });
    const before = await files();
    const res = await add(recording({ recordingId: 'rec-1' }), { documentId: 'other-doc' });
    expect({ status: res.status, error: errorOf(res) }).toEqual({
      status: 400,
      error: { status: 'INVALID_ARGUMENT', message: 'Recording rec-1 belongs to document doc.' },
    });
    expect(await files()).toBe(before);
    const got = await t.callK('/v2/recordings/get', { organizationId: 'acme', recordingIds: ['rec-1'] });
    expect(dataOf<Recording[]>(got)[0]).toMatchObject({ latestVersion: 2, metadata: { documentId: 'doc' } });
    expect(dataOf<Recording[]>(got)[0]!.attachments).toHaveLength(3);
  });

  it('another API key with the same organization and recording ids has its own recordings', async () => {
    const other = await createWorkspace(t);
    const mine = await add(recording({ recordingId: 'rec-1' }), { createOrganization: true, createDocument: true }, other.headersK);
    expect(mine.status).toBe(200);
    expect(dataOf(mine)).toMatchObject({ recordingId: 'rec-1', latestVersion: 1, metadata: { apiKey: other.apiKey } });
    expect(dataOf<AddedRecording>(mine).attachments.map((a) => a.attachmentId)).toEqual([1, 2]);
    const theirs = await t.callK('/v2/recordings/get', { organizationId: 'acme', recordingIds: ['rec-1'] });
    expect(dataOf<Recording[]>(theirs)[0]).toMatchObject({ latestVersion: 2, metadata: { apiKey: t.credentials.apiKey } });
    expect(dataOf<Recording[]>(theirs)[0]!.attachments).toHaveLength(3);
  });
});
