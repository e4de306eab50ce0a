import { constants, createDecipheriv, createHash, generateKeyPairSync, privateDecrypt } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptView } from '../../shared/admin.ts';
import { signatureHeader } from '../../server/webhooks/crypto.ts';
import { addAnnotation } from '../helpers/comments.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { dataOf, errorOf, eventually, startTestServer, type Success, type TestServer } from '../helpers/server.ts';
import { enableWithEndpoint, FAST_WEBHOOKS } from '../helpers/webhooks.ts';

/** advancedwebhook/attempts/list's data. */
interface AttemptsAnswer {
  attempts: AttemptView[];
}
/** advancedwebhook/endpoints/get's data: the endpoints, compared whole but for their id. */
interface EndpointsAnswer {
  endpoints: Array<{ id: string }>;
}
/** advancedwebhook/endpoints/secret/rotate's data. */
interface EndpointSecretAnswer {
  secret: string;
}

let t: TestServer;
const receivers: Receiver[] = [];
const receiver = async (options: Parameters<typeof startReceiver>[0] = {}) => {
  const r = await startReceiver(options);
  receivers.push(r);
  return r;
};

beforeAll(async () => {
  t = await startTestServer({ webhooks: FAST_WEBHOOKS });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
});
afterAll(async () => {
  await t.close();
  await Promise.all(receivers.map((r) => r.close()));
});
afterEach(async () => {
  // Each test starts from no endpoints: delete whatever the last one made.
  const list = await t.callK<Partial<Success<EndpointsAnswer>>>('/v2/workspace/advancedwebhook/endpoints/get', {});
  for (const ep of list.body.result?.data?.endpoints ?? []) await t.callK('/v2/workspace/advancedwebhook/endpoints/delete', { endpointId: ep.id });
});

const comment = (text = 'hello') => addAnnotation(t, { commentData: [{ commentText: text, from: { userId: 'ann', name: 'Ann', email: 'ann@example.com' } }] });
const attempts = async (data: Record<string, unknown>) => dataOf<AttemptsAnswer>(await t.callK('/v2/workspace/advancedwebhook/attempts/list', data)).attempts;

