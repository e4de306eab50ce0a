import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, watchErrors } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';
import { b64, WEBM } from '../helpers/media.ts';

let t: TestServer;
let browser: Browser;
beforeAll(async () => {
  t = await startTestServer();
  // hearth.test resolves to the test server: the browser then addresses it by a name that is not loopback
  browser = await launchBrowser(['--host-resolver-rules=MAP hearth.test 127.0.0.1']);
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('admin UI: overview and the live request monitor', () => {
  it('signs in by itself on loopback and shows the credentials with copy buttons and the counts', async () => {
    await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'acme', organizationName: 'Acme' }] });
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(t.url + '/');
    await expect.poll(() => page.textContent('#data-dir')).toBe(t.dataDir);
    expect(await page.textContent('#credentials')).toContain(t.credentials.apiKey);
    expect(await page.locator('#credentials button[data-copy]').count()).toBe(4);
    expect(await page.textContent('#count-organizations')).toBe('1');
    await screenshot(page, 'overview-credentials');
    expect(errors).toEqual([]);
  });

  it('shows API calls live, filters them, and opens one with its bodies (secrets redacted)', async () => {
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(t.url + '/#requests');
    await expect.poll(() => page.textContent('#live')).toBe('live');
    await t.callK('/v2/workspace/apikeyconfig/update', { aiModelApiKey: [{ provider: 'anthropic', customerApiKey: 'sk-ant-very-secret' }] });
    await t.callK('/v2/agents/get', { agentId: 'missing' });
    const rows = page.locator('#request-list tbody tr');
    await expect.poll(() => rows.first().textContent()).toContain('/v2/agents/get');
    expect(await rows.first().textContent()).toContain('404');
    // filter: only 4xx, then only a path
    await page.selectOption('#filter-status', '4');
    await expect.poll(() => page.locator('#request-list tbody tr').allTextContents()).toEqual([expect.stringContaining('/v2/agents/get')]);
    await page.selectOption('#filter-status', '');
    await page.fill('#filter-path', 'apikeyconfig');
    await expect.poll(() => page.locator('#request-list tbody tr').count()).toBe(1);
    await page.click('#request-list tbody tr');
    await expect.poll(() => page.textContent('#request-body')).toContain('[redacted]');
    expect(await page.textContent('#request-body')).not.toContain('sk-ant-very-secret');
    expect(await page.textContent('#response-body')).toContain('success');
    await screenshot(page, 'requests');
    expect(errors).toEqual([]);
  });

  it('asks for the workspace credentials when addressed by a name other than loopback', async () => {
    const page = await browser.newPage();
    const errors = watchErrors(page);
    const url = t.url.replace('127.0.0.1', 'hearth.test');
    await page.goto(url + '/');
    await page.waitForSelector('#sign-in:not([hidden])');
    expect(await page.isHidden('#page-overview')).toBe(true);
    await page.fill('input[name=workspaceId]', t.credentials.workspaceId);
    await page.fill('input[name=workspaceAuthToken]', 'wrong');
    await page.click('#sign-in-form button[type=submit]');
    await expect.poll(() => page.textContent('#sign-in-error')).toBe('Invalid workspace credentials.');
    await page.fill('input[name=workspaceAuthToken]', t.credentials.workspaceAuthToken);
    await page.click('#sign-in-form button[type=submit]');
    await expect.poll(() => page.textContent('#data-dir')).toBe(t.dataDir);
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'hearth_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin' });
    // the 401 and 403 of the sign-in are the only console errors (failed resource loads)
    expect(errors.filter((e) => !/status of 40[13]/.test(e))).toEqual([]);
  });
});

