// A user's whole picture on their page, in real Chromium against a real server: the documents they can open with
// the role and the reasons (checked against /v2/auth/permissions/get, the API's answer for the same user), their
// groups, where they are connected now with their presence, their activity and the comments they wrote.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, docScreenshot, launchBrowser, signedInPage } from '../helpers/browser.ts';
import { dataOf, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';

type Entry = { accessRole?: string; errorCode?: string; reasons: string[] };

let t: TestServer;
let browser: Browser;
const documents = ['handbook', 'roadmap', 'salaries', 'minutes'];
beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
  // ann: a viewer of the organization; an editor of one restricted document; shut out of another restricted one
  await t.callK('/v2/organizations/folders/add', {
    organizationId: 'acme',
    createOrganization: true,
    folders: [{ folderId: 'hr', folderName: 'HR', accessType: 'restricted' }],
  });
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    documents: [{ documentId: 'handbook', documentName: 'Handbook' }, { documentId: 'roadmap' }],
  });
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    folderId: 'hr',
    documents: [{ documentId: 'salaries' }, { documentId: 'minutes' }],
  });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'ann', name: 'Ann', accessRole: 'viewer' }, { userId: 'bob' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'minutes', users: [{ userId: 'ann', accessRole: 'editor' }] });
  await t.callK('/v2/organizations/usergroups/add', { organizationId: 'acme', organizationUserGroups: [{ groupId: 'leads', groupName: 'Team leads' }] });
  await t.callK('/v1/organizations/usergroups/users/add', { organizationId: 'acme', organizationUserGroupId: 'leads', userIds: ['ann'] });
  await t.callK('/v2/commentannotations/add', {
    organizationId: 'acme',
    documentId: 'handbook',
    commentAnnotations: [{ annotationId: 'a1', commentData: [{ commentText: 'Page 3 is out of date', from: { userId: 'ann' } }] }],
  });
  dataOf(
    await t.callK('/v2/activities/add', {
      organizationId: 'acme',
      documentId: 'roadmap',
      activities: [{ featureType: 'custom', actionType: 'roadmap.reviewed', targetEntityId: 'roadmap', actionUser: { userId: 'ann' } }],
    }),
  );
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe("admin UI: a user's page", () => {
  it('lists the documents the user can open with the role and the reasons the API gives, their groups, activity and comments', async () => {
    const permissions = dataOf<Record<string, { documents: Record<string, Entry> }>>(
      await t.callK('/v2/auth/permissions/get', { organizationId: 'acme', userIds: ['ann'], documentIds: documents }),
    ).ann!.documents;
    const canOpen = documents.filter((d) => permissions[d]?.accessRole).sort();
    // the set-up means something: one restricted document open through its membership, one shut
    expect(canOpen).toEqual(['handbook', 'minutes', 'roadmap']);

    const { page, errors } = await signedInPage(browser, t);
    await page.goto(`${t.url}/k/${t.credentials.apiKey}/users/ann?tab=access`);
    const rows = page.locator('#can-open-list tbody tr[data-document]');
    await expect.poll(() => rows.count()).toBe(3);
    const shown = await rows.evaluateAll((all) =>
      all.map((r) => ({
        document: r.getAttribute('data-document'),
        role: r.children[2]?.textContent,
        reasons: [...r.querySelectorAll('li')].map((li) => li.textContent),
      })),
    );
    expect(shown.sort((a, b) => String(a.document).localeCompare(String(b.document)))).toEqual(
      canOpen.map((d) => ({ document: d, role: permissions[d]?.accessRole, reasons: permissions[d]?.reasons })),
    );
    expect(shown.find((r) => r.document === 'minutes')?.reasons).toContain('editor through document membership');
    // groups in the facts
    expect(await page.textContent('#user-groups')).toContain('Team leads');
    // where she is connected now, with the presence her app set: shown within the page's 5 s refresh
    expect(await page.textContent('#user-presence')).toBe('no document open');
    const token = dataOf<{ token: string }>(await t.callK('/v2/auth/generate_token', { userId: 'ann' })).token;
    const editing = connectYjs(t.url, { organizationId: 'acme', documentId: 'minutes', editorId: 'body' }, { apiKey: t.credentials.apiKey, token });
    try {
      await editing.synced;
      editing.provider.awareness.setLocalStateField('user', { name: 'Ann', color: '#c33' });
      const line = page.locator('#user-presence li[data-doc="acme/minutes/body"]');
      await expect.poll(() => line.textContent(), { timeout: 10_000 }).toContain('1 connection, editing');
      await expect.poll(() => line.locator('.presence-state').textContent(), { timeout: 10_000 }).toBe('{"user":{"name":"Ann","color":"#c33"}}');
      expect(await line.locator('a').getAttribute('href')).toBe(`/k/${t.credentials.apiKey}/live/acme/minutes/body`);
      await docScreenshot(page, 'user-access');
    } finally {
      editing.close();
    }
    await expect.poll(() => page.textContent('#user-presence'), { timeout: 10_000 }).toBe('no document open');
    expect(await axeViolations(page)).toEqual([]);
    // activity and comments, each a tab
    await page.click('#tab-activity');
    await expect.poll(() => page.textContent('#activity')).toContain('roadmap.reviewed');
    await page.click('#tab-comments');
    await expect.poll(() => page.textContent('#user-comment-list')).toBe('handbook: Page 3 is out of date');
    expect(await page.getAttribute('#user-comment-list a', 'href')).toBe(`/k/${t.credentials.apiKey}/organizations/acme/documents/handbook?tab=comments`);
    // bob, a member without a role given: what the resolver says for him too
    await page.goto(`${t.url}/k/${t.credentials.apiKey}/users/bob?tab=access`);
    await expect.poll(() => page.locator('#can-open-list tbody tr[data-document]').count()).toBe(2);
    expect(await page.textContent('#user-facts')).toContain('Groupsnone');
    // a role granted from his page through auth permissions, until a time: the resolver then opens the folder's
    // documents to him as an editor, and his memberships list it with its expiry
    const until = Math.floor(Date.now() / 1000) + 86_400;
    await page.click('#user-edit summary');
    await page.selectOption('#field-user-permission_type', 'folder');
    await page.fill('#field-user-permission_id', 'hr');
    await page.selectOption('#field-user-permission_accessRole', 'editor');
    await page.fill('#field-user-permission_expiresAt', String(until));
    await page.click('#user-permission-submit');
    await expect.poll(() => page.textContent('#user-permission-status')).toMatch(/^Granted editor on folder hr until /);
    const bob = dataOf<Record<string, { documents: Record<string, Entry> }>>(
      await t.callK('/v2/auth/permissions/get', { organizationId: 'acme', userIds: ['bob'], documentIds: ['salaries'] }),
    ).bob!.documents;
    expect(bob.salaries?.accessRole).toBe('editor');
    await expect.poll(() => page.locator('#can-open-list tbody tr[data-document]').count()).toBe(4);
    await page.click('#tab-memberships');
    const granted = page.locator('#memberships tbody tr', { hasText: 'folder' });
    await expect.poll(() => granted.count()).toBe(1);
    // the expiry the form sent (seconds), shown as a time: the page's and the browser's own rendering of it
    const shownExpiry = await granted.locator('td').last().textContent();
    expect(shownExpiry).toBe(await page.evaluate((ms) => new Date(ms).toLocaleString(), until * 1000));
    expect(errors).toEqual([]);
  });
});
