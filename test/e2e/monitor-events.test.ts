// One live log (issue 44, point 4), in real Chromium against a real server: the request monitor shows the admin
// UI's own calls (the explorer's, marked as the UI's, with their request headers and the credentials masked),
// calls refused for bad credentials (kept for the workspace whose key they named; a key nobody owns is kept for
// nobody), and websocket events: a connection opened with the access decided, closed with its code, an upgrade
// refused. The kind filter picks each; what the explorer did is read back through the API.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, docScreenshot, launchBrowser, signedInPage } from '../helpers/browser.ts';
import { call, dataOf, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs, upgradeStatus } from '../helpers/yjs.ts';

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

const key = () => t.credentials.apiKey;

describe('request monitor: refused calls, the UI own calls with headers, websocket events', () => {
  it('shows each kind live and filters by it', async () => {
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(`${t.url}/requests`);
    await expect.poll(() => page.textContent('#live')).toBe('live');
    const rows = page.locator('#request-list tbody tr');

    // a wrong auth token for this workspace's key: refused, and shown; an unknown key's call is nobody's
    const refused = await call(t.url, '/v2/organizations/get', { organizationIds: ['x'] }, { 'x-svc-api-key': key(), 'x-svc-auth-token': 'wrong' });
    expect(refused.status).toBe(403);
    await call(t.url, '/v2/organizations/get', { organizationIds: ['nobody-marker'] }, { 'x-svc-api-key': 'no-such-key', 'x-svc-auth-token': 'wrong' });
    const wrongWorkspace = await call(
      t.url,
      '/v2/workspace/apikeys/get',
      {},
      { 'x-svc-workspace-id': t.credentials.workspaceId, 'x-svc-workspace-auth-token': 'wrong' },
    );
    expect(wrongWorkspace.status).toBe(403);
    await page.selectOption('#filter-kind', 'refused');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.allTextContents()).toEqual([expect.stringContaining('/v2/workspace/apikeys/get'), expect.stringContaining('/v2/organizations/get')]);
    expect(await rows.nth(1).textContent()).toContain('API, refused');
    // its headers, the token masked
    await rows.nth(1).locator('a').click();
    await expect.poll(() => page.textContent('#request-headers')).toContain('x-svc-api-key');
    const headers = (await page.textContent('#request-headers')) ?? '';
    expect(headers).toContain(key());
    expect(headers).toContain('x-svc-auth-token[redacted]');
    expect(headers).not.toContain('wrong');
    expect(await page.textContent('#response-body')).toContain('PERMISSION_DENIED');
    // the answer's headers, as the client received them
    const answered = (await page.textContent('#response-headers')) ?? '';
    for (const name of ['content-type', 'x-request-id', 'content-length']) expect(answered).toContain(`${name}${refused.headers.get(name)}`);

    // websocket events: connected with the access decided, closed with its code, refused
    const room = { organizationId: 'mon', documentId: 'doc', editorId: 'e1' };
    const client = connectYjs(t.url, room, { apiKey: key(), authToken: t.credentials.authToken });
    await client.synced;
    expect(await upgradeStatus(t.url, `/yjs/mon/doc/e1?apiKey=${key()}&authToken=wrong`)).toBe(403);
    await page.selectOption('#filter-kind', 'ws');
    await expect
      .poll(() => rows.allTextContents())
      .toEqual([
        expect.stringMatching(/websocket\/yjs\/mon\/doc\/e1refused 403: Invalid auth token for this API key\.403/),
        expect.stringMatching(new RegExp(`connected: API key ${key()} \\(its auth token\\), read-write101`)),
      ]);
    client.provider.ws?.close(4000, 'test done');
    client.close();
    await expect.poll(() => rows.first().textContent()).toContain('closed 4000 test done');
    expect(await rows.first().textContent()).toContain('4000');
    await rows.first().locator('a').click();
    await expect.poll(() => page.textContent('#request-note')).toContain('closed 4000');

    // the explorer's call, made in another tab while this one watches: shown as the UI's, with its headers
    const explorer = await page.context().newPage();
    await explorer.goto(
      `${t.url}/explorer?op=${encodeURIComponent('/v2/organizations/add')}&data=${encodeURIComponent(JSON.stringify({ organizations: [{ organizationId: 'from-explorer', organizationName: 'From the explorer' }] }))}`,
    );
    await expect.poll(() => explorer.inputValue('#explorer-data')).toContain('from-explorer');
    await explorer.click('#explorer-send');
    await expect.poll(() => explorer.textContent('#explorer-status')).toBe('HTTP 200');
    await explorer.close();
    const made = dataOf<Array<{ organizationName: string }>>(await t.callK('/v2/organizations/get', { organizationIds: ['from-explorer'] }));
    expect(made.map((o) => o.organizationName)).toEqual(['From the explorer']);
    await page.selectOption('#filter-kind', 'ui');
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining('admin UI/v2/organizations/add200')]);
    await rows.first().locator('a').click();
    await expect.poll(() => page.textContent('#request-note')).toContain('Called by the admin UI');
    await expect.poll(() => page.textContent('#request-headers')).toContain('x-svc-auth-token[redacted]');
    expect(await page.textContent('#request-body')).toContain('from-explorer');
    expect(await page.textContent('#response-body')).toContain('success');
    // the filter is in the URL; "all" shows every kind, and the unknown key's call is in none
    expect(new URL(page.url()).searchParams.get('kind')).toBe('ui');
    await page.selectOption('#filter-kind', '');
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(7);
    expect((await rows.allTextContents()).join('\n')).not.toContain('no-such-key');
    const monitor = await page.evaluate(() => fetch('/admin/api/requests').then((r) => r.text()));
    expect(monitor).not.toContain('no-such-key');
    expect(await axeViolations(page)).toEqual([]);
    await docScreenshot(page, 'requests-kinds');
    expect(errors).toEqual([]);
  });
});