describe('admin UI: API explorer', () => {
  it('sends an operation with the chosen API key and shows the envelope', async () => {
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(t.url + '/#explorer?op=/v2/organizations/add');
    await expect.poll(() => page.textContent('#explorer-summary')).toContain('API key');
    expect(await page.textContent('#explorer-schema')).toContain('organizations');
    await page.fill('#explorer-data', JSON.stringify({ organizations: [{ organizationId: 'from-ui', organizationName: 'From the UI' }] }));
    await page.click('#explorer-send');
    await expect.poll(() => page.textContent('#explorer-status')).toBe('HTTP 200');
    expect(await page.textContent('#explorer-result')).toContain('"status": "success"');
    expect((await t.callK('/v2/organizations/get', { organizationIds: ['from-ui'] })).body.result.data[0].organizationName).toBe('From the UI');
    await page.fill('#explorer-data', '{ not json');
    await page.click('#explorer-send');
    await expect.poll(() => page.textContent('#explorer-status')).toMatch(/^data is not JSON/);
    await screenshot(page, 'explorer');
    expect(errors).toEqual([]);
  });
});

describe('admin UI: CRDT inspector', () => {
  it('lists editor documents and shows one live, read-only, as REST changes it', async () => {
    const room = { organizationId: 'acme', documentId: 'launch', editorId: 'body' };
    await t.callK('/v2/crdt/add', { ...room, type: 'text', data: 'first draft' });
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(t.url + '/#documents');
    const row = page.locator('#crdt-list tr[data-doc="acme/launch/body"]');
    await expect.poll(() => row.textContent()).toContain('text');
    await row.click();
    await expect.poll(() => page.textContent('#crdt-content')).toBe('first draft');
    await expect.poll(() => page.textContent('#crdt-state')).toBe('live (read-only)');
    await t.callK('/v2/crdt/update', { ...room, type: 'text', data: 'second draft, edited over REST' });
    await expect.poll(() => page.textContent('#crdt-content')).toBe('second draft, edited over REST');
    // an editor typing in a Yjs client
    const writer = connectYjs(t.url, room, { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken });
    await writer.synced;
    writer.doc.getText('content').insert(0, 'Typed: ');
    await expect.poll(() => page.textContent('#crdt-content')).toBe('Typed: second draft, edited over REST');
    await page.click('#crdt-refresh');
    // the inspector's own read-only connection and the writer
    await expect.poll(() => row.locator('td').nth(7).textContent()).toBe('2');
    writer.close();
    await screenshot(page, 'documents');
    expect(errors).toEqual([]);
  });
});

describe('admin UI: mailbox', () => {
  it('shows the workspace\'s mail and opens one, its HTML in a sandboxed frame', async () => {
    const owner = (await t.callW('/v2/workspace/get', {})).body.result.data.owner.email;
    expect((await t.callPublic('/v2/workspace/email/send-login-link', { email: owner, continueUrl: `${t.url}/` })).status).toBe(200);
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(t.url + '/#mailbox');
    const row = page.locator('#mail-list tbody tr').first();
    await expect.poll(() => row.textContent()).toContain('Your Hearth sign-in link');
    await row.click();
    await expect.poll(() => page.textContent('#mail-text')).toContain('/auth/email-link?token=');
    expect(await page.getAttribute('#mail-html', 'sandbox')).toBe('');
    expect(await page.frameLocator('#mail-html').locator('a').textContent()).toBe('Sign in to Hearth');
    await screenshot(page, 'mailbox');
    // open the login link from the mail: it verifies the owner's address and continues to the given page
    const link = (await page.textContent('#mail-text'))!.match(/http:\/\/\S+\/auth\/email-link\?token=[\w-]+/)![0];
    expect((await t.callPublic('/v2/workspace/email/status', { ownerEmail: owner })).body.result.message).toBe('Email not yet verified');
    // the link shows a button first (a GET uses nothing up); the button signs in and continues
    await page.goto(link);
    expect(await page.textContent('h1')).toBe('Sign in to Hearth');
    expect(await page.textContent('p strong')).toBe(owner);
    expect((await t.callPublic('/v2/workspace/email/status', { ownerEmail: owner })).body.result.message).toBe('Email not yet verified');
    await Promise.all([page.waitForURL(`${t.url}/`), page.click('button[type=submit]')]);
    expect((await t.callPublic('/v2/workspace/email/status', { ownerEmail: owner })).body.result.message).not.toBe('Email not yet verified');
    expect(errors).toEqual([]);
  });
});

