// Disabling and enabling an API key from the admin UI (issue 32): from the Workspace page's key list (after a
// confirmation) and from the key's own page; the key's calls and its open websocket are refused meanwhile.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_DISABLED } from '../../server/services/apikeys.ts';
import { axeViolations, docScreenshot, launchBrowser, signedInPage } from '../helpers/browser.ts';
import { apiKeyHeaders, dataOf, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';
import type { ApiKeyAnswer, AuthTokensAnswer, WorkspaceAnswer } from '../helpers/answers.ts';

let t: TestServer;
let browser: Browser;
let key: { apiKey: string; authToken: string };
beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
  const ownerEmail = dataOf<WorkspaceAnswer>(await t.callW('/v2/workspace/get', {})).owner.email;
  const apiKey = dataOf<ApiKeyAnswer>(
    await t.callW('/v2/workspace/apikey/create', { ownerEmail, type: 'testing', apiKeyName: 'Mobile app', createAuthToken: true }),
  ).apiKey;
  key = { apiKey, authToken: dataOf<AuthTokensAnswer>(await t.callW('/v2/workspace/authtokens/get', { apiKey })).authTokens[0]!.token };
  await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'doc', editorId: 'e', type: 'text', data: 'hi' }, apiKeyHeaders(key));
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const organizations = () => t.callK('/v2/organizations/get', {}, apiKeyHeaders(key));

describe('admin UI: disabling an API key', () => {
  it('disables a key from the workspace list (its calls and websocket are refused) and enables it from its page', async () => {
    const client = Object.assign(connectYjs(t.url, { organizationId: 'acme', documentId: 'doc', editorId: 'e' }, key), { closes: [] as number[] });
    client.provider.on('connection-close', (event: { code: number } | null) => event && client.closes.push(event.code));
    await client.synced;
    try {
      const { page, errors } = await signedInPage(browser, t);
      await page.goto(`${t.url}/workspace`);
      const row = page.locator(`#key-list tr[data-key="${key.apiKey}"]`);
      await expect.poll(() => row.textContent()).toContain('enabled');
      // a confirmation first: dismissed, nothing changes
      page.once('dialog', (dialog) => void dialog.dismiss());
      await row.locator('button[data-key-state]').click();
      expect((await organizations()).status).toBe(200);
      page.once('dialog', (dialog) => void dialog.accept());
      await row.locator('button[data-key-state]').click();
      await expect.poll(() => page.textContent('#workspace-status')).toBe(`API key ${key.apiKey} disabled.`);
      await expect.poll(() => row.textContent()).toContain('disabled since');
      expect(await row.locator('button[data-key-state]').textContent()).toBe('Enable');
      // the key picker says so too
      await expect.poll(() => page.locator(`#key-picker option[value="${key.apiKey}"]`).textContent()).toBe('Mobile app (testing, disabled)');
      expect(await organizations()).toMatchObject({ status: 403, body: { error: { status: 'PERMISSION_DENIED', message: API_KEY_DISABLED } } });
      await expect.poll(() => client.closes).toEqual([4403]);

      // its page: the state, why its configuration cannot be read, and the way back
      await page.goto(`${t.url}/k/${key.apiKey}`);
      await expect.poll(() => page.textContent('#key-state')).toContain('disabled since');
      expect(await page.textContent('#key-state-note')).toContain('refused (PERMISSION_DENIED)');
      await expect.poll(() => page.textContent('#key-configuration')).toContain(API_KEY_DISABLED);
      expect(await axeViolations(page)).toEqual([]);
      await docScreenshot(page, 'key-disabled');
      await page.click('#key-state-toggle');
      await expect.poll(() => page.textContent('#workspace-status')).toBe(`API key ${key.apiKey} enabled.`);
      await expect.poll(() => page.textContent('#key-state')).toContain('enabled');
      // its configuration loads again, and the key is served
      await expect.poll(() => page.textContent('#config-requireJwtToken')).toBe('false');
      expect((await organizations()).status).toBe(200);
      expect(errors).toEqual([]);
    } finally {
      client.close();
    }
  });
});
