import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, signedInPage, watchErrors } from '../helpers/browser.ts';
import { dataOf, resultOf, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';
import { b64, WEBM } from '../helpers/media.ts';
import type { AuthTokensAnswer, WorkspaceAnswer } from '../helpers/answers.ts';

/** organizations/get's items, as far as the tests read them. */
interface OrganizationItem {
  organizationName: string;
}
/** workspace/apikeyconfig/get's data, as far as the tests read it. */
interface ApiKeyConfig {
  requireJwtToken: boolean;
}

let t: TestServer;
let browser: Browser;
beforeAll(async () => {
  // hearth.test resolves to the test server: the browser then addresses it by a name that is not loopback
  t = await startTestServer({ allowedHosts: ['hearth.test'] });
  browser = await launchBrowser(['--host-resolver-rules=MAP hearth.test 127.0.0.1']);
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});
const key = () => t.credentials.apiKey;

describe('admin UI: dashboard and the live request monitor', () => {
  it('signs in with the one-time link and shows the data dir and the counts, never the credentials file', async () => {
    await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'acme', organizationName: 'Acme' }] });
    const { page, errors } = await signedInPage(browser, t);
    await expect.poll(() => page.textContent('#data-dir')).toBe(t.dataDir);
    expect(await page.textContent('#count-organizations')).toBe('1');
    // the overview no longer serves credentials.json (issue 28): whoever may read it reads it from the data dir
    const html = await page.content();
    expect(html).not.toContain(t.credentials.workspaceAuthToken);
    expect(html).not.toContain(t.credentials.authToken);
    // a spent link signs nobody in
    const link = t.server.signInLink();
    const other = await browser.newPage();
    await other.goto(link);
    await expect.poll(() => other.url()).toBe(`${t.url}/`);
    const again = await browser.newContext();
    const third = await again.newPage();
    await third.goto(link);
    expect(await third.textContent('h1')).toContain('used already');
    await again.close();
    await screenshot(page, 'overview-dashboard');
    expect(errors).toEqual([]);
  });

  it('shows API calls live, filters them (status, path, key, duration, search), opens one with its bodies (secrets redacted), copies it as curl and opens it in the explorer', async () => {
    const { page, errors } = await signedInPage(browser, t);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.goto(t.url + '/requests');
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
    // the key filter keeps it (the call was made with the key), the duration filter can hide it, the search finds it
    await page.selectOption('#filter-caller', key());
    await expect.poll(() => page.locator('#request-list tbody tr').count()).toBe(1);
    await page.fill('#filter-slower', '100000');
    await expect.poll(() => page.locator('#request-list tbody tr').count()).toBe(0);
    await page.fill('#filter-slower', '');
    await page.fill('#filter-path', '');
    await page.fill('#filter-search', 'apikeyconfig/upd');
    await expect.poll(() => page.locator('#request-list tbody tr').count()).toBe(1);
    await page.click('#request-list tbody tr a');
    await expect.poll(() => page.textContent('#request-body')).toContain('[redacted]');
    expect(await page.textContent('#request-body')).not.toContain('sk-ant-very-secret');
    expect(await page.textContent('#response-body')).toContain('success');
    // a call is a URL: it survives a reload with the filters
    await page.reload();
    await expect.poll(() => page.textContent('#request-body')).toContain('[redacted]');
    expect(await page.inputValue('#filter-search')).toBe('apikeyconfig/upd');
    await screenshot(page, 'requests');
    await page.click('button[data-copy="curl"]');
    const curl = await page.evaluate(() => navigator.clipboard.readText());
    expect(curl).toContain(`curl -s -X POST ${t.url}/v2/workspace/apikeyconfig/update`);
    expect(curl).toContain(`x-svc-api-key: ${key()}`);
    expect(curl).not.toContain('sk-ant-very-secret');
    // the 404 call, opened in the explorer with its data, sent again
    await page.fill('#filter-search', 'agents/get');
    await page.click('#request-list tbody tr a');
    await expect.poll(() => page.textContent('#request-body')).toContain('missing');
    await page.click('#open-in-explorer');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/explorer');
    await expect.poll(() => page.inputValue('#explorer-data')).toContain('"agentId": "missing"');
    await page.click('#explorer-send');
    await expect.poll(() => page.textContent('#explorer-status')).toBe('HTTP 404');
    expect(errors).toEqual([]);
  });

  it('asks for the workspace credentials when opened without a session, naming the sign-in link', async () => {
    const page = await browser.newPage();
    const errors = watchErrors(page);
    const url = t.url.replace('127.0.0.1', 'hearth.test');
    await page.goto(url + '/');
    await page.waitForSelector('#sign-in');
    expect(await page.textContent('#sign-in')).toContain(
      'Open the sign-in link Hearth printed at start (or run npx hearth signin-link), or sign in with the workspace id and auth token from data/credentials.json',
    );
    expect(await page.locator('#main').count()).toBe(0);
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
  it('builds the data from a form generated from the schema, sends it with the chosen API key, and shows the envelope', async () => {
    const { page, errors } = await signedInPage(browser, t);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    // required fields marked, enums as choices, an example to start from (not {})
    await page.goto(t.url + '/explorer?op=/v2/workspace/apikey/create');
    await expect.poll(() => page.textContent('#explorer-summary')).toContain('workspace');
    expect(await page.locator('label[for="field-ownerEmail"] .required').count()).toBe(1);
    expect(await page.locator('#field-type option').allTextContents()).toEqual(['testing', 'production']);
    expect(JSON.parse(await page.inputValue('#explorer-data'))).toEqual({ ownerEmail: 'ann@example.com', type: 'testing' });
    // a field typed in the form is in the JSON
    await page.goto(t.url + '/explorer?op=/v2/agents/get');
    await expect.poll(() => page.locator('#field-agentId').count()).toBe(1);
    expect(await page.getAttribute('#field-agentId', 'required')).not.toBeNull();
    await page.fill('#field-agentId', 'from-the-form');
    await expect.poll(() => page.inputValue('#explorer-data')).toContain('"agentId": "from-the-form"');
    await page.click('button[data-copy="fetch"]');
    const snippet = await page.evaluate(() => navigator.clipboard.readText());
    expect(snippet).toContain(`fetch('${t.url}/v2/agents/get'`);
    expect(snippet).toContain('"agentId": "from-the-form"');

    await page.goto(t.url + '/explorer?op=/v2/organizations/add');
    await expect.poll(() => page.textContent('#explorer-summary')).toContain('API key');
    expect(await page.textContent('#explorer-schema')).toContain('organizations');
    await page.fill('#explorer-data', JSON.stringify({ organizations: [{ organizationId: 'from-ui', organizationName: 'From the UI' }] }));
    await page.click('#explorer-send');
    await expect.poll(() => page.textContent('#explorer-status')).toBe('HTTP 200');
    expect(await page.textContent('#explorer-result-text')).toContain('"status": "success"');
    expect(dataOf<OrganizationItem[]>(await t.callK('/v2/organizations/get', { organizationIds: ['from-ui'] }))[0]!.organizationName).toBe('From the UI');
    await page.fill('#explorer-data', '{ not json');
    await page.click('#explorer-send');
    await expect.poll(() => page.textContent('#explorer-status')).toMatch(/^data is not JSON/);
    await screenshot(page, 'explorer');
    expect(errors).toEqual([]);
  });
});