describe('admin UI: workspace', () => {
  it('lists API keys, shows tokens on click, creates and renames a key, and saves an AI key write-only', async () => {
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(t.url + '/#workspace');
    const mine = page.locator(`#key-list tr[data-key="${t.credentials.apiKey}"]`);
    await expect.poll(() => mine.textContent()).toContain('testing');
    expect(await mine.textContent()).not.toContain(t.credentials.authToken);
    await mine.locator('button', { hasText: 'Show' }).click();
    await expect.poll(() => mine.locator('code').first().textContent()).toBe(t.credentials.authToken);

    await page.fill('#key-create input[name=apiKeyName]', 'From the UI');
    await page.click('#key-create button[type=submit]');
    await expect.poll(() => page.textContent('#workspace-status')).toMatch(/^API key \w+ created\.$/);
    await expect.poll(() => page.locator('#key-list tbody tr').count()).toBe(2);
    const created = page.locator('#key-list tbody tr', { hasText: 'From the UI' });
    page.once('dialog', (dialog) => void dialog.accept('Renamed in the UI'));
    await created.locator('button', { hasText: 'Rename' }).click();
    await expect.poll(() => page.locator('#key-list tbody tr', { hasText: 'Renamed in the UI' }).count()).toBe(1);

    await page.selectOption('#config-key', t.credentials.apiKey);
    // the key's allowed domains are among its configuration (shown again after the save below)
    await t.callK('/v2/workspace/domains/add', { domains: ['app.example.test'] });
    await page.selectOption('#ai-key select[name=provider]', 'anthropic');
    await page.fill('#ai-key input[name=customerApiKey]', 'sk-ant-typed-in-the-ui');
    await page.fill('#ai-key input[name=baseUrl]', 'http://127.0.0.1:9/anthropic');
    await page.click('#ai-key button[type=submit]');
    await expect.poll(() => page.textContent('#workspace-status')).toBe('anthropic key saved.');
    await expect.poll(() => page.textContent('#config-aiModelApiKey')).toContain('"configured":true');
    expect(await page.textContent('#config-allowedDomains')).toBe('["app.example.test"]');
    await t.callK('/v2/workspace/domains/delete', { domains: ['app.example.test'] });
    expect(await page.inputValue('#ai-key input[name=customerApiKey]')).toBe('');
    expect(await page.content()).not.toContain('sk-ant-typed-in-the-ui');
    // the operator's plan table: the default workspace's session may change limits
    const plan = page.locator(`#plan-list tr[data-workspace="${t.credentials.workspaceId}"]`);
    await expect.poll(() => plan.textContent()).toContain('(default)');
    await plan.locator('input[name=maxProductionKeys]').fill('7');
    await plan.locator('button', { hasText: 'Save' }).click();
    await expect.poll(() => page.textContent('#workspace-status')).toMatch(/^Settings of .+ saved\.$/);
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const listed = await (await fetch(t.url + '/admin/api/workspaces', { headers: { cookie } })).json();
    expect(listed.items.find((w: any) => w.isDefault).maxProductionKeys).toBe(7);
    await screenshot(page, 'workspace');
    expect(errors).toEqual([]);
  });
});

