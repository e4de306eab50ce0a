import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, watchErrors } from '../helpers/browser.ts';
import { addAnnotation } from '../helpers/comments.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { enableWithEndpoint, FAST_WEBHOOKS } from '../helpers/webhooks.ts';

let t: TestServer;
let browser: Browser;
let receiver: Receiver;
let endpointId: string;
beforeAll(async () => {
  t = await startTestServer({ webhooks: FAST_WEBHOOKS });
  receiver = await startReceiver();
  browser = await launchBrowser();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  ({ id: endpointId } = await enableWithEndpoint(t, receiver.url));
  await addAnnotation(t, { commentData: [{ commentText: 'hello', from: { userId: 'ann' } }] });
  await eventually(() => expect(receiver.received).toHaveLength(1));
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await receiver?.close();
});

describe('admin UI: webhooks', () => {
  it('shows the configuration and endpoints, reveals a secret on click, lists attempts and replays one', async () => {
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(t.url + '/#webhooks');
    const row = page.locator(`#endpoint-list tr[data-endpoint="${endpointId}"]`);
    await expect.poll(() => row.textContent()).toContain(receiver.url);
    expect(await page.textContent('#webhooks-config')).toContain('isEnabled');
    expect(await row.textContent()).not.toContain('whsec_');
    await row.locator('button', { hasText: 'Reveal' }).click();
    await expect.poll(() => row.locator('code').textContent()).toMatch(/^whsec_/);
    await row.locator('button', { hasText: 'Attempts' }).click();
    const attempt = page.locator('#attempt-list tbody tr').first();
    await expect.poll(() => attempt.textContent()).toContain('succeeded');
    await attempt.locator('td').first().click();
    await expect.poll(() => page.textContent('#attempt-response')).toBe('ok');
    await attempt.locator('button', { hasText: 'Replay' }).click();
    await expect.poll(() => page.textContent('#webhooks-status')).toMatch(/^Replay of msg_[\w-]+ started\.$/);
    await eventually(() => expect(receiver.received).toHaveLength(2));
    expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
    await screenshot(page, 'webhooks');
    expect(errors).toEqual([]);
  });
});
