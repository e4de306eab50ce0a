import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../../server/clock.ts';
import { startReceiver } from '../../helpers/receiver.ts';
import { dataOf, errorOf, eventually, startTestServer, type TestServer } from '../../helpers/server.ts';
import { upgradeAnswer } from '../../helpers/yjs.ts';

// The permission provider mode through the real thing: the README's example provider (docs/examples), started here
// on 127.0.0.1, asked by Hearth over HTTP; its decisions signed by /v2/auth/generate_signature.

type Decision = { hasAccess: boolean; accessRole?: 'viewer' | 'editor'; expiresAt?: number };
type Request = { userId: string; resourceId: string; type: string; organizationId: string };
type ProviderModule = {
  startPermissionProvider(options: {
    hearthUrl: string;
    apiKey: string;
    authToken: string;
    providerToken: string;
    decide: (request: Request) => Decision;
  }): Promise<Server>;
};

const EXAMPLE = new URL('../../../docs/examples/permission-provider.mjs', import.meta.url);
const TIMEOUT_MS = 300;

let t: TestServer;
let provider: Server;
let providerUrl: string;
const asked: Request[][] = [];
const rules = new Map<string, Decision>();

const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/permissions`;

beforeAll(async () => {
  t = await startTestServer({ permissionProviderTimeoutMs: TIMEOUT_MS });
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [{ documentId: 'granted', accessType: 'restricted' }],
  });
  const example = (await import(EXAMPLE.href)) as ProviderModule;
  provider = await example.startPermissionProvider({
    hearthUrl: t.url,
    apiKey: t.credentials.apiKey,
    authToken: t.credentials.authToken,
    providerToken: 'provider-secret',
    decide: (request) => rules.get(`${request.userId}:${request.type}:${request.resourceId}`) ?? { hasAccess: false },
  });
  provider.on('request', (req) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => asked.push((JSON.parse(body) as { data: { requests: Request[] } }).data.requests));
  });
  providerUrl = urlOf(provider);
  await useProvider(providerUrl);
});
afterAll(async () => {
  provider.closeAllConnections();
  await new Promise((resolve) => provider.close(resolve));
  await t.close();
});

async function useProvider(url: string, usePermissionProvider = true) {
  const res = await t.callK('/v2/workspace/permissionproviderconfig/update', {
    usePermissionProvider,
    permissionProviderConfig: { permissionProviderUrl: url, authToken: 'provider-secret' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function tokenFor(userId: string) {
  return dataOf<{ token: string }>(await t.callK('/v2/auth/generate_token', { userId })).token;
}

const open = async (userId: string, documentId: string) =>
  upgradeAnswer(t.url, `/yjs/acme/${documentId}/e?apiKey=${encodeURIComponent(t.credentials.apiKey)}&token=${encodeURIComponent(await tokenFor(userId))}`);

type Entry = { accessRole?: string; errorCode?: string; reasons: string[] };
const documentEntry = async (userId: string, documentId: string) => {
  const res = await t.callK('/v2/auth/permissions/get', { organizationId: 'acme', userIds: [userId], documentIds: [documentId] });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return dataOf<Record<string, { documents: Record<string, Entry> }>>(res)[userId]?.documents[documentId] as Entry;
};

describe('permission provider mode', () => {
  it('the example provider is the one README.md shows', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(readFileSync(EXAMPLE, 'utf8').trim());
  });

  it('grants what the provider grants (websocket and permissions/get), with its token, and keeps the decision', async () => {
    rules.set('ava:document:granted', { hasAccess: true, accessRole: 'editor' });
    rules.set('vic:document:granted', { hasAccess: true, accessRole: 'viewer' });
    const before = asked.length;
    // a restricted document ava is no member of: Hearth's own rules would refuse her
    expect((await open('ava', 'granted')).status).toBe(101);
    expect(asked.length).toBe(before + 1);
    expect(asked.at(-1)).toEqual([{ userId: 'ava', resourceId: 'granted', type: 'document', organizationId: 'acme' }]);
    expect(await documentEntry('ava', 'granted')).toEqual({ accessRole: 'editor', reasons: ['granted by the permission provider'] });
    // permissions/get asked only what was not kept (the organization), and the second open asked nothing
    expect(asked.length).toBe(before + 2);
    expect(asked.at(-1)).toEqual([{ userId: 'ava', resourceId: 'acme', type: 'organization', organizationId: 'acme' }]);
    expect((await open('ava', 'granted')).status).toBe(101);
    expect(asked.length).toBe(before + 2);
    // a viewer opens the (now existing) room too, and permissions/get shows the provider's role
    expect((await open('vic', 'granted')).status).toBe(101);
    expect((await documentEntry('vic', 'granted')).accessRole).toBe('viewer');
  });

  it('denies what the provider denies', async () => {
    rules.set('bob:document:granted', { hasAccess: false });
    const answer = await open('bob', 'granted');
    expect(answer.status).toBe(403);
    expect(answer.body).toContain('denied by the permission provider');
    expect(await documentEntry('bob', 'granted')).toMatchObject({ errorCode: 'permission_denied' });
  });

  it('asks again once a decision has expired, and denies a decision that came expired', async () => {
    rules.set('cy:document:short', { hasAccess: true, expiresAt: Date.now() + 150 });
    expect((await documentEntry('cy', 'short')).accessRole).toBe('editor');
    const before = asked.length;
    rules.set('cy:document:short', { hasAccess: false });
    await eventually(async () => expect((await documentEntry('cy', 'short')).errorCode).toBe('permission_denied'));
    expect(asked.length).toBeGreaterThan(before);

    rules.set('cy:document:stale', { hasAccess: true, expiresAt: Date.now() - 1000 });
    const stale = await documentEntry('cy', 'stale');
    expect(stale.errorCode).toBe('permission_denied');
    expect(stale.reasons.join()).toMatch(/expired/);
  });

  it('does not keep a decision made while the clock was ahead once the clock is set back (testing mode)', async () => {
    rules.set('dee:document:ahead', { hasAccess: true });
    clock.setOffset(10 * 24 * 3600_000);
    try {
      expect((await documentEntry('dee', 'ahead')).accessRole).toBe('editor');
    } finally {
      clock.setOffset(0);
    }
    // kept until ten days and the cache time from now, by a clock now set back: asked again, and denied
    rules.set('dee:document:ahead', { hasAccess: false });
    const before = asked.length;
    expect((await documentEntry('dee', 'ahead')).errorCode).toBe('permission_denied');
    expect(asked.length).toBeGreaterThan(before);
  });

  it("comment annotations' verifyUserPermissions asks the provider: its grant admits an author Hearth's rules would not, its denial refuses", async () => {
    rules.set('ann:document:granted', { hasAccess: true });
    rules.set('zed:document:granted', { hasAccess: false });
    const add = (userId: string) =>
      t.callK('/v2/commentannotations/add', {
        organizationId: 'acme',
        documentId: 'granted',
        verifyUserPermissions: true,
        commentAnnotations: [{ location: { id: 'L' }, commentData: [{ commentText: 'hi', from: { userId } }] }],
      });
    // ann is no member of the restricted document: only the provider lets her in
    expect((await add('ann')).status).toBe(200);
    const refused = await add('zed');
    expect(refused.status).toBe(403);
    expect(errorOf(refused)).toMatchObject({ status: 'PERMISSION_DENIED', details: [{ annotationIndex: 0, usersWithoutAccess: ['zed'] }] });
  });

  it("notifications' verifyUserPermissions asks the provider about every candidate: only those it grants are told", async () => {
    rules.set('ann:document:granted', { hasAccess: true });
    rules.set('zed:document:granted', { hasAccess: false });
    const before = asked.length;
    const res = await t.callK('/v2/notifications/add', {
      organizationId: 'acme',
      documentId: 'granted',
      notificationId: 'n-provider',
      notifyAll: false,
      verifyUserPermissions: true,
      actionUser: { userId: 'bob' },
      displayHeadlineMessageTemplate: 'Hi',
      displayBodyMessage: 'Look',
      notifyUsers: [{ userId: 'ann' }, { userId: 'zed' }, { userId: 'new-one' }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // ann is no member of the restricted document (Hearth's rules would drop her); zed and new-one are denied
    const got = await t.callK('/v2/notifications/get', { organizationId: 'acme', documentId: 'granted', notificationIds: ['n-provider'] });
    expect(Object.keys(dataOf<Array<{ notifyUsersByUserId: Record<string, unknown> }>>(got)[0]!.notifyUsersByUserId)).toEqual(['ann']);
    // asked in one request, about the candidates it had no kept decision on
    expect(
      asked
        .slice(before)
        .flat()
        .map((r) => r.userId),
    ).toContain('new-one');
  });

  it('fails closed on a tampered or unsigned answer, and says why in the request monitor', async () => {
    const signature = dataOf<{ signature: string }>(
      await t.callK('/v2/auth/generate_signature', { permissions: [{ userId: 'dee', resourceId: 'x', type: 'document', hasAccess: false }] }),
    ).signature;
    const answers = [
      { permissions: [{ userId: 'dee', resourceId: 'x', type: 'document', hasAccess: true }], signature },
      { permissions: [{ userId: 'dee', resourceId: 'x', type: 'document', hasAccess: true }] },
    ];
    for (const body of answers) {
      const forger = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: body })));
      await new Promise<void>((resolve) => forger.listen(0, '127.0.0.1', resolve));
      try {
        await useProvider(urlOf(forger));
        const entry = await documentEntry('dee', 'x');
        expect(entry.errorCode).toBe('permission_denied');
        expect(entry.reasons.join()).toMatch(/permission provider: the answer/);
        expect((await open('dee', 'x')).status).toBe(403);
      } finally {
        await new Promise((resolve) => forger.close(resolve));
      }
    }
    const calls = t.server.app.monitor.recent(t.credentials.workspaceId).filter((c) => c.caller === 'Hearth (permission provider)');
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.at(-1)?.method).toBe('POST');
  });

  it('fails closed when the provider is down, slow or failing, and never keeps such an answer', async () => {
    const down = createServer();
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    const downUrl = urlOf(down);
    await new Promise((resolve) => down.close(resolve));
    await useProvider(downUrl);
    expect((await documentEntry('eve', 'y')).reasons.join()).toMatch(/permission provider: unreachable/);
    expect((await open('eve', 'y')).status).toBe(403);

    const slow = await startReceiver({ fallback: 'hang' });
    try {
      await useProvider(slow.url);
      expect((await documentEntry('eve', 'y')).reasons.join()).toContain(`no answer within ${TIMEOUT_MS} ms`);
    } finally {
      await slow.close();
    }
    const failing = await startReceiver({ fallback: { status: 500, body: 'oops' } });
    try {
      await useProvider(failing.url);
      expect((await documentEntry('eve', 'y')).reasons.join()).toContain('answered HTTP 500');
      expect(failing.received.length).toBe(1);
      // not kept: asked again
      await documentEntry('eve', 'y');
      expect(failing.received.length).toBe(2);
      expect(failing.received[0]?.headers.authorization).toBe('Bearer provider-secret');
    } finally {
      await failing.close();
    }
  });

  it("with the mode off, Hearth's own rules decide again and the provider is not asked", async () => {
    await useProvider(providerUrl, false);
    const before = asked.length;
    const entry = await documentEntry('ava', 'granted');
    expect(entry.errorCode).toBe('permission_denied');
    expect(entry.reasons.join()).not.toMatch(/permission provider/);
    expect(asked.length).toBe(before);
    await useProvider(providerUrl, true);
    // the update forgot the kept decisions: asked again
    expect((await documentEntry('ava', 'granted')).accessRole).toBe('editor');
    expect(asked.length).toBe(before + 1);
  });
});

describe('permission provider and OUTBOUND_PRIVATE=deny', () => {
  it('refuses a provider URL on a private address', async () => {
    const strict = await startTestServer({ outboundPrivate: 'deny' });
    try {
      const res = await strict.callK('/v2/workspace/permissionproviderconfig/update', {
        usePermissionProvider: true,
        permissionProviderConfig: { permissionProviderUrl: 'http://127.0.0.1:9/permissions' },
      });
      expect(res.status).toBe(400);
      expect(errorOf(res).status).toBe('INVALID_ARGUMENT');
      expect(errorOf(res).message).toMatch(/permissionProviderUrl/);
    } finally {
      await strict.close();
    }
  });
});
