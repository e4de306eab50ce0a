// Testing mode (issue 47): the /testing/ routes and startHearth() from hearth/testing, on one in-process server;
// and their refusal on a server not in testing mode.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestHearth } from '../../types/testing.d.ts';
import { startHearth } from '../../server/testing/index.ts';
import { apiKeyHeaders, call, dataOf, eventually, startTestServer, workspaceHeaders, type TestServer } from '../helpers/server.ts';
import { connectYjs, upgradeStatus } from '../helpers/yjs.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

let h: TestHearth;
let plain: TestServer;
let receiver: Receiver;
beforeAll(async () => {
  [h, plain, receiver] = await Promise.all([startHearth({ logLevel: 'silent' }), startTestServer(), startReceiver()]);
});
afterAll(async () => {
  await Promise.all([h?.stop(), plain?.close(), receiver?.close()]);
});

const callK = (path: string, data: unknown) => call(h.url, path, data, apiKeyHeaders(h.credentials));
const testing = async (method: 'GET' | 'POST', path: string, data?: unknown, base = h.url) => {
  const res = await fetch(`${base}${path}`, {
    method,
    ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: data === undefined ? '' : JSON.stringify({ data }) } : {}),
  });
  return { status: res.status, body: (await res.json()) as { result?: { data: Record<string, unknown> }; error?: { status: string; message: string } } };
};
const documentsOf = async (organizationId: string) => {
  const res = await callK('/v2/organizations/documents/get', { organizationId });
  return res.status === 200 ? dataOf<unknown[]>(res).length : res.status;
};

describe('outside testing mode', () => {
  it('refuses every /testing/ route with a FAILED_PRECONDITION envelope', async () => {
    for (const [method, path] of [
      ['POST', '/testing/reset'],
      ['GET', '/testing/clock'],
      ['POST', '/testing/clock'],
      ['GET', '/testing/outbox'],
      ['GET', '/testing/anything'],
    ] as const) {
      const res = await testing(method, path, method === 'POST' ? {} : undefined, plain.url);
      expect(res.status, path).toBe(400);
      expect(res.body.error?.status).toBe('FAILED_PRECONDITION');
      expect(res.body.error?.message).toContain('hearth serve --testing');
    }
  });
});

describe('startHearth({ fixtures })', () => {
  it('loads the fixtures before it starts: their fixed key and token read their content', async () => {
    const withFixtures = await startHearth({ logLevel: 'silent', fixtures: new URL('../../docs/fixtures.example.json', import.meta.url).pathname });
    try {
      const got = await call(
        withFixtures.url,
        '/v2/crdt/get',
        { organizationId: 'acme', documentId: 'readme' },
        apiKeyHeaders({ apiKey: 'key_fixture_acme', authToken: 'yauth_fixture_acme_0001' }),
      );
      expect(got.status).toBe(200);
      expect(JSON.stringify(got.body)).toContain('Hello from the fixtures.');
      // a test's changes go, and the fixtures come back: a reset (over HTTP and from startHearth) loads them again
      const fixtureKey = apiKeyHeaders({ apiKey: 'key_fixture_acme', authToken: 'yauth_fixture_acme_0001' });
      const changed = await call(
        withFixtures.url,
        '/v2/crdt/update',
        { organizationId: 'acme', documentId: 'readme', editorId: 'main', type: 'text', data: 'changed by a test' },
        fixtureKey,
      );
      expect(changed.status).toBe(200);
      const extra = await call(withFixtures.url, '/v2/organizations/add', { organizations: [{ organizationId: 'made-by-a-test' }] }, fixtureKey);
      expect(extra.status).toBe(200);
      const reset = await call(withFixtures.url, '/testing/reset', {});
      expect(dataOf<{ fixturesReloaded: boolean }>(reset).fixturesReloaded).toBe(true);
      const again = await call(withFixtures.url, '/v2/crdt/get', { organizationId: 'acme', documentId: 'readme' }, fixtureKey);
      expect(JSON.stringify(again.body)).toContain('Hello from the fixtures.');
      expect(JSON.stringify(again.body)).not.toContain('changed by a test');
      const gone = await call(withFixtures.url, '/v2/organizations/get', { organizationIds: ['made-by-a-test'] }, fixtureKey);
      expect(JSON.stringify(gone.body)).not.toContain('"id":"made-by-a-test"');
      expect((await withFixtures.reset()).fixturesReloaded).toBe(true);
    } finally {
      await withFixtures.stop();
    }
  });
});

