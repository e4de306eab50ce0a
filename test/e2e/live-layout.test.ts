// Live documents at 1024 px (issue 44, points 6 and 7), in real Chromium against a real server: with a long list,
// the opened document is on screen without scrolling past the list; its text wraps (no sideways scroll inside it);
// what a connected editor just typed is highlighted; and the list is searched by `org/doc`, an id or a document's
// name.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, docScreenshot, launchBrowser, signedInPage } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';

let t: TestServer;
let browser: Browser;
beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
  const ids = Array.from({ length: 30 }, (_, i) => `doc-${String(i).padStart(2, '0')}`);
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: ids.map((documentId) => ({ documentId, documentName: documentId === 'doc-07' ? 'Quarterly plan' : `Note ${documentId}` })),
  });
  for (const documentId of ids)
    await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId, editorId: 'main', type: 'text', data: `Text of ${documentId}` });
  await t.callK('/v2/crdt/add', { organizationId: 'beta', documentId: 'doc-10', editorId: 'main', type: 'text', data: 'other organization' });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});
const key = () => t.credentials.apiKey;

describe('admin UI: live documents at 1024 px', () => {
  it('shows the opened document first, wraps its text, highlights recent changes, and searches the list by org/doc, id or name', async () => {
    const { page, errors } = await signedInPage(browser, t, { width: 1024, height: 768 });
    const room = { organizationId: 'acme', documentId: 'doc-05', editorId: 'main' };
    await page.goto(`${t.url}/k/${key()}/live/acme/doc-05/main`);
    await expect.poll(() => page.textContent('#crdt-content')).toBe('Text of doc-05');
    await expect.poll(() => page.locator('#crdt-list tbody tr').count()).toBe(25);
    // on screen without scrolling, and above the list
    const view = (await page.locator('#crdt-view').boundingBox())!;
    const list = (await page.locator('#crdt-list').boundingBox())!;
    expect(view.y).toBeLessThan(768 / 2);
    expect(view.y).toBeLessThan(list.y);
    // an editor types: a long unbroken line wraps inside the page, and what it typed is marked
    const editor = connectYjs(t.url, room, { apiKey: key(), authToken: t.credentials.authToken });
    await editor.synced;
    expect(await page.locator('#crdt-content mark.recent').count()).toBe(0);
    const long = 'x'.repeat(400);
    editor.doc.getText('content').insert(0, `NEW ${long} `);
    await expect.poll(() => page.locator('#crdt-content mark.recent').allTextContents()).toEqual([`NEW ${long} `]);
    expect(await page.textContent('#crdt-content')).toBe(`NEW ${long} Text of doc-05`);
    const overflow = await page.$eval('#crdt-content', (el) => el.scrollWidth - el.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await docScreenshot(page, 'live-1024');
    expect(await axeViolations(page)).toEqual([]);
    editor.close();

    // the list's search: org/doc, a document's name, an editor id
    const search = page.locator('#crdt-list input[data-filter=q], input[data-filter=q]').first();
    const rows = page.locator('#crdt-list tbody tr');
    await search.fill('acme/doc-1');
    await expect.poll(() => rows.count()).toBe(10);
    expect((await rows.allTextContents()).every((r) => r.includes('acme / doc-1'))).toBe(true);
    await search.fill('beta/doc-10');
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining('beta / doc-10 / main')]);
    await search.fill('quarterly');
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining('acme / doc-07 / main')]);
    await search.fill('doc-10');
    await expect.poll(() => rows.count()).toBe(2);
    expect(errors).toEqual([]);
  });
});
