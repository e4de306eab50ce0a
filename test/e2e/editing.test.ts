// Editing from the admin UI's entity pages, in real Chromium against a real server: organizations, folders,
// documents, users, groups and memberships are created, changed and deleted through the forms (each an operation
// called through /admin/api/call), and every result is read back through the API. Validation messages come from
// the server's error envelope, under the field they name; deletions ask first and name what goes with them.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCookie } from '../helpers/admin.ts';
import { axeViolations, docScreenshot, launchBrowser, signedInPage } from '../helpers/browser.ts';
import { dataOf, startTestServer, type TestServer } from '../helpers/server.ts';

interface Org {
  id: string;
  organizationName: string;
  disabled: boolean;
}
interface Folder {
  folderId: string;
  folderName: string;
  parentFolderId: string;
  subFolders?: Folder[];
}
interface Doc {
  id: string;
  documentName: string;
  accessType: string;
  disabled: boolean;
  folderId: string;
}

let t: TestServer;
let browser: Browser;
let cookie: string;
beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
  cookie = await adminCookie(t);
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const key = () => t.credentials.apiKey;
const adminGet = async <T>(path: string): Promise<T> =>
  (await fetch(`${t.url}/admin/api${path}`, { headers: { cookie }, signal: AbortSignal.timeout(10_000) })).json() as Promise<T>;
const orgs = async (ids: string[]) => dataOf<Org[]>(await t.callK('/v2/organizations/get', { organizationIds: ids }));
const folders = async (organizationId: string) => dataOf<Folder[]>(await t.callK('/v2/organizations/folders/get', { organizationId }));
const docs = async (organizationId: string) => dataOf<Doc[]>(await t.callK('/v2/organizations/documents/get', { organizationId }));
const memberships = async (userId: string) =>
  (
    await adminGet<{ items: Array<{ organizationId: string; level: string; resourceId: string; accessRole: string }> }>(
      `/memberships?apiKey=${key()}&userId=${userId}`,
    )
  ).items;
const groups = async (organizationId: string) =>
  (await adminGet<{ groups: Array<{ id: string; name: string; userIds: string[] }> }>(`/browse/organization?apiKey=${key()}&organizationId=${organizationId}`))
    .groups;

/** Fills a generated field (`field-<form>_<name>`). */
const fill = (page: Page, form: string, name: string, value: string) => page.fill(`#field-${form}_${name}`, value);
const submit = (page: Page, form: string) => page.click(`#${form}-submit`);
const statusOf = (page: Page, form: string) => page.textContent(`#${form}-status`);

