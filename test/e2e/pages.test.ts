// Every page of the admin UI against a seeded server (`hearth seed`'s small set), in real Chromium: it renders its
// data without console errors, axe-core finds no serious or critical violation (light and dark theme), it is
// usable in a 1024-px-wide window, deep links survive a reload, the palette finds things, the keyboard works.
// Each page's screenshot goes to test-results/screenshots/, and to docs/screenshots/ (the README's pictures) with
// UPDATE_SCREENSHOTS=1. The first useful paint is measured and printed (not asserted: timings are the benchmarks'
// business, DESIGN §4).
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDataDir, type SeedSummary } from '../../server/tooling/seed.ts';
import { axeViolations, docScreenshot, launchBrowser, RUN_SCREENSHOTS, SCREENSHOTS, signedInPage, UPDATE_SCREENSHOTS } from '../helpers/browser.ts';
import { dataOf, startTestServer, type TestServer } from '../helpers/server.ts';

/** organizations/documents/get's items, under either id name. */
interface DocumentItem {
  documentId?: string;
  id?: string;
}

let t: TestServer;
let browser: Browser;
let dataDir: string;
let seed: SeedSummary;
let org: string;
let doc: string;
let user: string;
let endpoint: string;
let cookie: string;
let docName: string;
let folder: string;
/** A GET of the admin API with the session, failing fast rather than hanging a test. */
const adminGet = async (path: string) => (await fetch(`${t.url}/admin/api${path}`, { headers: { cookie }, signal: AbortSignal.timeout(10_000) })).json();
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'hearth-ui-pages-'));
  seed = await seedDataDir({ dataDir, size: 'small' });
  t = await startTestServer({ dataDir });
  browser = await launchBrowser();
  const first = seed.organizations[0] as { id: string };
  org = first.id;
  const docs = dataOf<DocumentItem[]>(await t.callK('/v2/organizations/documents/get', { organizationId: org }));
  doc = (docs[0]?.documentId ?? docs[0]?.id) as string;
  cookie = await cookieOf(t);
  const members = await adminGet(`/memberships?apiKey=${t.credentials.apiKey}&organizationId=${org}`);
  user = members.items[0].userId;
  endpoint = seed.webhookEndpoints[0] as string;
  docName = (await adminGet(`/document?apiKey=${t.credentials.apiKey}&organizationId=${org}&documentId=${doc}`)).document.name as string;
  folder = (await adminGet(`/organization?apiKey=${t.credentials.apiKey}&organizationId=${org}`)).folders[0].id as string;
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function cookieOf(server: TestServer) {
  const res = await fetch(server.server.signInLink(), { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  return (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
}

const key = () => t.credentials.apiKey;
/** Each page: its path, what shows that its data arrived, and its screenshot's name. */
const pages = () => [
  { name: 'dashboard', path: '/', ready: async (p: Page) => expect.poll(() => p.textContent('#health')).toBe('healthy') },
  {
    name: 'organizations',
    path: `/k/${key()}/organizations`,
    ready: async (p: Page) => expect.poll(() => p.locator('#organizations tbody tr[data-organization]').count()).toBe(3),
  },
  {
    name: 'organization',
    path: `/k/${key()}/organizations/${org}`,
    ready: async (p: Page) => expect.poll(() => p.locator('#documents tbody tr[data-document]').count()).toBeGreaterThan(3),
  },
  {
    name: 'organization-members',
    path: `/k/${key()}/organizations/${org}?tab=members`,
    ready: async (p: Page) => expect.poll(() => p.locator('#members tbody tr[data-user]').count()).toBeGreaterThan(1),
  },
  {
    name: 'organization-notifications',
    path: `/k/${key()}/organizations/${org}?tab=notifications`,
    ready: async (p: Page) => expect.poll(() => p.locator('#notifications tbody tr[data-notification]').count()).toBeGreaterThan(0),
  },
  {
    name: 'document',
    path: `/k/${key()}/organizations/${org}/documents/${doc}`,
    ready: async (p: Page) => expect.poll(() => p.locator('#editors tr[data-editor]').count()).toBe(1),
  },
  {
    name: 'document-access',
    path: `/k/${key()}/organizations/${org}/documents/${doc}?tab=access`,
    ready: async (p: Page) => expect.poll(() => p.locator('#access-list tbody tr').count()).toBeGreaterThan(0),
  },
  {
    name: 'document-activity',
    path: `/k/${key()}/organizations/${org}/documents/${doc}?tab=activity`,
    ready: async (p: Page) => expect.poll(() => p.locator('#activity tbody tr').count()).toBeGreaterThan(0),
  },
  { name: 'users', path: `/k/${key()}/users`, ready: async (p: Page) => expect.poll(() => p.locator('#users tbody tr[data-user]').count()).toBeGreaterThan(5) },
  {
    name: 'user',
    path: `/k/${key()}/users/${user}`,
    ready: async (p: Page) => expect.poll(() => p.locator('#memberships tbody tr').count()).toBeGreaterThan(0),
  },
  {
    name: 'live-document',
    path: `/k/${key()}/live/${org}/${doc}/main`,
    ready: async (p: Page) => expect.poll(() => p.textContent('#crdt-state')).toBe('live (read-only)'),
  },
  {
    name: 'live-history',
    path: `/k/${key()}/live/${org}/${doc}/main?tab=history`,
    ready: async (p: Page) => expect.poll(() => p.textContent('#history-empty')).toContain('starts with the next change'),
  },
  {
    name: 'webhooks',
    path: `/k/${key()}/webhooks`,
    ready: async (p: Page) => expect.poll(() => p.locator('#endpoint-list tbody tr[data-endpoint]').count()).toBe(2),
  },
  {
    name: 'endpoint',
    path: `/k/${key()}/webhooks/${endpoint}`,
    ready: async (p: Page) => expect.poll(() => p.textContent('#endpoint-state')).toContain('disabled'),
  },
  { name: 'key', path: `/k/${key()}`, ready: async (p: Page) => expect.poll(() => p.locator('#key-config dt').count()).toBeGreaterThan(3) },
  { name: 'requests', path: '/requests', ready: async (p: Page) => expect.poll(() => p.textContent('#live')).toBe('live') },
  {
    name: 'explorer',
    path: '/explorer?op=/v2/organizations/add',
    ready: async (p: Page) => expect.poll(() => p.textContent('#explorer-summary')).toContain('API key'),
  },
  { name: 'mailbox', path: '/mailbox', ready: async (p: Page) => expect.poll(() => p.textContent('#relay')).toContain('SMTP') },
  { name: 'workspace', path: '/workspace', ready: async (p: Page) => expect.poll(() => p.locator('#key-list tbody tr').count()).toBe(1) },
  { name: 'data-tools', path: '/data', ready: async (p: Page) => expect.poll(() => p.locator('#export-data').count()).toBe(1) },
  { name: 'operations', path: '/operations', ready: async (p: Page) => expect.poll(() => p.locator('#operation-list tbody tr').count()).toBeGreaterThan(100) },
];

describe('every page of the admin UI on the seeded data', () => {
  it('renders its data with no console error and no serious or critical axe violation, in the light theme (screenshots)', async () => {
    const { page, errors } = await signedInPage(browser, t);
    const found: string[] = [];
    const started = Date.now();
    const committed = (name: string) => join(SCREENSHOTS, `${name}.png`);
    const before = new Map(pages().map((p) => [p.name, existsSync(committed(p.name)) ? statSync(committed(p.name)).mtimeMs : null]));
    for (const p of pages()) {
      await page.goto(t.url + p.path);
      await p.ready(page);
      found.push(...(await axeViolations(page)).map((v) => `${p.name}: ${v}`));
      await docScreenshot(page, p.name);
    }
    expect(found).toEqual([]);
    expect(errors).toEqual([]);
    // every run writes its pictures to test-results/ (gitignored); the committed ones change only when asked to
    for (const p of pages()) {
      expect(statSync(join(RUN_SCREENSHOTS, `${p.name}.png`)).mtimeMs).toBeGreaterThanOrEqual(started - 1000);
      if (UPDATE_SCREENSHOTS) expect(statSync(committed(p.name)).mtimeMs).toBeGreaterThanOrEqual(started - 1000);
      else expect(existsSync(committed(p.name)) ? statSync(committed(p.name)).mtimeMs : null).toBe(before.get(p.name));
    }
  }, 240_000);

  it('has no serious or critical axe violation in the dark theme either', async () => {
    const { page, errors } = await signedInPage(browser, t, { theme: 'dark' });
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    const found: string[] = [];
    for (const p of pages()) {
      await page.goto(t.url + p.path);
      await p.ready(page);
      found.push(...(await axeViolations(page)).map((v) => `${p.name}: ${v}`));
      if (p.name === 'dashboard' || p.name === 'organization' || p.name === 'live-document') await docScreenshot(page, `${p.name}-dark`);
    }
    expect(found).toEqual([]);
    expect(errors).toEqual([]);
  }, 240_000);

  it('is usable in a 1024-px-wide window: no page scrolls sideways, axe finds nothing serious there either, and the navigation is there', async () => {
    const { page, errors } = await signedInPage(browser, t, { width: 1024, height: 768 });
    const wide: string[] = [];
    const found: string[] = [];
    for (const p of pages()) {
      await page.goto(t.url + p.path);
      await p.ready(page);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      if (width > 1024) wide.push(`${p.name}: ${width}px`);
      // the header folds at this width (the key picker's visible label goes): its controls keep their names
      found.push(...(await axeViolations(page)).map((v) => `${p.name}: ${v}`));
    }
    expect(wide).toEqual([]);
    expect(found).toEqual([]);
    expect(await page.isVisible('nav#nav a[data-nav="requests"]')).toBe(true);
    await docScreenshot(page, 'organization-1024');
    expect(errors).toEqual([]);
  }, 240_000);
});

describe('navigation', () => {
  it('keeps a deep link with its tab, folder and filters through a reload, and back and forward work', async () => {
    const { page, errors } = await signedInPage(browser, t);
    const link = `/k/${key()}/organizations/${org}?folder=${encodeURIComponent(folder)}&documents-dir=desc`;
    await page.goto(t.url + link);
    await expect.poll(() => page.locator('#documents tbody tr[data-document]').count()).toBeGreaterThan(0);
    const before = await page.locator('#documents tbody tr[data-document]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-document')));
    expect([...before].sort().reverse()).toEqual(before);
    await page.reload();
    await expect
      .poll(() => page.locator('#documents tbody tr[data-document]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-document'))))
      .toEqual(before);
    expect(await page.getAttribute(`a[data-folder="${folder}"]`, 'aria-current')).toBe('true');
    // a tab is a URL too
    await page.click('#tab-members');
    await expect.poll(() => new URL(page.url()).searchParams.get('tab')).toBe('members');
    await page.reload();
    await expect.poll(() => page.getAttribute('#tab-members', 'aria-selected')).toBe('true');
    await page.goBack();
    await expect.poll(() => page.getAttribute('#tab-documents', 'aria-selected')).toBe('true');
    await page.goForward();
    await expect.poll(() => page.getAttribute('#tab-members', 'aria-selected')).toBe('true');
    // a section without a key goes to the current key's, its query kept
    await page.goto(`${t.url}/organizations?organizations-q=${org.slice(0, 4)}`);
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/k/${key()}/organizations`);
    await expect.poll(() => page.inputValue('#organizations input[data-filter="q"]')).toBe(org.slice(0, 4));
    // an unknown page says so and offers the way back
    await page.goto(`${t.url}/no/such/page`);
    await expect.poll(() => page.textContent('#main h1')).toBe('Not found');
    expect(errors).toEqual([]);
  });

  it('finds a document by name and a user by id in the command palette, opened and driven by the keyboard', async () => {
    const { page, errors } = await signedInPage(browser, t);
    page.setDefaultTimeout(10_000);
    await page.goto(t.url + '/');
    await expect.poll(() => page.textContent('#health')).toBe('healthy');
    await page.keyboard.press('Control+k');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('palette-input');
    await page.keyboard.type(docName);
    // the document among the results (others of the same name may come first): chosen with the arrow keys
    const options = page.locator('#palette-results [role=option]');
    await expect.poll(() => options.evaluateAll((all) => all.findIndex((o) => o.textContent?.includes('document in')))).toBeGreaterThanOrEqual(0);
    const index = await options.evaluateAll((all) => all.findIndex((o) => o.textContent?.includes('document in')));
    expect(await options.nth(index).textContent()).toContain(docName);
    await docScreenshot(page, 'palette');
    for (let i = 0; i < index; i++) await page.keyboard.press('ArrowDown');
    expect(await page.getAttribute(`#palette-${index}`, 'aria-selected')).toBe('true');
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toMatch(new RegExp(`/k/${key()}/organizations/[^/]+/documents/`));
    await expect.poll(() => page.textContent('#page-title')).toContain(docName);
    await expect.poll(() => page.evaluate(() => (document.querySelector('dialog.palette') as HTMLDialogElement | null)?.open)).toBe(false);
    // by id, with "/" from anywhere but a text field
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('/');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('palette-input');
    await page.keyboard.type(user);
    await expect.poll(() => options.first().textContent()).toContain(user);
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/k/${key()}/users/${encodeURIComponent(user)}`);
    expect(errors).toEqual([]);
  });

  it('works from the keyboard: skip link, section links, tabs moved with the arrow keys', async () => {
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(`${t.url}/k/${key()}/organizations/${org}`);
    await expect.poll(() => page.locator('#documents tbody tr[data-document]').count()).toBeGreaterThan(0);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    await page.focus('#tab-documents');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.getAttribute('#tab-members', 'aria-selected')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-members');
    expect(errors).toEqual([]);
  });

  it('measures the first useful paint of the dashboard and of a 50-row document list (printed)', async () => {
    const { page } = await signedInPage(browser, t);
    const figures: string[] = [];
    for (const [name, path, selector] of [
      ['dashboard', '/', '#metric-rps .value'],
      ['documents list', `/k/${key()}/organizations/${org}`, '#documents tbody tr[data-document]'],
      ['document page', `/k/${key()}/organizations/${org}/documents/${doc}`, '#editors tr[data-editor]'],
    ] as const) {
      // a cold load each time (a new tab), as a user opening a link
      const tab = await page.context().newPage();
      const started = Date.now();
      await tab.goto(t.url + path);
      await tab.waitForSelector(selector);
      const ms = Date.now() - started;
      const fcp = await tab.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null);
      figures.push(`${name}: first useful paint ${ms} ms (first contentful paint ${fcp === null ? '—' : Math.round(fcp)} ms)`);
      await tab.close();
    }
    console.log(`[ui budget] ${figures.join('; ')}`);
    expect(figures).toHaveLength(3);
  });
});
