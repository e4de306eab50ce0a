// The admin UI shows a key's permission provider mode and its newest decisions (issue 45), in real Chromium against
// a real server that asks README's example provider: a grant and a denial made by two users opening a document over
// the websocket appear on the key's page with their reasons, and the mode reads off once it is turned off.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, launchBrowser, signedInPage } from '../helpers/browser.ts';
import { dataOf, startTestServer, type TestServer } from '../helpers/server.ts';
import { upgradeAnswer } from '../helpers/yjs.ts';

type ProviderModule = {
  startPermissionProvider(options: {
    hearthUrl: string;
    apiKey: string;
    authToken: string;
    providerToken: string;
    decide: (request: { userId: string; resourceId: string }) => { hasAccess: boolean; accessRole?: 'viewer' | 'editor' };
  }): Promise<Server>;
};

let t: TestServer;
let browser: Browser;
let provider: Server;
let providerUrl: string;
beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'plan' }] });
  await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'plan', editorId: 'main', type: 'text', data: 'hello' });
  const example = (await import(new URL('../../docs/examples/permission-provider.mjs', import.meta.url).href)) as ProviderModule;
  provider = await example.startPermissionProvider({
    hearthUrl: t.url,
    apiKey: t.credentials.apiKey,
    authToken: t.credentials.authToken,
    providerToken: 'provider-secret',
    decide: ({ userId }) => (userId === 'ann' ? { hasAccess: true, accessRole: 'viewer' } : { hasAccess: false }),
  });
  providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/permissions`;
});
afterAll(async () => {
  await browser?.close();
  provider?.closeAllConnections();
  await new Promise((resolve) => (provider ? provider.close(resolve) : resolve(undefined)));
  await t?.close();
});

const useProvider = (usePermissionProvider: boolean) =>
  t.callK('/v2/workspace/permissionproviderconfig/update', {
    usePermissionProvider,
    permissionProviderConfig: { permissionProviderUrl: providerUrl, authToken: 'provider-secret' },
  });

const open = async (userId: string) => {
  const { token } = dataOf<{ token: string }>(await t.callK('/v2/auth/generate_token', { userId }));
  return upgradeAnswer(t.url, `/yjs/acme/plan/main?apiKey=${encodeURIComponent(t.credentials.apiKey)}&token=${encodeURIComponent(token)}`);
};

describe('admin UI: the permission provider on the key page', () => {
  it("shows the mode, the provider's URL and its newest decisions with their reasons", async () => {
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(`${t.url}/k/${t.credentials.apiKey}`);
    await expect.poll(() => page.textContent('#provider-mode')).toContain('off');
    expect(await page.textContent('#provider-decisions-empty')).toContain('No decision');

    expect((await useProvider(true)).status).toBe(200);
    expect((await open('ann')).status).toBe(101);
    expect((await open('zed')).status).toBe(403);
    await page.click('#provider-reload');
    await expect.poll(() => page.textContent('#provider-mode')).toContain('on');
    expect(await page.textContent('#provider-mode')).toContain(providerUrl);
    const ann = page.locator('#provider-decisions tbody tr[data-user="ann"]');
    const zed = page.locator('#provider-decisions tbody tr[data-user="zed"]');
    await expect.poll(() => ann.count()).toBe(1);
    expect(await ann.getAttribute('data-access')).toBe('true');
    expect(await ann.textContent()).toMatch(/document\s*acme\/plan.*granted \(viewer\).*granted by the permission provider/);
    expect(await zed.getAttribute('data-access')).toBe('false');
    expect(await zed.textContent()).toMatch(/denied.*denied by the permission provider/);
    // newest first
    expect(await page.locator('#provider-decisions tbody tr').first().getAttribute('data-user')).toBe('zed');
    expect(await axeViolations(page)).toEqual([]);

    expect((await useProvider(false)).status).toBe(200);
    await page.click('#provider-reload');
    await expect.poll(() => page.textContent('#provider-mode')).toContain('off');
    expect(errors).toEqual([]);
  });
});
