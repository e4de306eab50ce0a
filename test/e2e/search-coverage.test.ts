// Search coverage (issue 44, point 7), in real Chromium against a real server: the Users list finds a user by a
// part of the e-mail address; the command palette finds user groups (by id or name), notifications and comment
// threads (by id prefix) and webhook message ids, each opening the page that shows it (a message: the delivery
// log filtered to it).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, signedInPage } from '../helpers/browser.ts';
import { addAnnotation } from '../helpers/comments.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { enableWithEndpoint, FAST_WEBHOOKS } from '../helpers/webhooks.ts';

let t: TestServer;
let browser: Browser;
let receiver: Receiver;
let annotationId: string;
let notificationId: string;
let messageId: string;
beforeAll(async () => {
  t = await startTestServer({ webhooks: FAST_WEBHOOKS });
  receiver = await startReceiver({ fallback: { status: 200 } });
  browser = await launchBrowser();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  await t.callK('/v2/users/add', {
    organizationId: 'acme',
    users: [
      { userId: 'u-1', name: 'Ann', email: 'ann@findme.example' },
      { userId: 'u-2', name: 'Bob', email: 'bob@elsewhere.example' },
    ],
  });
  await t.callK('/v2/organizations/usergroups/add', { organizationId: 'acme', organizationUserGroups: [{ groupId: 'legal-team', groupName: 'Counsel' }] });
  await enableWithEndpoint(t, receiver.url);
  await t.callK('/v2/notifications/add', {
    organizationId: 'acme',
    documentId: 'doc',
    actionUser: { userId: 'u-1', name: 'Ann' },
    displayHeadlineMessageTemplate: '{actionUser} pinged you',
    displayBodyMessage: 'about the doc',
    notifyUsers: [{ userId: 'u-2' }],
  });
  ({ annotationId } = await addAnnotation(t, { commentData: [{ commentText: 'hello', from: { userId: 'u-1' } }] }));
  notificationId = (await t.query<{ id: string }>('SELECT id FROM notifications'))[0]!.id;
  await eventually(() => expect(receiver.received.length).toBeGreaterThan(0));
  messageId = String(receiver.received[0]!.headers['webhook-id']);
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await receiver?.close();
});
const key = () => t.credentials.apiKey;

/** Types into the palette and answers its first choice's text once it names `expected`. */
async function palette(page: Page, text: string, expected: string) {
  // Each search starts from a loaded page: in the whole e2e run (not alone) the shortcut pressed right after the
  // palette's own navigation was lost. The likely cause, a late close event of the palette's dialog closing it again
  // once the shortcut had opened it, is fixed and proven by test/e2e/palette-reopen.test.ts; this file proves the
  // search coverage from a fresh load, apart from it
  await page.reload();
  await page.locator('#main').waitFor();
  await page.keyboard.press('Control+k');
  // under load (CI, two cores busy) the document page's render held the shortcut's handling past poll's default 1 s
  await expect.poll(() => page.evaluate(() => document.activeElement?.id), { timeout: 10_000 }).toBe('palette-input');
  await page.fill('#palette-input', text);
  await expect.poll(() => page.locator('#palette-results [role=option]').allTextContents()).toContainEqual(expect.stringContaining(expected));
  const option = page.locator('#palette-results [role=option]', { hasText: expected }).first();
  await option.click();
}

describe('admin UI: search coverage', () => {
  it('finds users by e-mail, and groups, notifications, comment threads and message ids in the palette', async () => {
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(`${t.url}/k/${key()}/users`);
    const rows = page.locator('#users tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    await page.fill('#users input[data-filter=q], input[data-filter=q]', 'findme');
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining('u-1')]);

    await palette(page, 'Couns', 'Counsel (legal-team)');
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/k/${key()}/organizations/acme`);
    expect(new URL(page.url()).searchParams.get('tab')).toBe('members');

    await palette(page, notificationId.slice(0, 8), notificationId);
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/k/${key()}/organizations/acme/documents/doc`);
    expect(new URL(page.url()).searchParams.get('tab')).toBe('notifications');

    await palette(page, annotationId.slice(0, 8), annotationId);
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/k/${key()}/organizations/acme/documents/doc`);
    expect(new URL(page.url()).searchParams.get('tab')).toBe('comments');

    await palette(page, messageId.slice(0, 10), messageId);
    await expect.poll(() => new URL(page.url()).pathname).toBe('/deliveries');
    await expect.poll(() => page.locator('#delivery-list tbody tr').allTextContents()).toEqual([expect.stringContaining(messageId)]);
    expect(await page.inputValue('#delivery-message')).toBe(messageId);
    expect(errors).toEqual([]);
  });
});