describe('admin UI: data browser', () => {
  it('walks organization → folder tree → document, and explains each user\'s access', async () => {
    await t.callK('/v2/organizations/folders/add', { organizationId: 'globex', createOrganization: true, folders: [{ folderId: 'legal', folderName: 'Legal', accessType: 'restricted' }] });
    await t.callK('/v2/organizations/documents/add', { organizationId: 'globex', folderId: 'legal', documents: [{ documentId: 'contract', documentName: 'Contract' }] });
    await t.callK('/v2/auth/permissions/add', { user: { userId: 'vic' }, permissions: { resources: [{ type: 'folder', id: 'legal', organizationId: 'globex', accessRole: 'viewer' }] } });
    await t.callK('/v2/organizations/usergroups/add', { organizationId: 'globex', organizationUserGroups: [{ groupId: 'lawyers', groupName: 'Lawyers' }] });
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(t.url + '/#data');
    await page.click('#org-list button[data-organization="globex"]');
    await page.click('#doc-tree button[data-document="contract"]');
    const vic = page.locator('#access-list tr[data-user="vic"]');
    await expect.poll(() => vic.textContent()).toContain('viewer');
    expect(await vic.textContent()).toContain('folder "legal"');
    await page.fill('#access-user', 'stranger');
    await page.press('#access-user', 'Enter');
    await expect.poll(() => page.locator('#access-list tr[data-user="stranger"]').textContent()).toContain('no access');
    expect(await page.textContent('#member-list')).toContain('vic');
    expect(await page.textContent('#group-list')).toContain('Lawyers');
    await screenshot(page, 'data-browser');
    expect(errors).toEqual([]);
  });
});

describe('admin UI: feed', () => {
  it('shows notifications, activity, comments and recordings of an organization, and downloads a user\'s data', async () => {
    await t.callK('/v2/notifications/add', { organizationId: 'feedco', createOrganization: true, documentId: 'memo', createDocument: true, actionUser: { userId: 'ann', name: 'Ann' }, displayHeadlineMessageTemplate: '{actionUser} pinged you', displayBodyMessage: 'about the memo', notifyUsers: [{ userId: 'bob' }] });
    await t.callK('/v2/commentannotations/add', { organizationId: 'feedco', documentId: 'memo', commentAnnotations: [{ commentData: [{ commentText: 'Needs a summary', from: { userId: 'ann', name: 'Ann' } }] }] });
    await t.callK('/v2/recordings/add', { organizationId: 'feedco', documentId: 'memo', recording: { recordingId: 'rec1', recordingType: 'video', displayName: 'Walkthrough', from: { userId: 'ann' }, recordedTime: { duration: 65_000 }, attachments: [{ name: 'walk.webm', mimeType: 'video/webm', data: b64(WEBM) }] } });
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(t.url + '/#feed');
    await page.fill('#feed-form input[name=organizationId]', 'feedco');
    await page.fill('#feed-form input[name=documentId]', 'memo');
    await page.click('#feed-form button[type=submit]');
    await expect.poll(() => page.textContent('#notification-list')).toContain('Ann pinged you');
    expect(await page.textContent('#notification-list')).toContain('about the memo');
    expect(await page.textContent('#activity-list')).toContain('comment.add');
    expect(await page.textContent('#activity-list')).toContain('recorder.add');
    // the activity filters of the get operation
    await page.fill('#feed-form input[name=actionType]', 'recorder.add');
    await page.click('#feed-form button[type=submit]');
    await expect.poll(() => page.locator('#activity-list tbody tr').count()).toBe(1);
    expect(await page.textContent('#activity-list tbody')).toContain('recorder.add');
    await page.fill('#feed-form input[name=actionType]', '');
    expect(await page.textContent('#comment-list')).toContain('Ann: Needs a summary');
    const video = page.locator('#recording-list video');
    expect(await page.textContent('#recording-list')).toContain('Walkthrough (00:01:05)');
    const src = await video.getAttribute('src');
    const served = await fetch(src!);
    expect([served.status, served.headers.get('content-type')]).toEqual([200, 'video/webm']);
    // the user-data export downloads JSON
    await page.fill('#feed-form input[name=userId]', 'ann');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-user')]);
    expect(download.suggestedFilename()).toBe('user-data-feedco-ann.json');
    const exported = JSON.parse(await (await import('node:fs/promises')).readFile((await download.path())!, 'utf8'));
    expect(exported.comments[0].commentText ?? JSON.stringify(exported.comments[0])).toContain('Needs a summary');
    await screenshot(page, 'feed');
    expect(errors).toEqual([]);
  });
});
