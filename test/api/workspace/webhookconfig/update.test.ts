import { constants, createDecipheriv, generateKeyPairSync, privateDecrypt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation } from '../../../helpers/comments.ts';
import { startReceiver, type Receiver } from '../../../helpers/receiver.ts';
import { dataOf, errorOf, eventually, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';
import { FAST_WEBHOOKS } from '../../../helpers/webhooks.ts';
import { defaultBasicTriggers } from '../../../../shared/schemas/webhooks.ts';

const PATH = '/v2/workspace/webhookconfig/update';

/** webhookconfig/get and /update answer the basic webhook settings (the fields read here). */
interface WebhookConfig {
  webhookServiceConfig: { triggers: Record<string, boolean>; rawNotificationUrl: string; encodeData: boolean };
}
let t: TestServer;
let r: Receiver;
beforeAll(async () => {
  t = await startTestServer({ webhooks: FAST_WEBHOOKS });
  r = await startReceiver();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
});
afterAll(async () => {
  await t.close();
  await r.close();
});

describe(PATH, () => {
  it('delivers comment events to the raw and processed URLs with Basic auth', async () => {
    const res = await t.callK(PATH, {
      useWebhookService: true,
      webhookServiceConfig: { authToken: 'tok3n', rawNotificationUrl: `${r.url}/raw`, processedNotificationUrl: `${r.url}/processed` },
    });
    expect(resultOf(res).message).toBe('Webhook configuration updated successfully.');
    expect(dataOf<WebhookConfig>(res)).toMatchObject({
      useWebhookService: true,
      webhookServiceConfig: { authTokenConfigured: true, rawNotificationUrl: `${r.url}/raw` },
    });
    expect(JSON.stringify(res.body)).not.toContain('tok3n');
    const { annotationId } = await addAnnotation(t, { commentData: [{ commentText: 'basic', from: { userId: 'ann' } }] });
    await eventually(() => expect(r.received).toHaveLength(2));
    const raw = r.received.find((x) => x.path === '/raw')!;
    const processed = r.received.find((x) => x.path === '/processed')!;
    expect(raw.headers.authorization).toBe('Basic tok3n');
    expect(raw.headers['webhook-id']).toBe(processed.headers['webhook-id']);
    const rawBody = JSON.parse(raw.body);
    expect(rawBody).toMatchObject({
      webhookId: raw.headers['webhook-id'],
      actionType: 'newlyAdded',
      notificationSource: 'comment',
      platform: 'sdk',
      actionUser: { userId: 'ann' },
      commentAnnotation: { annotationId },
      targetComment: { commentText: 'basic' },
      accessDeniedUsers: [],
    });
    expect(rawBody.usersOrganizationNotificationsConfig).toBeUndefined();
    // the processed URL also gets the participants' notification settings
    expect(JSON.parse(processed.body)).toMatchObject({
      actionType: 'newlyAdded',
      usersOrganizationNotificationsConfig: { ann: { inbox: 'ALL', email: 'ALL' } },
      usersDocumentNotificationsConfig: { ann: { inbox: 'ALL', email: 'ALL' } },
    });
  });

  it('follows the triggers: CRDT and recorder are off until turned on', async () => {
    r.received.length = 0;
    await t.callK(PATH, { webhookServiceConfig: { triggers: { 'comment_annotation.add': false } } });
    const data = dataOf<WebhookConfig>(await t.callK('/v2/workspace/webhookconfig/get', {}));
    expect(data.webhookServiceConfig.triggers['comment_annotation.add']).toBe(false);
    expect(data.webhookServiceConfig.triggers['comment.add']).toBe(true);
    const { annotationId } = await addAnnotation(t, { commentData: [{ commentText: 'quiet', from: { userId: 'ann' } }] });
    await t.callK('/v2/commentannotations/comments/add', {
      organizationId: 'acme',
      annotationId,
      commentData: [{ commentText: 'loud', from: { userId: 'bob' } }],
    });
    await eventually(() => expect(r.received).toHaveLength(2));
    expect(r.received.map((x) => JSON.parse(x.body).actionType)).toEqual(['added', 'added']);
  });

  it('encrypts basic payloads with its own public key', async () => {
    r.received.length = 0;
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const body = publicKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    await t.callK(PATH, { webhookServiceConfig: { encryptData: true, publicKey: body, processedNotificationUrl: '' } });
    // comment_annotation.add is still off (previous test): only the reply is reported
    const { annotationId } = await addAnnotation(t, { commentData: [{ commentText: 'thread', from: { userId: 'ann' } }] });
    await t.callK('/v2/commentannotations/comments/add', {
      organizationId: 'acme',
      annotationId,
      commentData: [{ commentText: 'sealed reply', from: { userId: 'ann' } }],
    });
    await eventually(() => expect(r.received).toHaveLength(1));
    const envelope = JSON.parse(r.received[0]!.body);
    const key = privateDecrypt(
      { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      Buffer.from(envelope.encryptedKey, 'base64'),
    );
    const decipher = createDecipheriv('aes-256-cbc', key, Buffer.from(envelope.iv, 'base64'));
    const payload = JSON.parse(Buffer.concat([decipher.update(Buffer.from(envelope.encryptedData, 'base64')), decipher.final()]).toString('utf8'));
    expect(payload.targetComment.commentText).toBe('sealed reply');
  });

  it('validates the configuration', async () => {
    expect(errorOf(await t.callK(PATH, {}))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'At least one of useWebhookService or webhookServiceConfig must be provided.',
    });
    // the hosted message exactly (reference §3.1); what is wrong is in details
    const BAD = 'Invalid webhook service configuration.';
    expect(errorOf(await t.callK(PATH, { webhookServiceConfig: { rawNotificationUrl: 'ftp://x' } }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: BAD,
      details: { field: 'webhookServiceConfig.rawNotificationUrl', reason: 'rawNotificationUrl must be an http(s) URL.' },
    });
    expect(errorOf(await t.callK(PATH, { webhookServiceConfig: { processedNotificationUrl: 'not a url' } }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: BAD,
      details: { field: 'webhookServiceConfig.processedNotificationUrl', reason: 'processedNotificationUrl must be an http(s) URL.' },
    });
    const badKey = errorOf(await t.callK(PATH, { webhookServiceConfig: { publicKey: 'nope' } }));
    expect(badKey.message).toBe(BAD);
    expect(badKey.details).toMatchObject({ field: 'webhookServiceConfig.publicKey', reason: expect.stringMatching(/^publicKey/) });
    expect(errorOf(await t.callK(PATH, { webhookServiceConfig: { encryptData: true, publicKey: '' } }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: BAD,
      details: { field: 'webhookServiceConfig.publicKey', reason: 'encryptData requires a publicKey.' },
    });
    expect(errorOf(await t.callK(PATH, { webhookServiceConfig: { triggers: { 'nope.nope': true } } })).status).toBe('INVALID_ARGUMENT');
  });
});

describe(`${PATH}: updates made at the same time`, () => {
  it('keep every field: a change whose URL is looked up first (OUTBOUND_PRIVATE=deny) merges into the settings as stored when it writes', async () => {
    // Under deny the URL's host is resolved before the change is written: real I/O, during which the other
    // updates run to their end. A change merged into the key's row as authentication read it would put their
    // triggers back as they were.
    const s = await startTestServer({ webhooks: FAST_WEBHOOKS, outboundPrivate: 'deny' });
    try {
      const types = Object.entries(defaultBasicTriggers())
        .filter(([, on]) => on)
        .map(([type]) => type);
      expect(types.length).toBeGreaterThan(10);
      const hosts = types.slice(0, 4).map((_, i) => `https://hooks-${i}.example.invalid/raw`);
      const answers = await Promise.all([
        ...hosts.map((url) => s.callK(PATH, { webhookServiceConfig: { rawNotificationUrl: url } })),
        ...types.map((type) => s.callK(PATH, { webhookServiceConfig: { triggers: { [type]: false } } })),
        s.callK(PATH, { webhookServiceConfig: { encodeData: true } }),
      ]);
      for (const answer of answers) expect(answer.status).toBe(200);
      const after = dataOf<WebhookConfig>(await s.callK('/v2/workspace/webhookconfig/get', {})).webhookServiceConfig;
      for (const type of types) expect(after.triggers[type], type).toBe(false);
      expect(hosts).toContain(after.rawNotificationUrl);
      expect(after.encodeData).toBe(true);
    } finally {
      await s.close();
    }
  });
});
