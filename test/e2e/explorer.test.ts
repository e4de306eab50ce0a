// The API explorer (issue 44, point 8), in real Chromium against a real server: a searchable picker grouped by the
// path's first segment, fields required only in some cases marked with their rule, id fields suggesting the
// workspace's ids, the URL following the edited data (a reload keeps it), and the answer scrolled into view; what
// it sends is read back through the API.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, launchBrowser, signedInPage } from '../helpers/browser.ts';
import { dataOf, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let browser: Browser;
beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'plan' }] });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('admin UI: API explorer', () => {
  it('finds an operation, marks conditional fields, suggests ids, keeps the data in the URL and shows the answer in view', async () => {
    const { page, errors } = await signedInPage(browser, t, { width: 1024, height: 640 });
    await page.goto(`${t.url}/explorer`);
    await expect.poll(() => page.locator('#explorer-op optgroup').count()).toBeGreaterThan(5);
    expect(await page.locator('#explorer-op optgroup[label="organizations"] option').allTextContents()).toContain('/v2/organizations/get');
    // search, Enter opens the first match
    await page.fill('#explorer-find', 'attempts/list');
    expect(await page.locator('#explorer-op option').allTextContents()).toEqual(
      expect.arrayContaining(['/v2/workspace/advancedwebhook/attempts/list', '/v2/organizations/get']),
    );
    await page.press('#explorer-find', 'Enter');
    await expect.poll(() => new URL(page.url()).searchParams.get('op')).toBe('/v2/workspace/advancedwebhook/attempts/list');
    // a field required only in some cases says when
    await expect.poll(() => page.textContent('#field-endpointId-when')).toContain('endpointId or messageId is required');

    // an id field suggests the workspace's ids; the data follows into the URL and survives a reload
    await page.fill('#explorer-find', 'organizations/documents/add');
    await page.press('#explorer-find', 'Enter');
    await expect.poll(() => page.locator('#field-organizationId').count()).toBe(1);
    await page.fill('#field-organizationId', 'ac');
    await expect
      .poll(() => page.locator('#field-organizationId-options option').evaluateAll((o) => o.map((e) => (e as HTMLOptionElement).value)))
      .toContain('acme');
    await page.fill('#field-organizationId', 'acme');
    await page.fill('#explorer-data', JSON.stringify({ organizationId: 'acme', documents: [{ documentId: 'from-explorer', documentName: 'Made here' }] }));
    await expect
      .poll(() => JSON.parse(new URL(page.url()).searchParams.get('data') ?? '{}'))
      .toEqual({
        organizationId: 'acme',
        documents: [{ documentId: 'from-explorer', documentName: 'Made here' }],
      });
    await page.reload();
    await expect.poll(() => page.inputValue('#explorer-data')).toContain('from-explorer');
    expect(await page.inputValue('#field-organizationId')).toBe('acme');
    // sent from the bottom of the form: the answer is on screen
    await page.locator('#explorer-send').scrollIntoViewIfNeeded();
    await page.click('#explorer-send');
    await expect.poll(() => page.textContent('#explorer-status')).toBe('HTTP 200');
    await expect
      .poll(async () => {
        const box = await page.locator('#explorer-status').boundingBox();
        return box !== null && box.y >= 0 && box.y + box.height <= 640;
      })
      .toBe(true);
    const docs = dataOf<Array<{ id?: string; documentId?: string; documentName?: string; name?: string }>>(
      await t.callK('/v2/organizations/documents/get', { organizationId: 'acme' }),
    );
    expect(docs.map((d) => d.documentId ?? d.id)).toContain('from-explorer');
    expect(await axeViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