describe('admin UI: live documents', () => {
  it('lists editor documents and shows one live beside the list, read-only, as REST and a Yjs client change it', async () => {
    const room = { organizationId: 'acme', documentId: 'launch', editorId: 'body' };
    await t.callK('/v2/crdt/add', { ...room, type: 'text', data: 'first draft' });
    const { page, errors } = await signedInPage(browser, t);
    // the inspector's Yjs connections: one for the open document, whatever the list does
    const sockets: string[] = [];
    page.on('websocket', (ws) => {
      if (ws.url().includes('/yjs/')) sockets.push(ws.url());
    });
    await page.goto(`${t.url}/k/${key()}/live`);
    const row = page.locator('#crdt-list tr[data-doc="acme/launch/body"]');
    await expect.poll(() => row.textContent()).toContain('text');
    await row.locator('a').click();
    await expect.poll(() => page.textContent('#crdt-content')).toBe('first draft');
    await expect.poll(() => page.textContent('#crdt-state')).toBe('live (read-only)');
    // beside the list, not below it: both in view at once
    const [list, view] = await Promise.all([page.locator('#crdt-list').boundingBox(), page.locator('#crdt-view').boundingBox()]);
    expect(view!.x).toBeGreaterThan(list!.x + list!.width - 1);
    expect(view!.y).toBeLessThan(400);
    await t.callK('/v2/crdt/update', { ...room, type: 'text', data: 'second draft, edited over REST' });
    await expect.poll(() => page.textContent('#crdt-content')).toBe('second draft, edited over REST');
    // an editor typing in a Yjs client
    const writer = connectYjs(t.url, room, { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken });
    await writer.synced;
    writer.doc.getText('content').insert(0, 'Typed: ');
    await expect.poll(() => page.textContent('#crdt-content')).toBe('Typed: second draft, edited over REST');
    // the inspector's own read-only connection and the writer
    // (the list is a snapshot: it is read again until it has both; one read right after the writer's sync saw 1 in
    // a CI run, never here, so the count is not assumed to be settled at the first click)
    await expect
      .poll(
        async () => {
          await page.click('#crdt-refresh');
          return row.locator('td').nth(3).textContent();
        },
        { timeout: 10_000, interval: 250 },
      )
      .toBe('2');
    expect(await page.textContent('#crdt-state')).toBe('live (read-only)');
    // Refresh reads the list again and leaves the live view's connection alone (it closed and opened it again on
    // each click, and a CI run read the state while the new one was not up yet)
    expect(sockets).toHaveLength(1);
    writer.close();
    await screenshot(page, 'documents');
    expect(errors).toEqual([]);
  });
});