describe('reset', () => {
  it('deletes all data, keeps the credentials, and closes open websockets with 1012 (the provider reconnects)', async () => {
    const add = await callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd1' }] });
    expect(add.status).toBe(200);
    expect(await documentsOf('acme')).toBe(1);
    const client = connectYjs(
      h.url,
      { organizationId: 'acme', documentId: 'd1', editorId: 'e' },
      { apiKey: h.credentials.apiKey, authToken: h.credentials.authToken },
    );
    await client.synced;
    const closes: number[] = [];
    client.provider.on('connection-close', (event: CloseEvent | null) => void (event && closes.push(event.code)));
    client.doc.getText('content').insert(0, 'hello');

    const res = await testing('POST', '/testing/reset', {});
    expect(res.status).toBe(200);
    expect(res.body.result?.data).toMatchObject({ workspaces: 1, apiKeys: 1 });
    expect((res.body.result!.data.removed as Record<string, number>).organizations).toBe(1);
    await eventually(() => expect(closes).toContain(1012));
    client.close();
    // the organization is gone; the same credentials still work
    expect(await documentsOf('acme')).not.toBe(1);
    expect(
      (await callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd2' }] })).status,
    ).toBe(200);
    expect(await documentsOf('acme')).toBe(1);
  });

  it('resets one workspace only, and answers NOT_FOUND for an unknown one and INVALID_ARGUMENT for a bad body', async () => {
    expect((await testing('POST', '/testing/reset', { workspaceId: 'nope' })).body.error?.status).toBe('NOT_FOUND');
    const bad = await testing('POST', '/testing/reset', { workspaceId: 5 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ status: 'INVALID_ARGUMENT' });
    expect(bad.body.error?.message).toContain('data.workspaceId');
    const result = await h.reset({ workspaceId: h.credentials.workspaceId });
    expect(result).toMatchObject({ workspaces: 1, apiKeys: 1 });
    expect(result.removed.organizations).toBe(1);
  });
});

describe('clock', () => {
  it('is read and advanced over HTTP and from startHearth().clock, and refuses going back or bad input', async () => {
    const before = (await testing('GET', '/testing/clock')).body.result?.data as { now: number; offsetMs: number };
    expect(before.offsetMs).toBe(0);
    const moved = (await testing('POST', '/testing/clock', { advanceMs: 3_600_000 })).body.result?.data as { now: number; offsetMs: number };
    expect(moved.offsetMs).toBe(3_600_000);
    expect(moved.now - before.now).toBeGreaterThanOrEqual(3_600_000);
    expect(h.clock.now() - Date.now()).toBeGreaterThanOrEqual(3_600_000 - 5);
    expect((await testing('POST', '/testing/clock', { advanceMs: -1 })).body.error?.status).toBe('INVALID_ARGUMENT');
    expect((await testing('POST', '/testing/clock', { to: Date.now() - 60_000 })).body.error?.status).toBe('INVALID_ARGUMENT');
    await expect(h.clock.advance(-5)).rejects.toThrow(RangeError);
    await h.clock.reset();
    expect(Math.abs(h.clock.now() - Date.now())).toBeLessThan(5);
  });

  it('expires a permission and a 48-hour user token when advanced', async () => {
    await callK('/v2/organizations/documents/add', {
      organizationId: 'clk',
      createOrganization: true,
      documents: [{ documentId: 'doc', accessType: 'restricted' }],
    });
    const inOneHour = Math.floor(h.clock.now() / 1000) + 3600;
    const granted = await callK('/v2/auth/permissions/add', {
      user: { userId: 'ann' },
      permissions: { resources: [{ type: 'document', id: 'doc', organizationId: 'clk', accessRole: 'editor', expiresAt: inOneHour }] },
    });
    expect(granted.status).toBe(200);
    const roleOfAnn = async () => {
      const res = await callK('/v2/auth/permissions/get', { organizationId: 'clk', userIds: ['ann'], documentIds: ['doc'] });
      return dataOf<Record<string, { documents: Record<string, { accessRole?: string; errorCode?: string }> }>>(res).ann?.documents.doc;
    };
    expect((await roleOfAnn())?.accessRole).toBe('editor');

    const token = await callK('/v2/auth/generate_token', {
      userId: 'bob',
      permissions: { resources: [{ type: 'document', id: 'doc', organizationId: 'clk', accessRole: 'editor' }] },
    });
    const userToken = dataOf<{ token: string }>(token).token;
    const path = `/yjs/clk/doc/e?apiKey=${encodeURIComponent(h.credentials.apiKey)}&token=${encodeURIComponent(userToken)}`;
    expect(await upgradeStatus(h.url, path)).toBe(101);

    await h.clock.advance(2 * 3600_000);
    expect((await roleOfAnn())?.errorCode).toBe('permission_denied');
    expect(await upgradeStatus(h.url, path)).toBe(101);
    await testing('POST', '/testing/clock', { advanceMs: 47 * 3600_000 });
    expect(await upgradeStatus(h.url, path)).not.toBe(101);
    await h.clock.reset();
  });
});

describe('outbox', () => {
  it('captures webhook requests (still sent), lists and clears them; a retry goes out when the clock passes its time', async () => {
    receiver.answer({ status: 500, body: 'down' });
    expect((await callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true })).status).toBe(200);
    expect((await callK('/v2/workspace/advancedwebhook/endpoints/create', { url: `${receiver.url}/hook` })).status).toBe(200);
    await callK('/v2/organizations/documents/add', { organizationId: 'hooks', createOrganization: true, documents: [{ documentId: 'x' }] });
    const notified = await callK('/v2/notifications/add', {
      organizationId: 'hooks',
      documentId: 'x',
      actionUser: { userId: 'ann', name: 'Ann', email: 'ann@example.com' },
      displayHeadlineMessageTemplate: '{actionUser} pinged',
      displayBodyMessage: 'ping',
      notifyAll: false,
      notifyUsers: [{ userId: 'bob' }],
    });
    expect(notified.status, JSON.stringify(notified.body)).toBe(200);
    await eventually(() => expect(h.outbox.webhooks().length).toBeGreaterThanOrEqual(1));
    const first = h.outbox.webhooks()[0]!;
    expect(first).toMatchObject({ apiKeyId: h.credentials.apiKey, statusCode: 500, url: `${receiver.url}/hook` });
    expect(first.requestHeaders['webhook-signature']).toMatch(/^v1,/);
    expect(receiver.received.length).toBeGreaterThanOrEqual(1);
    const listed = (await testing('GET', '/testing/outbox?kind=webhook')).body.result?.data as { webhooks: unknown[]; mail?: unknown };
    expect(listed.mail).toBeUndefined();
    expect(listed.webhooks.length).toBe(h.outbox.webhooks().length);

    // the second attempt is 5 s later on the retry schedule: the clock takes it there
    receiver.answer({ status: 200, body: 'ok' });
    const attempts = h.outbox.webhooks().filter((w) => w.eventId === first.eventId).length;
    await h.clock.advance(10 * 60_000);
    await eventually(() => expect(h.outbox.webhooks().filter((w) => w.eventId === first.eventId && w.statusCode === 200).length).toBe(1));
    expect(h.outbox.webhooks().filter((w) => w.eventId === first.eventId).length).toBeGreaterThan(attempts);
    // signed at the real time, so that a receiver's tolerance check passes whatever Hearth's clock says
    const retried = h.outbox.webhooks().find((w) => w.eventId === first.eventId && w.statusCode === 200)!;
    expect(Math.abs(Number(retried.requestHeaders['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);

    expect((await testing('POST', '/testing/outbox/clear')).status).toBe(200);
    expect(h.outbox.webhooks()).toEqual([]);
    expect((await testing('GET', '/testing/outbox?kind=bogus')).body.error?.status).toBe('INVALID_ARGUMENT');
    await h.clock.reset();
  });

  it('sends a debounced crdt.update_data event once the clock passes its wait', async () => {
    receiver.answer({ status: 200, body: 'ok' });
    expect((await callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true })).status).toBe(200);
    if (h.outbox.webhooks().length === 0 && receiver.received.length === 0)
      expect((await callK('/v2/workspace/advancedwebhook/endpoints/create', { url: `${receiver.url}/hook` })).status).toBe(200);
    await callK('/v2/organizations/documents/add', { organizationId: 'deb', createOrganization: true, documents: [{ documentId: 'doc' }] });
    await h.outbox.clear();
    const client = connectYjs(
      h.url,
      { organizationId: 'deb', documentId: 'doc', editorId: 'e' },
      { apiKey: h.credentials.apiKey, authToken: h.credentials.authToken },
    );
    await client.synced;
    client.doc.getText('content').insert(0, 'debounced');
    const crdtEvents = () => h.outbox.webhooks().filter((w) => (JSON.parse(w.body) as { event?: string }).event === 'crdt.update_data');
    await h.clock.advance(2 * 60_000);
    // well within the 5 s debounce (crdtDebounceMs): without the clock's move this fails
    await eventually(() => expect(crdtEvents().length).toBeGreaterThanOrEqual(1), 4_000);
    client.close();
    await h.clock.reset();
  });

  it('lists the mail Hearth wrote (of one key when asked) and clears it', async () => {
    const W = workspaceHeaders(h.credentials);
    const created = await call(h.url, '/v2/workspace/apikey/create', { ownerEmail: 'owner@example.com', type: 'testing', useEmailService: true }, W);
    const apiKey = dataOf<{ apiKey: string }>(created).apiKey;
    const tokens = await call(h.url, '/v2/workspace/authtokens/get', { apiKey }, W);
    const K = apiKeyHeaders({ apiKey, authToken: dataOf<{ authTokens: Array<{ token: string }> }>(tokens).authTokens[0]!.token });
    await call(h.url, '/v2/organizations/documents/add', { organizationId: 'mailco', createOrganization: true, documents: [{ documentId: 'd' }] }, K);
    await call(h.url, '/v2/users/add', { organizationId: 'mailco', users: [{ userId: 'ann', name: 'Ann', email: 'ann@mail.example' }] }, K);
    const sent = await call(
      h.url,
      '/v2/notifications/add',
      {
        organizationId: 'mailco',
        documentId: 'd',
        actionUser: { userId: 'boss', name: 'The Boss' },
        displayHeadlineMessageTemplate: '{actionUser} needs you',
        displayBodyMessage: 'Look at this',
        notifyAll: false,
        notifyUsers: [{ userId: 'ann' }],
      },
      K,
    );
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const mail = await h.outbox.mail({ apiKeyId: apiKey });
    expect(mail).toHaveLength(1);
    expect(mail[0]).toMatchObject({ to: 'ann@mail.example', subject: 'The Boss needs you', status: 'kept' });
    const listed = (await testing('GET', `/testing/outbox?kind=mail&apiKey=${apiKey}`)).body.result?.data as { mail: Array<{ to: string }> };
    expect(listed.mail.map((m) => m.to)).toEqual(['ann@mail.example']);
    expect(await h.outbox.mail({ apiKeyId: h.credentials.apiKey })).toEqual([]);
    expect((await testing('POST', '/testing/outbox/clear', { apiKey })).status).toBe(200);
    expect(await h.outbox.mail({ apiKeyId: apiKey })).toEqual([]);
  });
});

describe('a web page of another origin', () => {
  // last: it leaves a document behind
  it('cannot reach the testing API (it asks no credentials): a cross-origin POST is refused and changes nothing', async () => {
    await callK('/v2/organizations/documents/add', { organizationId: 'csrf-org', createOrganization: true, documents: [{ documentId: 'kept' }] });
    for (const headers of [{ origin: 'https://evil.example', 'content-type': 'text/plain' }, { origin: 'null' }] as Array<Record<string, string>>) {
      const res = await fetch(`${h.url}/testing/reset`, { method: 'POST', headers, body: '{"data":{}}' });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { status: string } }).error.status).toBe('PERMISSION_DENIED');
    }
    expect(await documentsOf('csrf-org')).toBe(1);
    // its own origin (a page served by this Hearth) and no origin (a test suite, curl) are answered
    const same = await fetch(`${h.url}/testing/clock`, { headers: { origin: h.url } });
    expect(same.status).toBe(200);
  });
});
