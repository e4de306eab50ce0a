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
  // the first delivery fails on every attempt of the (fast) schedule; the replay then succeeds
  receiver = await startReceiver({ script: [{ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }] });
  browser = await launchBrowser();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  ({ id: endpointId } = await enableWithEndpoint(t, receiver.url));
  await addAnnotation(t, { commentData: [{ commentText: 'hello', from: { userId: 'ann' } }] });
  // four failed attempts of the comment's message, then the message.attempt.exhausted notice (answered 200)
  await eventually(() => expect(receiver.events('message.attempt.exhausted')).toHaveLength(1));
});
const failedId = () => String(receiver.received[0]!.headers['webhook-id']);
const deliveriesOf = (id: string) => receiver.received.filter((r) => r.headers['webhook-id'] === id);
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await receiver?.close();
});

describe('admin UI: webhooks', () => {
  it('shows the configuration and endpoints, reveals a secret on click, lists attempts and replays a failed delivery', async () => {
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
    const failed = page.locator(`#attempt-list tbody tr[data-message="${failedId()}"]`);
    await expect.poll(() => failed.count()).toBe(4);
    expect(await failed.first().textContent()).toContain('failed');
    expect(await failed.first().textContent()).toContain('500');
    await failed.first().locator('button', { hasText: 'Replay' }).click();
    await expect.poll(() => page.textContent('#webhooks-status')).toBe(`Replay of ${failedId()} started.`);
    await eventually(() => expect(deliveriesOf(failedId())).toHaveLength(5));
    await row.locator('button', { hasText: 'Attempts' }).click();
    await expect.poll(() => failed.first().textContent()).toContain('succeeded');
    expect(await failed.first().textContent()).toContain('replay');
    await failed.first().locator('td').first().click();
    await expect.poll(() => page.textContent('#attempt-response')).toBe('ok');
    await expect.poll(() => page.textContent('#attempt-request')).toContain(`POST ${receiver.url}`);
    expect(await page.textContent('#attempt-request')).toContain('"event": "comment_annotation.add"');
    await screenshot(page, 'webhooks');
    expect(errors).toEqual([]);
  });
});