describe('admin UI: mailbox', () => {
  it("shows the workspace's mail and the relay's state, and opens one, its HTML in a sandboxed frame", async () => {
    const owner = dataOf<WorkspaceAnswer>(await t.callW('/v2/workspace/get', {})).owner.email;
    expect((await t.callPublic('/v2/workspace/email/send-login-link', { email: owner, continueUrl: `${t.url}/` })).status).toBe(200);
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(t.url + '/mailbox');
    await expect.poll(() => page.textContent('#relay')).toContain('No SMTP relay');
    const row = page.locator('#mail-list tbody tr').first();
    await expect.poll(() => row.textContent()).toContain('Your Hearth sign-in link');
    await row.locator('a').click();
    await expect.poll(() => page.textContent('#mail-text')).toContain('/auth/email-link?token=');
    expect(await page.getAttribute('#mail-html', 'sandbox')).toBe('');
    expect(await page.frameLocator('#mail-html').locator('a').textContent()).toBe('Sign in to Hearth');
    await screenshot(page, 'mailbox');
    // open the login link from the mail: it verifies the owner's address and continues to the given page
    const link = (await page.textContent('#mail-text'))!.match(/http:\/\/\S+\/auth\/email-link\?token=[\w-]+/)![0];
    expect(resultOf<unknown>(await t.callPublic('/v2/workspace/email/status', { ownerEmail: owner })).message).toBe('Email not yet verified');
    // the link shows a button first (a GET uses nothing up); the button signs in and continues
    await page.goto(link);
    expect(await page.textContent('h1')).toBe('Sign in to Hearth');
    expect(await page.textContent('p strong')).toBe(owner);
    expect(resultOf<unknown>(await t.callPublic('/v2/workspace/email/status', { ownerEmail: owner })).message).toBe('Email not yet verified');
    await Promise.all([page.waitForURL(`${t.url}/`), page.click('button[type=submit]')]);
    expect(resultOf<unknown>(await t.callPublic('/v2/workspace/email/status', { ownerEmail: owner })).message).not.toBe('Email not yet verified');
    expect(errors).toEqual([]);
  });
});

