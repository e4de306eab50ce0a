// The Workspace page's button that rotates the workspace auth token (issue 42, point 10a): after a confirmation the
// page shows the new token; the old one is refused by the API at once, the new one works, the session stays signed in.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, signedInPage } from '../helpers/browser.ts';
import { call, startTestServer, workspaceHeaders, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let browser: Browser;
beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const getWith = (token: string) =>
  call(t.url, '/v2/workspace/get', {}, workspaceHeaders({ workspaceId: t.credentials.workspaceId, workspaceAuthToken: token }));

describe('admin UI: rotating the workspace auth token', () => {
  it('asks first, then shows the new token; the old one is refused', async () => {
    const old = t.credentials.workspaceAuthToken;
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(`${t.url}/workspace`);
    const button = page.locator('#workspace-token-rotate');
    await button.waitFor();
    page.once('dialog', (dialog) => void dialog.dismiss());
    await button.click();
    expect((await getWith(old)).status).toBe(200);
    page.once('dialog', (dialog) => void dialog.accept());
    await button.click();
    await expect.poll(() => page.textContent('#workspace-status')).toBe('Workspace auth token replaced.');
    const shown = (await page.textContent('#workspace-token')) ?? '';
    expect(shown).toMatch(/^[0-9a-f]{32}$/);
    expect((await getWith(old)).status).toBe(403);
    expect((await getWith(shown)).status).toBe(200);
    // the session still works: the page's own workspace calls read the current token
    await page.reload();
    await expect.poll(() => page.textContent('#workspace-info')).toContain(t.credentials.workspaceId);
    t.credentials.workspaceAuthToken = shown;
    expect(errors).toEqual([]);
  });
});