describe('Standard Webhooks signing', () => {
  it('matches the published test vector', () => {
    expect(signatureHeader(['whsec_plJ3nmyCDGBKInavdOK15jsl'], 'msg_loFOjxBNrRLzqYUf', 1731705121, '{"event_type":"ping","data":{"success":true}}')).toBe(
      'v1,rAvfW3dJ/X/qxhsaXPOyyCGmRKsaKWcsNccKXlIktD0=',
    );
  });

  it('delivers a comment event that the standardwebhooks library verifies', async () => {
    const r = await receiver();
    const { id, secret } = await enableWithEndpoint(t, r.url);
    const { annotationId } = await comment('signed');
    const [delivery] = await eventually(() => {
      expect(r.received).toHaveLength(1);
      return r.received;
    });
    const payload = new Webhook(secret).verify(delivery!.body, delivery!.headers as Record<string, string>) as Record<string, any>;
    expect(payload).toMatchObject({
      event: 'comment_annotation.add',
      actionType: 'add',
      source: 'comment',
      platform: 'sdk',
      webhookId: delivery!.headers['webhook-id'],
    });
    expect(payload.data.commentAnnotation).toMatchObject({ annotationId, documentId: 'doc' });
    expect(payload.data.targetComment.commentText).toBe('signed');
    expect(payload.data.actionUser).toEqual({ userId: 'ann', name: 'Ann', email: 'ann@example.com' });
    expect(payload.data.metadata).toEqual({
      organizationId: createHash('md5').update('acme').digest('hex'),
      clientOrganizationId: 'acme',
      clientDocumentId: 'doc',
    });
    expect(payload.usersOrganizationNotificationsConfig).toEqual({ ann: { inbox: 'ALL', email: 'ALL' } });
    expect(String(delivery!.headers['webhook-id'])).toMatch(/^msg_/);
    // the endpoint's attempt is recorded
    const list = await eventually(async () => {
      const a = await attempts({ endpointId: id });
      expect(a).toHaveLength(1);
      return a;
    });
    expect(list[0]).toMatchObject({
      status: 'succeeded',
      responseStatusCode: 200,
      response: 'ok',
      trigger: 'scheduled',
      messageId: delivery!.headers['webhook-id'],
    });
    // a tampered body fails verification: the signature covers it
    expect(() => new Webhook(secret).verify(delivery!.body.replace('signed', 'forged'), delivery!.headers as Record<string, string>)).toThrow();
  });

  it("carries the participants' notification settings, the organization's and the document's", async () => {
    const r = await receiver();
    await enableWithEndpoint(t, r.url);
    const set = (data: Record<string, unknown>) => t.callK('/v2/notifications/config/set', { organizationId: 'acme', userIds: ['ann'], ...data });
    expect((await set({ config: { inbox: 'NONE' } })).status).toBe(200);
    expect((await set({ documentIds: ['doc'], config: { email: 'MINE' } })).status).toBe(200);
    // another document's setting is not this thread's
    expect((await set({ documentIds: ['elsewhere'], config: { inbox: 'MINE' } })).status).toBe(200);
    try {
      await comment('configured');
      const [delivery] = await eventually(() => {
        expect(r.received).toHaveLength(1);
        return r.received;
      });
      const payload = JSON.parse(delivery!.body) as Record<string, any>;
      expect(payload.usersOrganizationNotificationsConfig).toEqual({ ann: { inbox: 'NONE', email: 'ALL' } });
      // the document sets e-mail only: its inbox is the organization's
      expect(payload.usersDocumentNotificationsConfig).toEqual({ ann: { inbox: 'NONE', email: 'MINE' } });
    } finally {
      await set({ config: { inbox: 'ALL', email: 'ALL' } });
      await set({ documentIds: ['doc', 'elsewhere'], config: { inbox: 'ALL', email: 'ALL' } });
    }
  });

  it('signs with both secrets during a rotation overlap', async () => {
    const r = await receiver();
    const { id, secret: old } = await enableWithEndpoint(t, r.url);
    const rotated = await t.callK('/v2/workspace/advancedwebhook/endpoints/secret/rotate', { endpointId: id });
    expect(rotated.status).toBe(200);
    const fresh = dataOf<EndpointSecretAnswer>(rotated).secret;
    await comment('rotated');
    const [delivery] = await eventually(() => {
      expect(r.received).toHaveLength(1);
      return r.received;
    });
    expect(String(delivery!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [old, fresh])
      expect(new Webhook(secret).verify(delivery!.body, delivery!.headers as Record<string, string>)).toMatchObject({ event: 'comment_annotation.add' });
  });
});

describe('retries', () => {
  it('retries a failing receiver with the same webhook-id until it succeeds', async () => {
    const r = await receiver({
      script: [
        { status: 500, body: 'boom' },
        { status: 302, headers: { location: 'http://127.0.0.1:1/' } },
      ],
    });
    const { id } = await enableWithEndpoint(t, r.url);
    await comment('retry');
    await eventually(() => expect(r.received).toHaveLength(3));
    expect(new Set(r.received.map((x) => x.headers['webhook-id'])).size).toBe(1);
    expect(new Set(r.received.map((x) => x.body)).size).toBe(1);
    const list = await eventually(async () => {
      const a = await attempts({ endpointId: id });
      expect(a).toHaveLength(3);
      return a;
    });
    expect(list.map((a) => [a.status, a.responseStatusCode])).toEqual([
      ['succeeded', 200],
      ['failed', 302],
      ['failed', 500],
    ]);
    expect(list[2]!.response).toBe('boom');
  });

  it('honours retry-after on 429', async () => {
    const r = await receiver({ script: [{ status: 429, headers: { 'retry-after': '1' } }] });
    await enableWithEndpoint(t, r.url);
    await comment('slow down');
    await eventually(() => expect(r.received).toHaveLength(2), 5_000);
    // the schedule alone would retry after 20 ms; the receiver asked for a second
    expect(r.received[1]!.at - r.received[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('gives up after the schedule and emits message.attempt.exhausted to the other endpoints', async () => {
    const failing = await receiver({ fallback: { status: 500 } });
    const watcher = await receiver();
    const { id } = await enableWithEndpoint(t, failing.url, { filterTypes: ['comment_annotation.add'] });
    await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: watcher.url, filterTypes: ['message.attempt.exhausted'] });
    await comment('doomed');
    await eventually(() => expect(failing.received).toHaveLength(FAST_WEBHOOKS.retryScheduleMs.length));
    const [exhausted] = await eventually(() => {
      expect(watcher.received).toHaveLength(1);
      return watcher.received;
    });
    const payload = JSON.parse(exhausted!.body);
    expect(payload).toMatchObject({
      event: 'message.attempt.exhausted',
      data: {
        endpointId: id,
        messageId: failing.received[0]!.headers['webhook-id'],
        eventType: 'comment_annotation.add',
        lastAttempt: { responseStatusCode: 500 },
      },
    });
    // nothing more is sent after the last attempt
    expect((await attempts({ endpointId: id })).length).toBe(FAST_WEBHOOKS.retryScheduleMs.length);
  });

  it('disables an endpoint that answers 410 Gone', async () => {
    const r = await receiver({ fallback: { status: 410 } });
    const { id } = await enableWithEndpoint(t, r.url);
    await comment('gone');
    await eventually(async () => {
      const ep = dataOf<EndpointsAnswer>(await t.callK('/v2/workspace/advancedwebhook/endpoints/get', { endpointId: id })).endpoints[0];
      expect(ep).toMatchObject({ disabled: true, disabledReason: 'The endpoint answered 410 Gone.' });
    });
    await comment('after gone');
    await comment('after gone again');
    expect(r.received).toHaveLength(1);
  });

  it('times out a receiver that never answers and retries', async () => {
    const fast = await startTestServer({ webhooks: { ...FAST_WEBHOOKS, timeoutMs: 200 } });
    try {
      await fast.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
      const r = await receiver({ script: ['hang'] });
      const { id } = await enableWithEndpoint(fast, r.url);
      await addAnnotation(fast, { commentData: [{ commentText: 'x', from: { userId: 'ann' } }] });
      const list = await eventually(async () => {
        const a = dataOf<AttemptsAnswer>(await fast.callK('/v2/workspace/advancedwebhook/attempts/list', { endpointId: id })).attempts;
        expect(a).toHaveLength(2);
        return a;
      });
      expect(list[1]).toMatchObject({ status: 'failed', responseStatusCode: null, response: 'timed out after 200 ms' });
      expect(list[0]).toMatchObject({ status: 'succeeded' });
    } finally {
      await fast.close();
    }
  });
});

describe('endpoint limits', () => {
  it('disables an endpoint that has failed without a success for the configured time', async () => {
    const fast = await startTestServer({ webhooks: { ...FAST_WEBHOOKS, retryScheduleMs: [0, 100, 100, 100, 100], disableAfterMs: 250 } });
    try {
      await fast.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
      const r = await receiver({ fallback: { status: 500 } });
      const { id } = await enableWithEndpoint(fast, r.url);
      await addAnnotation(fast, { commentData: [{ commentText: 'x', from: { userId: 'ann' } }] });
      await eventually(async () => {
        const ep = dataOf<EndpointsAnswer>(await fast.callK('/v2/workspace/advancedwebhook/endpoints/get', { endpointId: id })).endpoints[0];
        expect(ep).toMatchObject({ disabled: true, disabledReason: expect.stringMatching(/^Every attempt failed for/) });
      });
      // the disabling failure is the one at or after 250 ms: the 4th attempt at the latest
      expect(r.received.length).toBeGreaterThanOrEqual(3);
      expect(r.received.length).toBeLessThanOrEqual(4);
      // re-enabling starts over: the next event is sent
      r.answer({ status: 200 });
      await fast.callK('/v2/workspace/advancedwebhook/endpoints/update', { endpointId: id, disabled: false });
      const before = r.received.length;
      await addAnnotation(fast, { commentData: [{ commentText: 'y', from: { userId: 'ann' } }] });
      await eventually(() => expect(r.received).toHaveLength(before + 1));
    } finally {
      await fast.close();
    }
  });

  it('spaces deliveries to an endpoint by its rateLimit', async () => {
    const r = await receiver();
    const { id } = await enableWithEndpoint(t, r.url, { rateLimit: 5, filterTypes: ['comment_annotation.add'] });
    for (let i = 0; i < 4; i++) await comment(`burst ${i}`);
    await eventually(() => expect(r.received).toHaveLength(4), 5_000);
    // When each attempt started, as the server recorded it (arrival times at the receiver also carry the
    // network's and this process's scheduling jitter): 5 per second, 200 ms apart, less a timer's millisecond.
    let started: number[] = [];
    // an attempt is recorded once its answer is in: shortly after the receiver saw it
    await eventually(async () => {
      started = (await attempts({ endpointId: id })).map((a) => Date.parse(a.timestamp)).sort((a, b) => a - b);
      expect(started).toHaveLength(4);
    });
    for (let i = 1; i < started.length; i++) expect(started[i]! - started[i - 1]!).toBeGreaterThanOrEqual(199);
  });

  it('sends an endpoint with channels only the events of those organizations or documents', async () => {
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', documents: [{ documentId: 'other-doc' }] });
    const r = await receiver();
    await enableWithEndpoint(t, r.url, { channels: ['other-doc'] });
    await comment('not for this channel');
    await addAnnotation(t, { commentData: [{ commentText: 'for the channel', from: { userId: 'ann' } }] }, { documentId: 'other-doc' });
    await eventually(() => expect(r.received).toHaveLength(1));
    expect(JSON.parse(r.received[0]!.body).data.targetComment.commentText).toBe('for the channel');
  });
});

describe('replay, recover and deletion', () => {
  it('replays a delivered message with the same id', async () => {
    const r = await receiver();
    const { id } = await enableWithEndpoint(t, r.url);
    await comment('again');
    await eventually(() => expect(r.received).toHaveLength(1));
    const messageId = String(r.received[0]!.headers['webhook-id']);
    const replay = await t.callK('/v2/workspace/advancedwebhook/messages/replay', { messageId });
    expect(dataOf<unknown>(replay)).toEqual({ messageId, endpointIds: [id] });
    await eventually(() => expect(r.received).toHaveLength(2));
    expect(r.received[1]!.headers['webhook-id']).toBe(messageId);
    expect(r.received[1]!.body).toBe(r.received[0]!.body);
    await eventually(async () => expect((await attempts({ messageId })).map((a) => a.trigger)).toEqual(['replay', 'scheduled']));
  });

  it('recovers failed messages of an endpoint since a time', async () => {
    const r = await receiver({ fallback: { status: 500 } });
    // filtered: the message.attempt.exhausted events would come here too otherwise
    const { id } = await enableWithEndpoint(t, r.url, { filterTypes: ['comment_annotation.add'] });
    const since = new Date().toISOString();
    await comment('lost 1');
    await comment('lost 2');
    await eventually(() => expect(r.received).toHaveLength(2 * FAST_WEBHOOKS.retryScheduleMs.length));
    await eventually(async () => expect(await attempts({ endpointId: id, status: 'failed', limit: 250 })).toHaveLength(8));
    r.answer({ status: 204 });
    const recovered = await t.callK('/v2/workspace/advancedwebhook/endpoints/recover', { endpointId: id, since });
    expect(dataOf<unknown>(recovered)).toEqual({ endpointId: id, recovered: 2 });
    await eventually(async () => expect((await attempts({ endpointId: id, status: 'succeeded' })).map((a) => a.trigger)).toEqual(['recover', 'recover']));
  });

  it('sends nothing more to a deleted endpoint, not even a pending retry', async () => {
    const r = await receiver({ fallback: { status: 500 } });
    const slow = await startTestServer({ webhooks: { ...FAST_WEBHOOKS, retryScheduleMs: [0, 300, 300] } });
    try {
      await slow.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
      const { id } = await enableWithEndpoint(slow, r.url);
      await addAnnotation(slow, { commentData: [{ commentText: 'x', from: { userId: 'ann' } }] });
      await eventually(() => expect(r.received).toHaveLength(1));
      const deleted = await slow.callK('/v2/workspace/advancedwebhook/endpoints/delete', { endpointId: id });
      expect(dataOf<unknown>(deleted)).toEqual({ endpointId: id, deleted: true });
      await addAnnotation(slow, { commentData: [{ commentText: 'y', from: { userId: 'ann' } }] });
      // the retry was due 300 ms after the first attempt: wait past it on something observable, a second live
      // endpoint that fails too, whose own retry falls due 300 ms after its first attempt (later than the deleted
      // endpoint's: the worker sends due deliveries oldest due first)
      const witness = await receiver({ fallback: { status: 500 } });
      await slow.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: witness.url });
      await addAnnotation(slow, { commentData: [{ commentText: 'z', from: { userId: 'ann' } }] });
      await eventually(() => expect(witness.received).toHaveLength(2));
      expect(r.received).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });
});

describe('payload encoding and encryption', () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicBody = publicKey
    .export({ type: 'spki', format: 'pem' })
    .toString()
    .replace(/-----[A-Z ]+-----|\s/g, '');
  const decrypt = (envelope: { encryptedData: string; encryptedKey: string; iv: string }) => {
    // reference.md 4.4: receivers wrap their private key as PKCS#1 PEM
    const pem = privateKey.export({ type: 'pkcs1', format: 'pem' });
    const key = privateDecrypt({ key: pem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, Buffer.from(envelope.encryptedKey, 'base64'));
    expect(key).toHaveLength(32);
    const decipher = createDecipheriv('aes-256-cbc', key, Buffer.from(envelope.iv, 'base64'));
    return JSON.parse(Buffer.concat([decipher.update(Buffer.from(envelope.encryptedData, 'base64')), decipher.final()]).toString('utf8'));
  };

  afterEach(async () => {
    await t.callK('/v2/workspace/advancedwebhookconfig/update', { encodeData: false, encryptData: false, publicKey: '', enableDataProtection: false });
  });

  it('base64-encodes the payload with encodeData', async () => {
    const r = await receiver();
    await enableWithEndpoint(t, r.url);
    await t.callK('/v2/workspace/advancedwebhookconfig/update', { encodeData: true });
    await comment('encoded');
    await eventually(() => expect(r.received).toHaveLength(1));
    const body = JSON.parse(r.received[0]!.body);
    expect(Object.keys(body)).toEqual(['encodedPayload']);
    expect(JSON.parse(Buffer.from(body.encodedPayload, 'base64').toString('utf8'))).toMatchObject({ event: 'comment_annotation.add' });
  });

  it('encrypts with the public key (RSA-OAEP-SHA256 + AES-256-CBC); with encodeData too, encrypts then encodes', async () => {
    const r = await receiver();
    await enableWithEndpoint(t, r.url);
    const updated = await t.callK('/v2/workspace/advancedwebhookconfig/update', { encryptData: true, publicKey: publicBody });
    expect(dataOf<unknown>(updated)).toEqual({ isEnabled: true, encryptData: true, encodeData: false, publicKey: publicBody, enableDataProtection: false });
    await comment('secret text');
    await eventually(() => expect(r.received).toHaveLength(1));
    const envelope = JSON.parse(r.received[0]!.body);
    expect(Object.keys(envelope).sort()).toEqual(['encryptedData', 'encryptedKey', 'iv']);
    expect(Buffer.from(envelope.encryptedKey, 'base64')).toHaveLength(256);
    expect(r.received[0]!.body).not.toContain('secret text');
    expect(decrypt(envelope).data.targetComment.commentText).toBe('secret text');

    await t.callK('/v2/workspace/advancedwebhookconfig/update', { encodeData: true });
    await comment('both');
    await eventually(() => expect(r.received).toHaveLength(2));
    const outer = JSON.parse(r.received[1]!.body);
    const inner = JSON.parse(Buffer.from(outer.encodedPayload, 'base64').toString('utf8'));
    expect(decrypt(inner).data.targetComment.commentText).toBe('both');
  });

  it('leaves personal fields out with enableDataProtection', async () => {
    const r = await receiver();
    await enableWithEndpoint(t, r.url);
    await t.callK('/v2/workspace/advancedwebhookconfig/update', { enableDataProtection: true });
    await comment('private');
    await eventually(() => expect(r.received).toHaveLength(1));
    expect(r.received[0]!.body).not.toContain('ann@example.com');
    expect(r.received[0]!.body).not.toContain('"Ann"');
    const payload = JSON.parse(r.received[0]!.body);
    expect(payload.data.actionUser).toEqual({ userId: 'ann' });
    expect(payload.data.targetComment.commentText).toBe('private');
  });
});

describe('filters and tenants', () => {
  it('sends an endpoint only the event types it filters on', async () => {
    const all = await receiver();
    const onlyReactions = await receiver();
    await enableWithEndpoint(t, all.url);
    await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: onlyReactions.url, filterTypes: ['comment.reaction_add'] });
    const { annotationId, commentIds } = await comment('react to me');
    await t.callK('/v2/reactions/add', { organizationId: 'acme', annotationId, commentId: commentIds[0], icon: '👍', from: { userId: 'bob' } });
    await eventually(() => expect(all.received).toHaveLength(2));
    await eventually(() => expect(onlyReactions.received).toHaveLength(1));
    const reaction = JSON.parse(onlyReactions.received[0]!.body);
    expect(reaction).toMatchObject({
      event: 'comment.reaction_add',
      actionType: 'reactionAdd',
      data: { actionUser: { userId: 'bob' }, reaction: { icon: '👍' } },
    });
  });

  it("keeps one key's endpoints, events and attempts from another's", async () => {
    const mine = await receiver();
    const theirs = await receiver();
    const other = await createWorkspace(t);
    const { id } = await enableWithEndpoint(t, mine.url);
    const { id: otherId } = await enableWithEndpoint(t, theirs.url, {}, other.headersK);
    await comment('mine only');
    await eventually(() => expect(mine.received).toHaveLength(1));
    expect(theirs.received).toHaveLength(0);
    const foreign = await t.callK('/v2/workspace/advancedwebhook/endpoints/get', { endpointId: otherId });
    expect(errorOf(foreign)).toEqual({ status: 'NOT_FOUND', message: 'Advanced webhook provider request failed.' });
    for (const path of ['/v2/workspace/advancedwebhook/endpoints/secret/get', '/v2/workspace/advancedwebhook/endpoints/delete']) {
      expect((await t.callK(path, { endpointId: otherId }, other.headersK)).status).toBe(200);
      expect(errorOf(await t.callK(path, { endpointId: id }, other.headersK)).status).toBe('NOT_FOUND');
    }
    const messageId = String(mine.received[0]!.headers['webhook-id']);
    expect(dataOf<AttemptsAnswer>(await t.callK('/v2/workspace/advancedwebhook/attempts/list', { messageId }, other.headersK)).attempts).toEqual([]);
    expect(errorOf(await t.callK('/v2/workspace/advancedwebhook/messages/replay', { messageId }, other.headersK)).status).toBe('NOT_FOUND');
  });
});