describe('admin UI: workspace', () => {
  it('lists API keys, shows tokens on click, creates and renames a key, rotates a token, edits settings and saves an AI key write-only', async () => {
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(t.url + '/workspace');
    const mine = page.locator(`#key-list tr[data-key="${key()}"]`);
    await expect.poll(() => mine.textContent()).toContain('testing');
    expect(await mine.textContent()).not.toContain(t.credentials.authToken);
    await mine.locator('button', { hasText: 'Show' }).click();
    await expect.poll(() => mine.locator('code').first().textContent()).toBe(t.credentials.authToken);

    await page.fill('#key-create input[name=apiKeyName]', 'From the UI');
    await page.click('#key-create button[type=submit]');
    await expect.poll(() => page.textContent('#workspace-status')).toMatch(/^API key \w+ created\.$/);
    await expect.poll(() => page.locator('#key-list tbody tr').count()).toBe(2);
    const created = page.locator('#key-list tbody tr', { hasText: 'From the UI' });
    const newKey = (await created.getAttribute('data-key')) as string;
    page.once('dialog', (dialog) => void dialog.accept('Renamed in the UI'));
    await created.locator('button', { hasText: 'Rename' }).click();
    await expect.poll(() => page.locator('#key-list tbody tr', { hasText: 'Renamed in the UI' }).count()).toBe(1);
    // the key picker knows the new key at once
    await expect.poll(() => page.locator('#key-picker option', { hasText: 'Renamed in the UI' }).count()).toBe(1);
    // rotating the new key's token: the old one stops working
    const before = dataOf<AuthTokensAnswer>(await t.callW('/v2/workspace/authtokens/get', { apiKey: newKey })).authTokens[0]!.token;
    page.once('dialog', (dialog) => void dialog.accept());
    await page.locator(`#key-list tr[data-key="${newKey}"] button`, { hasText: 'Rotate token' }).click();
    await expect.poll(() => page.textContent('#workspace-status')).toBe('Auth token replaced.');
    expect(dataOf<AuthTokensAnswer>(await t.callW('/v2/workspace/authtokens/get', { apiKey: newKey })).authTokens[0]!.token).not.toBe(before);

    // the operator's plan table: the default workspace's session may change limits
    const plan = page.locator(`#plan-list tr[data-workspace="${t.credentials.workspaceId}"]`);
    await expect.poll(() => plan.textContent()).toContain('(default)');
    await plan.locator('input[name=maxProductionKeys]').fill('7');
    await plan.locator('button', { hasText: 'Save' }).click();
    await expect.poll(() => page.textContent('#workspace-status')).toMatch(/^Settings of .+ saved\.$/);
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const listed = await (await fetch(t.url + '/admin/api/workspaces', { headers: { cookie } })).json();
    expect(listed.items.find((w: { isDefault: boolean; maxProductionKeys: number }) => w.isDefault).maxProductionKeys).toBe(7);
    await screenshot(page, 'workspace');

    // the key's page: every setting in a form, allowed domains, AI keys write-only
    await page.goto(`${t.url}/k/${key()}`);
    await expect.poll(() => page.textContent('#config-requireJwtToken')).toBe('false');
    // its usage: what the key holds
    const orgCount = dataOf<unknown[]>(await t.callK('/v2/organizations/get', {})).length;
    await expect.poll(() => page.textContent('#usage-organizations')).toBe(String(orgCount));
    await page.selectOption('#field-requireJwtToken', 'true');
    await page.click('#save-settings');
    await expect.poll(() => page.textContent('#workspace-status')).toBe('Configuration saved.');
    await expect.poll(() => page.textContent('#config-requireJwtToken')).toBe('true');
    expect(dataOf<ApiKeyConfig>(await t.callK('/v2/workspace/apikeyconfig/get', {})).requireJwtToken).toBe(true);
    // the key's allowed domains are among its configuration (shown again after the save below)
    await t.callK('/v2/workspace/domains/add', { domains: ['app.example.test'] });
    await page.selectOption('#ai-key select[name=provider]', 'anthropic');
    await page.fill('#ai-key input[name=customerApiKey]', 'sk-ant-typed-in-the-ui');
    await page.fill('#ai-key input[name=baseUrl]', 'http://127.0.0.1:9/anthropic');
    await page.click('#ai-key button[type=submit]');
    await expect.poll(() => page.textContent('#workspace-status')).toBe('anthropic key saved.');
    await expect.poll(() => page.textContent('#config-aiModelApiKey')).toContain('"configured":true');
    // shown again by the reload that followed the save (anthropic was configured by an earlier test already)
    await expect.poll(() => page.textContent('#config-allowedDomains')).toBe('["app.example.test"]');
    await t.callK('/v2/workspace/domains/delete', { domains: ['app.example.test'] });
    expect(await page.inputValue('#ai-key input[name=customerApiKey]')).toBe('');
    expect(await page.content()).not.toContain('sk-ant-typed-in-the-ui');
    await t.callK('/v2/workspace/apikeyconfig/update', { requireJwtToken: false });
    expect(errors).toEqual([]);
  });
});