describe('admin UI: editing through the operations', () => {
  it('creates, renames, disables and deletes an organization, with the server’s validation message under the field', async () => {
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(`${t.url}/k/${key()}/organizations`);
    // the server validates: an id over 256 characters is refused, its message shown under the id field
    await fill(page, 'org-create', 'organizationId', 'x'.repeat(300));
    await submit(page, 'org-create');
    await expect
      .poll(() => page.textContent('#field-org-create_organizationId-error'))
      .toBe('organizations[0].organizationId must be at most 256 characters long.');
    expect(await page.getAttribute('#field-org-create_organizationId', 'aria-invalid')).toBe('true');
    await fill(page, 'org-create', 'organizationId', 'acme');
    await fill(page, 'org-create', 'organizationName', 'Acme Inc');
    await submit(page, 'org-create');
    // it opens the new organization's page
    await expect.poll(() => page.textContent('#page-title')).toBe('Acme Inc');
    expect((await orgs(['acme']))[0]).toMatchObject({ id: 'acme', organizationName: 'Acme Inc', disabled: false });
    // a second one with the same id: the per-item failure inside the successful envelope is said
    await page.goto(`${t.url}/k/${key()}/organizations`);
    await fill(page, 'org-create', 'organizationId', 'acme');
    await submit(page, 'org-create');
    await expect.poll(() => page.textContent('#org-create-error')).toBe('acme: Organization already exists');

    await page.goto(`${t.url}/k/${key()}/organizations/acme`);
    await fill(page, 'org-rename', 'organizationName', 'Acme Corporation');
    await submit(page, 'org-rename');
    await expect.poll(() => page.textContent('#page-title')).toBe('Acme Corporation');
    expect((await orgs(['acme']))[0]?.organizationName).toBe('Acme Corporation');
    // Undo sends the name before; typing right after it is kept through the page's reload
    await page.click('#org-rename-undo');
    await expect.poll(() => page.textContent('#page-title')).toBe('Acme Inc');
    expect((await orgs(['acme']))[0]?.organizationName).toBe('Acme Inc');
    expect(await page.inputValue('#field-org-rename_organizationName')).toBe('Acme Inc');
    await fill(page, 'org-rename', 'organizationName', 'Acme Corporation');
    await submit(page, 'org-rename');
    await expect.poll(() => page.textContent('#page-title')).toBe('Acme Corporation');
    await page.click('#org-disable');
    await expect.poll(async () => (await orgs(['acme']))[0]?.disabled).toBe(true);
    await expect.poll(() => page.textContent('#org-disable')).toBe('Enable');
    await page.click('#org-disable');
    await expect.poll(async () => (await orgs(['acme']))[0]?.disabled).toBe(false);

    // delete asks first, naming what goes with it; cancel keeps it
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', documents: [{ documentId: 'plan' }, { documentId: 'notes' }] });
    await page.reload();
    await page.click('#org-delete');
    await expect.poll(() => page.textContent('#org-delete-what')).toContain('2 documents');
    expect(await axeViolations(page)).toEqual([]);
    await page.click('#org-delete-cancel');
    expect(await orgs(['acme'])).toHaveLength(1);
    await page.click('#org-delete');
    await page.click('#org-delete-confirm');
    await expect.poll(() => page.url()).toBe(`${t.url}/k/${key()}/organizations`);
    expect(await orgs(['acme'])).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('creates, renames, moves and deletes folders; a folder’s deletion names its documents', async () => {
    await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'studio', organizationName: 'Studio' }] });
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(`${t.url}/k/${key()}/organizations/studio`);
    await page.click('#folders-edit summary');
    // "root" is the top level's name: the server's refusal shows under folderId
    await fill(page, 'folder-create', 'folderId', 'root');
    await submit(page, 'folder-create');
    await expect.poll(() => page.textContent('#field-folder-create_folderId-error')).toContain('must not be "root"');
    await fill(page, 'folder-create', 'folderId', 'drafts');
    await fill(page, 'folder-create', 'folderName', 'Drafts');
    await submit(page, 'folder-create');
    await expect.poll(() => statusOf(page, 'folder-create')).toBe('Created folder drafts.');
    await fill(page, 'folder-create', 'folderId', 'archive');
    await fill(page, 'folder-create', 'folderName', 'Archive');
    await submit(page, 'folder-create');
    await expect.poll(async () => (await folders('studio')).map((f) => f.folderId).sort()).toEqual(['archive', 'drafts']);
    // a document created in the drafts folder, from its view
    await page.goto(`${t.url}/k/${key()}/organizations/studio?folder=drafts`);
    await page.click('#document-new summary');
    await fill(page, 'document-create', 'documentId', 'chapter-1');
    await fill(page, 'document-create', 'documentName', 'Chapter one');
    await submit(page, 'document-create');
    await expect.poll(() => page.locator('#documents tbody tr[data-document="chapter-1"]').count()).toBe(1);
    expect((await docs('studio'))[0]).toMatchObject({ id: 'chapter-1', documentName: 'Chapter one', folderId: 'drafts' });
    // rename drafts and move it under archive
    await fill(page, 'folder-update', 'folderName', 'Old drafts');
    await page.selectOption('#folder-parent', 'archive');
    await submit(page, 'folder-update');
    await expect
      .poll(async () => (await folders('studio')).map((f) => [f.folderId, (f.subFolders ?? []).map((s) => [s.folderId, s.folderName])]))
      .toEqual([['archive', [['drafts', 'Old drafts']]]]);
    // deleting archive names the document in its subfolder; confirmed, both folders and the document are gone
    await page.goto(`${t.url}/k/${key()}/organizations/studio?folder=archive`);
    await page.click('#folder-delete');
    await expect.poll(() => page.textContent('#folder-delete-what')).toContain('its 1 subfolder (Old drafts)');
    expect(await page.locator('#folder-delete-what li[data-document="chapter-1"]').textContent()).toBe('Chapter one (chapter-1)');
    await docScreenshot(page, 'edit-folder-delete');
    await page.click('#folder-delete-confirm');
    await expect.poll(async () => (await folders('studio')).length).toBe(0);
    expect(await docs('studio')).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('renames a document, sets its access type and disabled state, moves it and deletes it', async () => {
    await t.callK('/v2/organizations/folders/add', { organizationId: 'press', createOrganization: true, folders: [{ folderId: 'public' }] });
    await t.callK('/v2/organizations/documents/add', { organizationId: 'press', documents: [{ documentId: 'release', documentName: 'Release' }] });
    const doc = async () => (await docs('press')).find((d) => d.id === 'release');
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(`${t.url}/k/${key()}/organizations/press/documents/release`);
    await page.click('#document-edit summary');
    await fill(page, 'doc-rename', 'documentName', 'Press release');
    await submit(page, 'doc-rename');
    await expect.poll(() => page.textContent('#page-title')).toBe('Press release');
    const originalAccess = (await doc())?.accessType as string;
    await page.selectOption('#field-doc-access_accessType', 'restricted');
    await submit(page, 'doc-access');
    await expect.poll(async () => (await doc())?.accessType).toBe('restricted');
    // a cheap change offers Undo: the same operation with the value before
    await page.click('#doc-access-undo');
    await expect.poll(async () => (await doc())?.accessType).toBe(originalAccess);
    await expect.poll(() => statusOf(page, 'doc-access')).toBe(`Undone: Access type: ${originalAccess}.`);
    expect(await page.locator('#doc-access-undo').count()).toBe(0);
    await page.selectOption('#field-doc-access_accessType', 'restricted');
    await submit(page, 'doc-access');
    await expect.poll(async () => (await doc())?.accessType).toBe('restricted');
    await page.click('#doc-disable');
    await expect.poll(async () => (await doc())?.disabled).toBe(true);
    const originalFolder = (await doc())?.folderId;
    await page.selectOption('#doc-move-folder', 'public');
    await submit(page, 'doc-move');
    await expect.poll(async () => (await doc())?.folderId).toBe('public');
    await page.click('#doc-move-undo');
    await expect.poll(async () => (await doc())?.folderId).toBe(originalFolder);
    await page.selectOption('#doc-move-folder', 'public');
    await submit(page, 'doc-move');
    await expect.poll(async () => (await doc())?.folderId).toBe('public');
    expect(await doc()).toMatchObject({ documentName: 'Press release', accessType: 'restricted', disabled: true, folderId: 'public' });
    await docScreenshot(page, 'edit-document');
    await page.click('#doc-delete');
    await expect.poll(() => page.textContent('#doc-delete-what')).toContain('This deletes release with its memberships');
    await page.click('#doc-delete-confirm');
    await expect.poll(() => page.url()).toBe(`${t.url}/k/${key()}/organizations/press`);
    expect(await doc()).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it('adds, edits and removes users, their organization and document roles, and groups with their members', async () => {
    await t.callK('/v2/organizations/documents/add', { organizationId: 'lab', createOrganization: true, documents: [{ documentId: 'log' }] });
    const { page, errors } = await signedInPage(browser, t);
    // a user added to an organization from the Users page
    await page.goto(`${t.url}/k/${key()}/users`);
    await page.fill('#user-create-org', 'lab');
    await fill(page, 'user-create', 'userId', 'ada');
    await fill(page, 'user-create', 'name', 'Ada');
    await fill(page, 'user-create', 'email', 'ada@example.com');
    await page.selectOption('#field-user-create_accessRole', 'viewer');
    await submit(page, 'user-create');
    await expect.poll(() => page.textContent('#page-title')).toBe('Ada');
    expect(await memberships('ada')).toEqual([expect.objectContaining({ organizationId: 'lab', level: 'organization', accessRole: 'viewer' })]);
    // the profile, edited on the user's page
    await page.click('#user-edit summary');
    await fill(page, 'user-update', 'name', 'Ada Lovelace');
    await submit(page, 'user-update');
    await expect.poll(() => page.textContent('#page-title')).toBe('Ada Lovelace');
    expect(await adminGet<{ user: { name: string; email: string } }>(`/user?apiKey=${key()}&userId=ada`)).toMatchObject({
      user: { name: 'Ada Lovelace', email: 'ada@example.com' },
    });
    // the organization role, changed on the membership's row
    await page.selectOption('#role-ada-organization-lab', 'editor');
    await expect.poll(async () => (await memberships('ada'))[0]?.accessRole).toBe('editor');

    // a document role: given on the document's access tab, changed, removed
    await page.goto(`${t.url}/k/${key()}/organizations/lab/documents/log?tab=access`);
    await fill(page, 'doc-member-add', 'userId', 'ada');
    await page.selectOption('#field-doc-member-add_accessRole', 'viewer');
    await submit(page, 'doc-member-add');
    await expect.poll(async () => (await memberships('ada')).find((m) => m.level === 'document')).toMatchObject({ resourceId: 'log', accessRole: 'viewer' });
    await expect.poll(() => page.locator('#doc-role-ada').count()).toBe(1);
    await page.selectOption('#doc-role-ada', 'editor');
    await expect.poll(async () => (await memberships('ada')).find((m) => m.level === 'document')?.accessRole).toBe('editor');
    await page.click('#doc-remove-ada');
    await page.click('#doc-remove-ada-confirm');
    await expect.poll(async () => (await memberships('ada')).map((m) => m.level)).toEqual(['organization']);

    // a group, a member added and removed
    await page.goto(`${t.url}/k/${key()}/organizations/lab`);
    await page.click('#groups-edit summary');
    await fill(page, 'group-create', 'groupId', 'reviewers');
    await fill(page, 'group-create', 'groupName', 'Reviewers');
    await submit(page, 'group-create');
    await expect.poll(async () => (await groups('lab')).map((g) => [g.id, g.name])).toEqual([['reviewers', 'Reviewers']]);
    await fill(page, 'group-reviewers-add', 'userIds', 'ada');
    await submit(page, 'group-reviewers-add');
    await expect.poll(async () => (await groups('lab'))[0]?.userIds).toEqual(['ada']);
    await expect.poll(() => page.locator('#group-members li[data-member="ada"]').count()).toBe(1);
    expect(await page.textContent('#group-list li[data-group="reviewers"]')).toBe('Reviewers (1 members)');
    await docScreenshot(page, 'edit-organization');
    expect(await axeViolations(page)).toEqual([]);
    await page.click('#group-reviewers-remove-ada');
    await page.click('#group-reviewers-remove-ada-confirm');
    await expect.poll(async () => (await groups('lab'))[0]?.userIds).toEqual([]);

    // removed from the organization, after a confirmation that says what it means
    await page.goto(`${t.url}/k/${key()}/users/ada`);
    await page.click('#remove-ada-organization-lab');
    await expect.poll(() => page.textContent('#remove-ada-organization-lab-dialog')).toContain('loses access to every document and all data of lab');
    await page.click('#remove-ada-organization-lab-confirm');
    await expect.poll(async () => memberships('ada')).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('starts a comment thread and sends a notification from the document page, read back through the API', async () => {
    await t.callK('/v2/organizations/documents/add', { organizationId: 'desk', createOrganization: true, documents: [{ documentId: 'memo' }] });
    await t.callK('/v2/users/add', {
      organizationId: 'desk',
      users: [
        { userId: 'kay', name: 'Kay' },
        { userId: 'lee', name: 'Lee' },
      ],
    });
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(`${t.url}/k/${key()}/organizations/desk/documents/memo?tab=comments`);
    await expect.poll(() => page.textContent('#comments')).toContain('No comments.');
    // without an author the server refuses it, and the form says its message
    await fill(page, 'comment-create', 'commentText', 'Looks good to me');
    await submit(page, 'comment-create');
    await expect.poll(() => page.textContent('#comment-create-error')).toMatch(/userId/);
    await page.fill('#comment-create-from', 'kay');
    await submit(page, 'comment-create');
    await expect.poll(() => statusOf(page, 'comment-create')).toBe('Comment thread started by kay.');
    type Thread = { comments: Array<{ commentText: string; from: { userId: string } }> };
    const threads = dataOf<Thread[]>(await t.callK('/v2/commentannotations/get', { organizationId: 'desk', documentId: 'memo' }));
    expect(threads.map((a) => a.comments.map((c) => [c.from.userId, c.commentText]))).toEqual([[['kay', 'Looks good to me']]]);
    await expect.poll(() => page.textContent('#comment-list tbody')).toContain('Looks good to me');

    await page.goto(`${t.url}/k/${key()}/organizations/desk/documents/memo?tab=notifications`);
    await fill(page, 'notification-send', 'displayHeadlineMessageTemplate', '{actionUser} asks for a review');
    await fill(page, 'notification-send', 'displayBodyMessage', 'Please read the memo.');
    await page.fill('#notification-send-actor', 'kay');
    await page.fill('#notification-send-to', 'lee');
    await submit(page, 'notification-send');
    await expect.poll(() => statusOf(page, 'notification-send')).toBe('Notification sent.');
    type Feed = Array<{ displayHeadlineMessageTemplate: string; displayBodyMessage: string; actionUser: { userId: string } }>;
    const lees = dataOf<Feed>(await t.callK('/v2/notifications/get', { organizationId: 'desk', userId: 'lee' }));
    expect(lees.map((n) => [n.actionUser.userId, n.displayHeadlineMessageTemplate, n.displayBodyMessage])).toEqual([
      ['kay', '{actionUser} asks for a review', 'Please read the memo.'],
    ]);
    expect(dataOf<Feed>(await t.callK('/v2/notifications/get', { organizationId: 'desk', userId: 'kay' }))).toEqual([]);
    await expect.poll(() => page.textContent('#notifications tbody')).toContain('Please read the memo.');
    expect(await axeViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
