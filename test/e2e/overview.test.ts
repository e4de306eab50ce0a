import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../server/operations/index.ts';
import { launchBrowser, screenshot, signedInPage } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

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

describe('admin UI overview', () => {
  it('shows the server healthy and lists every operation, without console errors', async () => {
    const { page, errors } = await signedInPage(browser, t);
    await expect.poll(() => page.textContent('#health')).toBe('healthy');
    expect(await page.textContent('#base-url')).toBe(t.url);
    await screenshot(page, 'overview');
    await page.goto(t.url + '/operations');
    // one row per path: an operation with aliases (the v1/v2 twins) has a row for each
    const paths = operations.reduce((n, op) => n + 1 + (op.aliases ?? []).length, 0);
    await expect.poll(() => page.locator('#operation-list tbody tr').count()).toBe(paths);
    expect(await page.textContent('#operation-list')).toContain('/v2/workspace/apikey/create');
    expect(await page.textContent('#operations')).toBe(String(paths));
    await expect.poll(() => page.isVisible('#operation-list')).toBe(true);
    await screenshot(page, 'operations');
    expect(errors).toEqual([]);
  });

  it('serves the UI under the strict CSP: no inline script or style runs, and the app still works', async () => {
    const res = await fetch(t.url + '/');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('content-security-policy')).toContain("style-src 'self'");
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|style="/);
    const { page, errors } = await signedInPage(browser, t);
    await expect.poll(() => page.textContent('#health')).toBe('healthy');
    // a violation would be reported on the console: there is none
    expect(errors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
    expect(errors).toEqual([]);
  });
});