describe('admin UI: data browser', () => {
  it("walks organization → folder tree → document, and explains each user's access", async () => {
    await t.callK('/v2/organizations/folders/add', {
      organizationId: 'globex',
      createOrganization: true,
      folders: [{ folderId: 'legal', folderName: 'Legal', accessType: 'restricted' }],
    });
    await t.callK('/v2/organizations/documents/add', {
      organizationId: 'globex',
      folderId: 'legal',
      documents: [{ documentId: 'contract', documentName: 'Contract' }],
    });
    await t.callK('/v2/auth/permissions/add', {
      user: { userId: 'vic' },
      permissions: { resources: [{ type: 'folder', id: 'legal', organizationId: 'globex', accessRole: 'viewer' }] },
    });
    await t.callK('/v2/organizations/usergroups/add', { organizationId: 'globex', organizationUserGroups: [{ groupId: 'lawyers', groupName: 'Lawyers' }] });
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(`${t.url}/k/${key()}/organizations`);
    await page.click('#organizations tr[data-organization="globex"] a');
    await page.click('a[data-folder="legal"]');
    await expect.poll(() => page.locator('#documents tbody tr[data-document]').count()).toBe(1);
    await page.click('#documents tr[data-document="contract"] a');
    await expect.poll(() => page.textContent('.crumbs')).toContain('Legal/');
    await page.click('#tab-access');
    const vic = page.locator('#access-list tr[data-user="vic"]');
    await expect.poll(() => vic.textContent()).toContain('viewer');
    expect(await vic.textContent()).toContain('folder "legal"');
    await page.fill('#access-user', 'stranger');
    await page.press('#access-user', 'Enter');
    await expect.poll(() => page.locator('#access-list tr[data-user="stranger"]').textContent()).toContain('no access');
    // the organization's members and groups, a click away through the breadcrumbs
    await page.click('.crumbs a:text("globex")');
    await page.click('#tab-members');
    await expect.poll(() => page.textContent('#members')).toContain('vic');
    expect(await page.textContent('#group-list')).toContain('Lawyers');
    // a member leads to their page, and back to the document through their memberships
    await page.click('#members tr[data-user="vic"] a');
    await expect.poll(() => page.textContent('#memberships')).toContain('legal');
    await screenshot(page, 'data-browser');
    expect(errors).toEqual([]);
  });
});

