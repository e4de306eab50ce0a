import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../server/operations/index.ts';
import { launchBrowser, screenshot, watchErrors } from '../helpers/browser.ts';
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
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(t.url + '/');
    await expect.poll(() => page.textContent('#health')).toBe('healthy');
    expect(await page.textContent('#base-url')).toBe(t.url);
    // one row per path: an operation with aliases (the v1/v2 twins) has a row for each
    const paths = operations.reduce((n, op) => n + 1 + (op.aliases?.length ?? 0), 0);
    await expect.poll(() => page.locator('#operation-list tbody tr').count()).toBe(paths);
    expect(await page.textContent('#operation-list')).toContain('/v2/workspace/apikey/create');
    await screenshot(page, 'overview');
    await page.goto(t.url + '/#operations');
    await expect.poll(() => page.isVisible('#operation-list')).toBe(true);
    await screenshot(page, 'operations');
    expect(errors).toEqual([]);
  });
});
