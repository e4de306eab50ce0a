// Sorting in the admin UI (issue 32): a click on a sortable header chooses the server's keyset order (documents and
// organizations by name or last update, users by name, notifications, activity and mail by time, requests by
// duration), a second click reverses it, the order is in the URL (it survives a reload) and pages follow it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDataDir, type SeedSummary } from '../../server/tooling/seed.ts';
import { launchBrowser, signedInPage } from '../helpers/browser.ts';
import { dataOf, startTestServer, type TestServer } from '../helpers/server.ts';
import type { WorkspaceAnswer } from '../helpers/answers.ts';

let t: TestServer;
let browser: Browser;
let dataDir: string;
let seed: SeedSummary;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'hearth-ui-sorting-'));
  seed = await seedDataDir({ dataDir, size: 'small' });
  t = await startTestServer({ dataDir });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const key = () => t.credentials.apiKey;
const org = () => (seed.organizations[0] as { id: string }).id;
/** The rows' values of a column (by the header's position), as shown. */
const column = (page: Page, table: string, index: number) => page.locator(`#${table} tbody tr td:nth-child(${index})`).allTextContents();
/** The row keys (a data attribute) in the order shown. */
const rowKeys = (page: Page, table: string, attribute: string) =>
  page.locator(`#${table} tbody tr[data-${attribute}]`).evaluateAll((rows, a) => rows.map((r) => r.getAttribute(`data-${a}`) as string), attribute);
const caseless = (values: string[]) => [...values].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0));
const query = (page: Page) => new URL(page.url()).searchParams;

describe('admin UI: sorting', () => {
  it("sorts an organization's documents by name and by last update, both ways, kept in the URL (a reload keeps it)", async () => {
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(`${t.url}/k/${key()}/organizations/${org()}`);
    await expect.poll(() => page.locator('#documents tbody tr[data-document]').count()).toBeGreaterThan(3);
    await page.click('#documents th button[data-sort="name"]');
    await expect.poll(() => query(page).get('documents-sort')).toBe('name');
    expect(await page.getAttribute('#documents th:has(button[data-sort="name"])', 'aria-sort')).toBe('ascending');
    await expect
      .poll(async () => {
        const names = await column(page, 'documents', 2);
        return names.length > 3 && JSON.stringify(names) === JSON.stringify(caseless(names));
      })
      .toBe(true);
    const firstPage = await rowKeys(page, 'documents', 'document');
    // the API's order for the same sort is what is shown
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const api = async (params: Record<string, string>) =>
      (await (
        await fetch(`${t.url}/admin/api/documents?${new URLSearchParams({ apiKey: key(), organizationId: org(), ...params })}`, { headers: { cookie } })
      ).json()) as { items: Array<{ id: string }> };
    expect(firstPage).toEqual((await api({ sort: 'name' })).items.map((d) => d.id));
    // a reload keeps it; the next page continues the order
    await page.reload();
    await expect.poll(() => rowKeys(page, 'documents', 'document')).toEqual(firstPage);
    // reversed
    await page.click('#documents th button[data-sort="name"]');
    await expect.poll(() => query(page).get('documents-dir')).toBe('desc');
    await expect.poll(() => rowKeys(page, 'documents', 'document')).toEqual((await api({ sort: 'name', dir: 'desc' })).items.map((d) => d.id));
    // by last update: newest first from the first click
    await page.click('#documents th button[data-sort="updated"]');
    await expect.poll(() => query(page).get('documents-sort')).toBe('updated');
    expect(query(page).get('documents-dir')).toBeNull();
    await expect.poll(() => rowKeys(page, 'documents', 'document')).toEqual((await api({ sort: 'updated', dir: 'desc' })).items.map((d) => d.id));
    expect(await page.getAttribute('#documents th:has(button[data-sort="updated"])', 'aria-sort')).toBe('descending');
    expect(await page.textContent('#documents .pager')).toContain('by updated');
    // back to the id: the default, out of the URL
    await page.click('#documents th button[data-sort="id"]');
    await expect.poll(() => query(page).get('documents-sort')).toBeNull();
    expect(errors).toEqual([]);
  });

  it('sorts organizations by name and users by name; notifications and mail by time both ways; requests by duration', async () => {
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(`${t.url}/k/${key()}/organizations?organizations-sort=name&organizations-dir=desc`);
    await expect
      .poll(async () => {
        const names = await column(page, 'organizations', 2);
        return names.length === 3 && JSON.stringify(names) === JSON.stringify(caseless(names).reverse());
      })
      .toBe(true);

    await page.goto(`${t.url}/k/${key()}/users`);
    await expect.poll(() => page.locator('#users tbody tr[data-user]').count()).toBeGreaterThan(3);
    await page.click('#users th button[data-sort="name"]');
    await expect
      .poll(async () => {
        const names = await column(page, 'users', 2);
        return JSON.stringify(names) === JSON.stringify(caseless(names));
      })
      .toBe(true);

    // an organization's notifications: newest first, then oldest first
    await page.goto(`${t.url}/k/${key()}/organizations/${org()}?tab=notifications`);
    await expect.poll(() => page.locator('#notifications tbody tr[data-notification]').count()).toBeGreaterThan(1);
    const times = async () => (await page.locator('#notifications tbody tr[data-notification] td:first-child').allTextContents()).map((x) => Date.parse(x));
    const down = await times();
    expect(down.every((v, i) => i === 0 || v <= (down[i - 1] as number))).toBe(true);
    await page.click('#notifications th button[data-sort="time"]');
    await expect
      .poll(async () => {
        const up = await times();
        return up.length > 1 && up.every((v, i) => i === 0 || v >= (up[i - 1] as number));
      })
      .toBe(true);

    // mail: three sign-in links, newest first, then oldest first
    const owner = dataOf<WorkspaceAnswer>(await t.callW('/v2/workspace/get', {})).owner.email;
    for (let i = 0; i < 3; i++) await t.callPublic('/v2/workspace/email/send-login-link', { email: owner, continueUrl: `${t.url}/` });
    await page.goto(`${t.url}/mailbox`);
    await expect.poll(() => page.locator('#mail-list tbody tr[data-mail]').count()).toBeGreaterThanOrEqual(3);
    const newest = await rowKeys(page, 'mail-list', 'mail');
    await page.click('#mail-list th button[data-sort="time"]');
    await expect.poll(() => rowKeys(page, 'mail-list', 'mail')).toEqual([...newest].reverse());

    // requests: the slowest first, then the fastest
    for (let i = 0; i < 5; i++) await t.callK('/v2/organizations/get', {});
    await page.goto(`${t.url}/requests`);
    await expect.poll(() => page.locator('#request-list tbody tr').count()).toBeGreaterThan(4);
    const durations = async () => (await page.locator('#request-list tbody tr td:nth-child(4)').allTextContents()).map(Number);
    await page.click('#request-list th button[data-sort="duration"]');
    await expect.poll(() => query(page).get('sort')).toBe('duration');
    await expect
      .poll(async () => {
        const d = await durations();
        return d.every((v, i) => i === 0 || v <= (d[i - 1] as number));
      })
      .toBe(true);
    await page.click('#request-list th button[data-sort="duration"]');
    await expect
      .poll(async () => {
        const d = await durations();
        return query(page).get('dir') === 'asc' && d.every((v, i) => i === 0 || v >= (d[i - 1] as number));
      })
      .toBe(true);
    expect(errors).toEqual([]);
  });
});