describe('admin UI: feed', () => {
  it("shows notifications (of the organization alone too), activity, comments and recordings, and downloads a user's data", async () => {
    await t.callK('/v2/notifications/add', {
      organizationId: 'feedco',
      createOrganization: true,
      documentId: 'memo',
      createDocument: true,
      actionUser: { userId: 'ann', name: 'Ann' },
      displayHeadlineMessageTemplate: '{actionUser} pinged you',
      displayBodyMessage: 'about the memo',
      notifyUsers: [{ userId: 'bob' }],
    });
    await t.callK('/v2/commentannotations/add', {
      organizationId: 'feedco',
      documentId: 'memo',
      commentAnnotations: [{ commentData: [{ commentText: 'Needs a summary', from: { userId: 'ann', name: 'Ann' } }] }],
    });
    await t.callK('/v2/recordings/add', {
      organizationId: 'feedco',
      documentId: 'memo',
      recording: {
        recordingId: 'rec1',
        recordingType: 'video',
        displayName: 'Walkthrough',
        from: { userId: 'ann' },
        recordedTime: { duration: 65_000 },
        attachments: [{ name: 'walk.webm', mimeType: 'video/webm', data: b64(WEBM) }],
      },
    });
    await t.callK('/v2/users/add', { organizationId: 'feedco', users: [{ userId: 'ann', name: 'Ann' }] });
    const { page, errors } = await signedInPage(browser, t);
    // the organization's notifications, no document or user given
    await page.goto(`${t.url}/k/${key()}/organizations/feedco?tab=notifications`);
    await expect.poll(() => page.textContent('#notifications')).toContain('Ann pinged you');
    expect(await page.textContent('#notifications')).toContain('about the memo');
    // the document's tabs
    const doc = `${t.url}/k/${key()}/organizations/feedco/documents/memo`;
    await page.goto(`${doc}?tab=notifications`);
    await expect.poll(() => page.textContent('#notifications')).toContain('Ann pinged you');
    await page.goto(`${doc}?tab=activity`);
    await expect.poll(() => page.textContent('#activity')).toContain('comment.add');
    expect(await page.textContent('#activity')).toContain('recorder.add');
    // the activity filters of the get operation
    await page.fill('input[data-filter="action"]', 'recorder.add');
    await page.press('input[data-filter="action"]', 'Enter');
    await expect.poll(() => page.locator('#activity tbody tr').count()).toBe(1);
    expect(await page.textContent('#activity tbody')).toContain('recorder.add');
    await page.goto(`${doc}?tab=comments`);
    await expect.poll(() => page.textContent('#comment-list')).toContain('Ann: Needs a summary');
    await page.goto(`${doc}?tab=recordings`);
    await expect.poll(() => page.textContent('#recording-list')).toContain('Walkthrough (00:01:05)');
    const src = await page.locator('#recording-list video').getAttribute('src');
    const served = await fetch(src!);
    expect([served.status, served.headers.get('content-type')]).toEqual([200, 'video/webm']);
    // the user's data export downloads JSON
    await page.goto(`${t.url}/k/${key()}/users/ann?tab=export`);
    await page.click('#export-user');
    await expect.poll(() => page.textContent('#export-status')).toBe('Ready: user-data-feedco-ann.json');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-link')]);
    expect(download.suggestedFilename()).toBe('user-data-feedco-ann.json');
    const exported = JSON.parse(await (await import('node:fs/promises')).readFile((await download.path())!, 'utf8'));
    expect(exported.comments[0].commentText ?? JSON.stringify(exported.comments[0])).toContain('Needs a summary');
    await screenshot(page, 'feed');
    expect(errors).toEqual([]);
  });
});
