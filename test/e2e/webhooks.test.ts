import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docScreenshot, launchBrowser, screenshot, signedInPage } from '../helpers/browser.ts';
import { addAnnotation } from '../helpers/comments.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { enableWithEndpoint, FAST_WEBHOOKS } from '../helpers/webhooks.ts';

/** advancedwebhook/endpoints/get's data: the endpoints, compared whole. */
interface EndpointsAnswer {
  endpoints: unknown[];
}

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
const key = () => t.credentials.apiKey;
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await receiver?.close();
});

describe('admin UI: webhooks', () => {
  it('shows the configuration and endpoints, reveals a secret on click, lists attempts with their request and response, and replays a failed delivery', async () => {
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(`${t.url}/k/${key()}/webhooks`);
    const row = page.locator(`#endpoint-list tr[data-endpoint="${endpointId}"]`);
    await expect.poll(() => row.textContent()).toContain(receiver.url);
    await expect.poll(() => page.textContent('#webhooks-config')).toContain('isEnabled');
    expect(await row.textContent()).toContain('enabled');
    await row.locator('a').click();
    await expect.poll(() => page.textContent('#endpoint-facts')).toContain(receiver.url);
    expect(await page.textContent('#endpoint-secret')).not.toContain('whsec_');
    await page.locator('#endpoint-secret button', { hasText: 'Reveal' }).click();
    await expect.poll(() => page.locator('#endpoint-secret code').textContent()).toMatch(/^whsec_/);
    const failed = page.locator(`#attempt-list tbody tr[data-message="${failedId()}"]`);
    await expect.poll(() => failed.count()).toBe(4);
    expect(await failed.first().textContent()).toContain('failed');
    expect(await failed.first().textContent()).toContain('500');
    await failed.first().locator('button', { hasText: 'Replay' }).click();
    await expect.poll(() => page.textContent('#webhooks-status')).toBe(`Replay of ${failedId()} started.`);
    await eventually(() => expect(deliveriesOf(failedId())).toHaveLength(5));
    await page.click('#refresh');
    await expect.poll(() => failed.first().textContent()).toContain('succeeded');
    expect(await failed.first().textContent()).toContain('replay');
    await failed.first().locator('td').first().locator('button').click();
    await expect.poll(() => page.textContent('#attempt-response')).toBe('ok');
    expect(await page.textContent('#attempt-response-status')).toBe('HTTP 200');
    await expect.poll(() => page.textContent('#attempt-request-headers')).toContain(`POST ${receiver.url}`);
    expect(await page.textContent('#attempt-request')).toContain('"event": "comment_annotation.add"');
    // the headers as they went out, values and all: those the receiver got for this (the replayed) attempt
    const request = (await page.textContent('#attempt-request-headers')) as string;
    const replayed = deliveriesOf(failedId()).at(-1)!;
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type', 'user-agent', 'content-length']) {
      expect(request).toContain(`${name}: ${String(replayed.headers[name])}`);
    }
    expect(await page.locator('#attempt-headers-recomputed').count()).toBe(0);
    // beside them, the receiver's answer's headers as received
    expect(await page.textContent('#attempt-response-headers')).toMatch(/^date: .+GMT$/m);
    // a failed attempt shows its own answer: another signature (each attempt is signed anew) and the 500
    await failed.nth(1).locator('td').first().locator('button').click();
    await expect.poll(() => page.textContent('#attempt-response-status')).toBe('HTTP 500');
    await expect.poll(() => page.textContent('#attempt-request-headers')).not.toBe(request);
    await page.locator('#attempt-detail').scrollIntoViewIfNeeded();
    await docScreenshot(page, 'webhook-attempt');
    await screenshot(page, 'webhooks');
    expect(errors).toEqual([]);
  });

  it('creates, edits, disables (with the reason shown), enables and rotates an endpoint, and sends it a test event that arrives signed, to it alone', async () => {
    const other = await startReceiver();
    try {
      const { page, errors } = await signedInPage(browser, t);
      await page.goto(`${t.url}/k/${key()}/webhooks`);
      await page.fill('#endpoint-create-form input[name=url]', `${other.url}/hooks`);
      await page.fill('#endpoint-create-form input[name=description]', 'Made in the UI');
      await page.click('#endpoint-create-form button[type=submit]');
      await expect.poll(() => new URL(page.url()).pathname).toMatch(new RegExp(`^/k/${key()}/webhooks/ep_`));
      const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() as string);
      await expect.poll(() => page.textContent('#endpoint-facts')).toContain(`${other.url}/hooks`);
      // edit: only notification events
      await page.check('#endpoint-form input[value="notification.add"]');
      await page.fill('#endpoint-form input[name=description]', 'Edited in the UI');
      await page.click('#endpoint-form button[type=submit]');
      await expect.poll(() => page.textContent('#webhooks-status')).toBe('Endpoint saved.');
      const stored = dataOf<EndpointsAnswer>(await t.callK('/v2/workspace/advancedwebhook/endpoints/get', { endpointId: id })).endpoints[0];
      expect(stored).toMatchObject({ description: 'Edited in the UI', filterTypes: ['notification.add'], disabled: false });
      // disable and enable by hand; a disabled endpoint says why
      await page.click('#endpoint-enable');
      await expect.poll(() => page.textContent('#endpoint-state')).toBe('disabled by hand');
      await page.click('#send-test');
      await expect.poll(() => page.textContent('#webhooks-status')).toBe('This endpoint is disabled: enable it to send it a test event.');
      await page.click('#endpoint-enable');
      await expect.poll(() => page.textContent('#endpoint-state')).toBe('enabled');
      // rotate the secret, then a test event arrives, signed with the new one
      await page.locator('#endpoint-secret button', { hasText: 'Reveal' }).click();
      await expect.poll(() => page.locator('#endpoint-secret code').textContent()).toMatch(/^whsec_/);
      const before = (await page.locator('#endpoint-secret code').textContent()) as string;
      page.once('dialog', (dialog) => void dialog.accept());
      await page.locator('#endpoint-secret button', { hasText: 'Rotate' }).click();
      await expect.poll(() => page.textContent('#webhooks-status')).toBe('Secret rotated.');
      await expect.poll(() => page.locator('#endpoint-secret code').textContent()).not.toBe(before);
      const secret = (await page.locator('#endpoint-secret code').textContent()) as string;
      await page.click('#send-test');
      await expect.poll(() => page.textContent('#webhooks-status')).toMatch(/^Test event notification\.add queued as msg_/);
      const testId = ((await page.textContent('#webhooks-status')) as string).match(/msg_\w+/)![0];
      await eventually(() => expect(other.received).toHaveLength(1));
      const got = other.received[0]!;
      expect(got.path).toBe('/hooks');
      const payload = new Webhook(secret).verify(got.body, got.headers as Record<string, string>) as {
        event: string;
        data: { test: boolean; endpointId: string };
      };
      expect(payload).toMatchObject({ event: 'notification.add', data: { test: true, endpointId: id } });
      // and it is among the endpoint's attempts; the first endpoint (it takes every type too) was not sent it
      await page.click('#refresh');
      await expect.poll(() => page.locator('#attempt-list tbody tr').first().textContent()).toContain('succeeded');
      expect(deliveriesOf(testId)).toEqual([]);
      await screenshot(page, 'endpoint');
      // the refused test event to the disabled endpoint is the one failed load (its 400 answer)
      expect(errors).toEqual(['Failed to load resource: the server responded with a status of 400 ()']);
    } finally {
      await other.close();
    }
  });
});
