// Webhooks live (issue 44, point 5), in real Chromium against a real server and two real receivers: the endpoint
// page shows a new attempt without a refresh, with the event type and the delivery's next retry time; the
// workspace-wide delivery log lists every key's deliveries with their state (filter in the URL); the dashboard's
// failed and retrying counts are the log's.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, docScreenshot, launchBrowser, signedInPage } from '../helpers/browser.ts';
import { addAnnotation } from '../helpers/comments.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { enableWithEndpoint } from '../helpers/webhooks.ts';

let t: TestServer;
let browser: Browser;
let retrying: Receiver;
let gone: Receiver;
let retryingId: string;
let goneId: string;
beforeAll(async () => {
  // the first attempt at once, the next a minute later: a failed first attempt stays "retrying" through the test
  t = await startTestServer({ webhooks: { retryScheduleMs: [0, 60_000, 120_000], jitter: 0, timeoutMs: 2_000, crdtDebounceMs: 150, crdtMaxWaitMs: 2_000 } });
  retrying = await startReceiver({ script: [{ status: 500 }], fallback: { status: 200 } });
  // 410 Gone: the delivery is given up at once (and the endpoint disabled)
  gone = await startReceiver({ fallback: { status: 410 } });
  browser = await launchBrowser();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  // the comment events only: the other endpoint's 410 would bring it a message.attempt.exhausted too, and the
  // receiver's one 500 must go to the comment's event
  ({ id: retryingId } = await enableWithEndpoint(t, retrying.url, { filterTypes: ['comment_annotation.add'] }));
  ({ id: goneId } = await enableWithEndpoint(t, gone.url));
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await retrying?.close();
  await gone?.close();
});
const key = () => t.credentials.apiKey;

describe('admin UI: webhooks live', () => {
  it('shows new attempts without a refresh with their event type and next retry, a workspace delivery log, and dashboard counts that match it', async () => {
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(`${t.url}/k/${key()}/webhooks/${retryingId}`);
    await expect.poll(() => page.textContent('#attempt-list')).toContain('No attempts yet.');
    // an event from the API while the page is open: its attempt appears, nothing clicked
    await addAnnotation(t, { commentData: [{ commentText: 'hello', from: { userId: 'ann' } }] });
    const comments = () => retrying.received.filter((r) => (JSON.parse(r.body) as { event: string }).event === 'comment_annotation.add');
    await eventually(() => expect(comments()).toHaveLength(1));
    const type = (JSON.parse(comments()[0]!.body) as { event: string }).event;
    const messageId = String(comments()[0]!.headers['webhook-id']);
    const attempt = page.locator(`#attempt-list tbody tr[data-message="${messageId}"]`);
    await expect.poll(() => attempt.count(), { timeout: 10_000 }).toBe(1);
    expect(await attempt.locator('.event-type').textContent()).toBe(type);
    expect(await attempt.textContent()).toContain('500');
    const delivery = page.locator(`#endpoint-deliveries tr[data-message="${messageId}"]`);
    await expect.poll(() => delivery.getAttribute('data-state')).toBe('retrying');
    expect(await delivery.textContent()).toMatch(/retrying at /);
    expect(await delivery.textContent()).toContain(type);
    expect(await axeViolations(page)).toEqual([]);
    await docScreenshot(page, 'webhook-endpoint-live');

    // the workspace's delivery log: both endpoints' deliveries of the message, each in its state
    await eventually(() => expect(gone.received).toHaveLength(1));
    await page.goto(`${t.url}/k/${key()}/webhooks`);
    await page.click('#delivery-log-link');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/deliveries');
    const rows = page.locator('#delivery-list tbody tr');
    await expect.poll(() => page.locator(`#delivery-list tr[data-message="${messageId}"]`).count()).toBe(2);
    await expect.poll(() => page.locator('#delivery-list tr[data-state="failed"]').textContent()).toContain(goneId);
    expect(await page.locator('#delivery-list tr[data-state="retrying"]').textContent()).toContain(retryingId);
    expect(await page.textContent('#delivery-counts')).toBe('1 failed (gave up) · 1 retrying · 0 waiting');
    await page.selectOption('#delivery-state', 'failed');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('410');
    expect(new URL(page.url()).searchParams.get('state')).toBe('failed');
    expect(await axeViolations(page)).toEqual([]);
    await docScreenshot(page, 'webhook-deliveries');

    // the dashboard counts the same, and its tile opens the log filtered
    await page.goto(`${t.url}/`);
    await expect.poll(() => page.textContent('#metric-failures .value')).toBe('1');
    expect(await page.textContent('#metric-retrying .value')).toBe('1');
    await page.click('#metric-retrying a');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().getAttribute('data-state')).toBe('retrying');
    expect(errors).toEqual([]);
  });
});
