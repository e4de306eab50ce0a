// The live dashboard's figures and charts, and the emulator comforts (export, reset to the seeded state, import)
// while the server runs, in Chromium.
import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docScreenshot, launchBrowser, signedInPage } from '../helpers/browser.ts';
import { dataOf, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';

/** An organization or a document of the key, under either id name. */
interface OrganizationItem {
  organizationId?: string;
  id?: string;
}
interface DocumentItem {
  documentId?: string;
  id?: string;
}

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

describe('admin UI: the live dashboard', () => {
  it('shows requests, latency, errors by status, websocket connections and rooms as they happen, with charts', async () => {
    const { page, errors } = await signedInPage(browser, t);
    await expect.poll(() => page.textContent('#health')).toBe('healthy');
    for (let i = 0; i < 30; i++) await t.callK('/v2/organizations/get', {});
    await t.callK('/v2/agents/get', { agentId: 'missing' });
    await t.callPublic('/v2/ping', {});
    const room = { organizationId: 'dash', documentId: 'doc', editorId: 'e' };
    await t.callK('/v2/crdt/add', { ...room, type: 'text', data: 'x' });
    const client = connectYjs(t.url, room, { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken });
    await client.synced;
    // refreshed every two seconds
    await expect.poll(() => page.textContent('#metric-connections .value'), { timeout: 10_000 }).toBe('1');
    expect(Number(await page.textContent('#metric-rooms .value'))).toBeGreaterThanOrEqual(1);
    expect(Number(await page.textContent('#metric-rps .value'))).toBeGreaterThan(0);
    expect(await page.textContent('#metric-p50 .value')).toMatch(/ms$/);
    expect(await page.textContent('#metric-errors .value')).toBe('1');
    expect(await page.textContent('#by-status tr[data-status="404"]')).toContain('1');
    // unauthenticated calls count too (ping), not only the workspace's
    expect(Number((await page.textContent('#by-status tr[data-status="200"] td.num'))?.replace(/,/g, ''))).toBeGreaterThanOrEqual(32);
    expect(await page.textContent('#metric-dbsize .value')).toMatch(/(KB|MB)$/);
    // three charts drawn by uPlot on canvases
    await expect.poll(() => page.locator('.chart canvas').count()).toBe(3);
    expect(await page.getAttribute('#chart-requests .chart', 'aria-label')).toMatch(/^Requests per second; latest: requests \d+/);
    client.close();
    await expect.poll(() => page.textContent('#metric-connections .value'), { timeout: 10_000 }).toBe('0');
    await docScreenshot(page, 'dashboard-live');
    expect(errors).toEqual([]);
  });
});

describe('admin UI: export, reset and import while the server runs', () => {
  it('resets a key to the seeded state, exports it, and imports the export back after a change', async () => {
    await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'scratch', organizationName: 'Scratch' }] });
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(t.url + '/data');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('#reset');
    await expect.poll(() => page.textContent('#data-status'), { timeout: 20_000 }).toMatch(/^Reset: removed .*organizations.*; seeded .*3 organizations/);
    const orgs = dataOf<OrganizationItem[]>(await t.callK('/v2/organizations/get', {}));
    const ids = orgs.map((o) => o.organizationId ?? o.id);
    expect(ids).not.toContain('scratch');
    expect(ids).toHaveLength(3);
    // the seeded documents' collaborative content loads
    const first = ids[0] as string;
    const docs = dataOf<DocumentItem[]>(await t.callK('/v2/organizations/documents/get', { organizationId: first }));
    const docId = (docs[0]?.documentId ?? docs[0]?.id) as string;
    expect((await t.callK('/v2/crdt/get', { organizationId: first, documentId: docId, editorId: 'main' })).status).toBe(200);

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-data')]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^hearth-${t.credentials.apiKey}-.+\\.json$`));
    const archivePath = (await download.path())!;
    const archive = JSON.parse(await readFile(archivePath, 'utf8'));
    expect(archive.format).toBe('hearth-admin-export');
    expect(archive.tables.organizations).toHaveLength(3);
    // the webhook endpoints the page promises, without their secrets (issue 44, point 10)
    const endpointsNow = async () =>
      dataOf<{ endpoints: Array<{ id: string; url: string }> }>(await t.callK('/v2/workspace/advancedwebhook/endpoints/get', {})).endpoints;
    const seededEndpoints = await endpointsNow();
    expect(seededEndpoints).toHaveLength(2);
    expect(archive.tables.webhook_endpoints.map((e: { id: string; url: string }) => [e.id, e.url]).sort()).toEqual(
      seededEndpoints.map((e) => [e.id, e.url]).sort(),
    );
    const secretOf = async (endpointId: string) =>
      dataOf<{ secret: string }>(await t.callK('/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId })).secret;
    const oldSecret = await secretOf(seededEndpoints[0]!.id);
    const keptSecret = await secretOf(seededEndpoints[1]!.id);
    for (const row of archive.tables.webhook_endpoints) expect(Object.keys(row)).not.toContain('secret_enc');
    expect(await readFile(archivePath, 'utf8')).not.toContain(oldSecret);

    // a change after the export, then the import brings the exported document back
    const idsIn = async () =>
      dataOf<DocumentItem[]>(await t.callK('/v2/organizations/documents/get', { organizationId: first })).map((d) => d.documentId ?? d.id);
    expect((await t.callK('/v2/organizations/documents/delete', { organizationId: first, documentIds: [docId] })).status).toBe(200);
    expect(await idsIn()).not.toContain(docId);
    expect((await t.callK('/v2/workspace/advancedwebhook/endpoints/delete', { endpointId: seededEndpoints[0]!.id })).status).toBe(200);
    await page.setInputFiles('#import-form input[name=archive]', archivePath);
    await page.click('#import-form button[type=submit]');
    await expect.poll(() => page.textContent('#data-status'), { timeout: 20_000 }).toMatch(/^Imported .*3 organizations/);
    expect(await idsIn()).toContain(docId);
    // the deleted endpoint is back, under a new id with a new signing secret (an export carries none); the one the
    // key kept is replaced in place and keeps its secret
    const after = await endpointsNow();
    expect(after.map((e) => e.url).sort()).toEqual(seededEndpoints.map((e) => e.url).sort());
    const kept = seededEndpoints[1]!;
    expect(after.find((e) => e.url === kept.url)?.id).toBe(kept.id);
    expect(await secretOf(kept.id)).toBe(keptSecret);
    const back = after.find((e) => e.url === seededEndpoints[0]!.url)!;
    expect(back.id).not.toBe(seededEndpoints[0]!.id);
    const newSecret = await secretOf(back.id);
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect((await t.callK('/v2/crdt/get', { organizationId: first, documentId: docId, editorId: 'main' })).status).toBe(200);
    await docScreenshot(page, 'data-tools-done');
    expect(errors).toEqual([]);
  });
});
