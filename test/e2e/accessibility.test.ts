// Keyboard and screen-reader comforts of the admin UI that pages.test.ts does not cover on the seeded data: the
// focus moves to the page (<main>) after a navigation instead of staying in the sidebar, and a list's page is kept
// in the URL (a reload or a shared link opens the same page; Back returns to the page before).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, signedInPage } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let browser: Browser;
/** 120 organizations: three pages of 50. */
const ids = Array.from({ length: 120 }, (_, i) => `org-${String(i).padStart(3, '0')}`);
beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
  await t.callK('/v2/organizations/add', { organizations: ids.map((organizationId) => ({ organizationId })) });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const rows = (page: Page) =>
  page.locator('#organizations tbody tr[data-organization]').evaluateAll((all) => all.map((r) => r.getAttribute('data-organization')));
const pageLabel = (page: Page) => page.textContent('#organizations .pager span');
const query = (page: Page, name: string) => new URL(page.url()).searchParams.get(name);

describe('admin UI: focus and the URL', () => {
  it('moves the focus to the page after a navigation, so the next Tab is in the page and not in the sidebar', async () => {
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(`${t.url}/k/${t.credentials.apiKey}/organizations`);
    await expect.poll(() => rows(page)).toHaveLength(50);
    await page.click('nav#nav a[data-nav="users"]');
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/k/${t.credentials.apiKey}/users`);
    await expect.poll(() => page.locator('#users tbody tr').count()).toBeGreaterThan(0);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('main');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => !!document.activeElement?.closest('#main'))).toBe(true);
    // a link inside a page too (a row's id)
    await page.goto(`${t.url}/k/${t.credentials.apiKey}/organizations`);
    await expect.poll(() => rows(page)).toHaveLength(50);
    await page.click('#organizations tr[data-organization="org-003"] a');
    await expect.poll(() => page.textContent('#page-title')).toBe('org-003');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    expect(errors).toEqual([]);
  });

  it('keeps the page of a list in the URL: through a reload, back and forward, and from a shared link', async () => {
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(`${t.url}/k/${t.credentials.apiKey}/organizations`);
    await expect.poll(() => rows(page)).toEqual(ids.slice(0, 50));
    await page.click('#organizations button[data-next]');
    await expect.poll(() => rows(page)).toEqual(ids.slice(50, 100));
    expect(query(page, 'organizations-page')).toBe('2');
    expect(await pageLabel(page)).toContain('Page 2');
    await page.reload();
    await expect.poll(() => rows(page)).toEqual(ids.slice(50, 100));
    expect(await pageLabel(page)).toContain('Page 2');
    await page.click('#organizations button[data-next]');
    await expect.poll(() => rows(page)).toEqual(ids.slice(100));
    expect(query(page, 'organizations-page')).toBe('3');
    // Back is the page before; Forward the page after
    await page.goBack();
    await expect.poll(() => rows(page)).toEqual(ids.slice(50, 100));
    await page.goForward();
    await expect.poll(() => rows(page)).toEqual(ids.slice(100));
    // "Previous" steps back through the pages this tab saw
    await page.click('#organizations button[data-previous]');
    await expect.poll(() => rows(page)).toEqual(ids.slice(50, 100));
    // a shared link to page 3 opens page 3; without the earlier cursors, the way back is to the first page
    await page.click('#organizations button[data-next]');
    await expect.poll(() => query(page, 'organizations-page')).toBe('3');
    const shared = page.url();
    const other = await page.context().newPage();
    await other.goto(shared);
    await expect.poll(() => rows(other)).toEqual(ids.slice(100));
    expect(await other.textContent('#organizations button[data-previous]')).toBe('First page');
    await other.click('#organizations button[data-previous]');
    await expect.poll(() => rows(other)).toEqual(ids.slice(0, 50));
    expect(query(other, 'organizations-page')).toBeNull();
    // a search starts again at the first page
    await page.fill('#organizations input[data-filter="q"]', 'org-0');
    await expect.poll(() => rows(page)).toEqual(ids.slice(0, 50));
    await expect.poll(() => query(page, 'organizations-q')).toBe('org-0');
    expect(query(page, 'organizations-page')).toBeNull();
    expect(await pageLabel(page)).toContain('Page 1');
    expect(errors).toEqual([]);
  });

  it('finds a call of the request monitor by the first characters of its request id in the palette', async () => {
    const answer = await fetch(`${t.url}/v2/organizations/get`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-api-key': t.credentials.apiKey, 'x-svc-auth-token': t.credentials.authToken },
      body: JSON.stringify({ data: { organizationIds: ['org-007'] } }),
    });
    const requestId = answer.headers.get('x-request-id') as string;
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const { page, errors } = await signedInPage(browser, t);
    await page.keyboard.press('Control+k');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('palette-input');
    await page.keyboard.type(requestId.slice(0, 8));
    await expect.poll(() => page.textContent('#palette-0')).toContain('POST /v2/organizations/get → 200');
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/requests\/\d+$/);
    await expect.poll(() => page.textContent('#main')).toContain(requestId);
    expect(errors).toEqual([]);
  });
});
