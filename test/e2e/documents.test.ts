// Collaborative documents in the admin UI, in Chromium against a real server and real y-websocket clients: rich
// text of an XML fragment, the tree of shared types, presence, the history from the stored log with a past state
// and its diff against now, restore converging on a connected client, and export as JSON and Yjs binary.
import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { docScreenshot, launchBrowser, screenshot, signedInPage } from '../helpers/browser.ts';
import { dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';

/** crdt/get's data: one item per editor, its content decoded by type. */
interface CrdtItem {
  data: unknown;
}

let t: TestServer;
let browser: Browser;
beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [{ documentId: 'spec', documentName: 'Spec' }],
  });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});
const creds = () => ({ apiKey: t.credentials.apiKey, authToken: t.credentials.authToken });
const liveUrl = (room: { organizationId: string; documentId: string; editorId: string }, tab?: string) =>
  `${t.url}/k/${t.credentials.apiKey}/live/${room.organizationId}/${room.documentId}/${room.editorId}${tab ? `?tab=${tab}` : ''}`;

describe('admin UI: a live document', () => {
  it("renders an XML fragment as formatted text (raw XML a click away), shows its shared types and the clients' presence", async () => {
    const room = { organizationId: 'acme', documentId: 'spec', editorId: 'tiptap' };
    const editor = connectYjs(t.url, room, creds());
    await editor.synced;
    // what a TipTap editor writes: a heading, a paragraph with a bold word and a link, a bullet list
    const fragment = editor.doc.getXmlFragment('default');
    editor.doc.transact(() => {
      const heading = new Y.XmlElement('heading');
      heading.setAttribute('level', '1');
      heading.insert(0, [new Y.XmlText('Launch plan')]);
      const paragraph = new Y.XmlElement('paragraph');
      const text = new Y.XmlText();
      paragraph.insert(0, [text]);
      const list = new Y.XmlElement('bulletList');
      const item = new Y.XmlElement('listItem');
      const itemText = new Y.XmlElement('paragraph');
      itemText.insert(0, [new Y.XmlText('First step')]);
      item.insert(0, [itemText]);
      list.insert(0, [item]);
      fragment.insert(0, [heading, paragraph, list]);
      text.insert(0, 'Ship it ');
      text.insert(8, 'now', { bold: {} });
      text.insert(11, ', see the ', { bold: null });
      text.insert(21, 'notes', { link: { href: 'https://example.com/notes' } });
    });
    editor.provider.awareness.setLocalStateField('user', { name: 'Ann Editor', color: '#f97316' });
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(liveUrl(room));
    await expect.poll(() => page.textContent('#crdt-state')).toBe('live (read-only)');
    await expect.poll(() => page.textContent('#crdt-rich h1')).toBe('Launch plan');
    expect(await page.textContent('#crdt-rich strong')).toBe('now');
    expect(await page.getAttribute('#crdt-rich a', 'href')).toBe('https://example.com/notes');
    expect(await page.textContent('#crdt-rich ul li')).toBe('First step');
    await expect.poll(() => page.textContent('#presence')).toContain('Ann Editor');
    expect(await page.textContent('#crdt-clients')).toBe('1');
    await docScreenshot(page, 'live-richtext');
    await page.click('#toggle-xml');
    await expect.poll(() => page.textContent('#crdt-xml')).toContain('<heading level="1">Launch plan</heading>');
    // the tree of the Y.Doc's shared types
    await page.click('#tab-tree');
    await expect.poll(() => page.textContent('#crdt-tree')).toContain('XmlFragment');
    expect(await page.textContent('#crdt-tree')).toContain('<heading>');
    // an edit from the editor shows up at once
    await page.click('#tab-content');
    editor.doc.transact(() => {
      const more = new Y.XmlElement('paragraph');
      more.insert(0, [new Y.XmlText('Added live')]);
      fragment.insert(fragment.length, [more]);
    });
    await expect.poll(() => page.textContent('#crdt-rich')).toContain('Added live');
    editor.close();
    await expect.poll(() => page.textContent('#crdt-clients')).toBe('0');
    expect(errors).toEqual([]);
  });

  it('shows the stored history with who wrote each entry, a character diff between any two entries or now, and restores one after asking, saying what it did, as an update connected clients converge on', async () => {
    const room = { organizationId: 'acme', documentId: 'spec', editorId: 'body' };
    await t.callK('/v2/crdt/add', { ...room, type: 'text', data: 'alpha' });
    await t.callK('/v2/crdt/update', { ...room, type: 'text', data: 'alpha\nbeta' });
    await t.callK('/v2/crdt/update', { ...room, type: 'text', data: 'alpha\nbeta\ngamma' });
    const client = connectYjs(t.url, room, creds());
    await client.synced;
    client.doc.getText('content').insert(0, 'typed\n');
    await eventually(async () => expect(dataOf<CrdtItem[]>(await t.callK('/v2/crdt/get', room))[0]!.data).toBe('typed\nalpha\nbeta\ngamma'));
    // a user's own editor (a user token): the history names the user
    const granted = await t.callK('/v2/auth/generate_token', {
      userId: 'ann',
      permissions: { resources: [{ type: 'document', id: 'spec', organizationId: 'acme', accessRole: 'editor' }] },
    });
    expect(granted.status, JSON.stringify(granted.body)).toBe(200);
    const ann = connectYjs(t.url, room, { apiKey: t.credentials.apiKey, token: dataOf<{ token: string }>(granted).token });
    await ann.synced;
    ann.doc.getText('content').insert(ann.doc.getText('content').length, '!');
    await eventually(async () => expect(dataOf<CrdtItem[]>(await t.callK('/v2/crdt/get', room))[0]!.data).toBe('typed\nalpha\nbeta\ngamma!'));
    ann.close();
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(liveUrl(room, 'history'));
    const rows = page.locator('#history-list tbody tr');
    await expect.poll(() => rows.count()).toBe(5);
    // newest first: the user's edit, the key's client (named by its key), then the REST writes
    expect(await rows.first().locator('.who').textContent()).toBe('ann');
    expect(await rows.nth(1).locator('.who').textContent()).toBe(`API key ${t.credentials.apiKey} (websocket)`);
    expect(await rows.nth(2).textContent()).toContain('rest-api');
    // the document after the second write, and what changed since, by character
    await rows.nth(3).locator('button', { hasText: 'Show' }).click();
    await expect.poll(() => page.textContent('#history-content')).toBe('alpha\nbeta');
    await expect.poll(() => page.textContent('#history-diff .diff-summary')).toContain('+13 −0 characters');
    expect(await page.locator('#history-diff .diff-added').allTextContents()).toEqual(['typed\n', '\ngamma!']);
    // between two entries: from the second write to the third
    await rows.nth(2).locator('button', { hasText: 'Compare to' }).click();
    await expect.poll(() => page.locator('#history-diff .diff-added').allTextContents()).toEqual(['\ngamma']);
    expect(await page.textContent('#history-diff .diff-summary')).toContain('+6 −0 characters');
    expect(await page.locator('#history-diff .diff-removed').count()).toBe(0);
    // backwards: from the user's edit to the second write, removals
    await rows.first().locator('button', { hasText: 'Show' }).click();
    await rows.nth(3).locator('button', { hasText: 'Compare to' }).click();
    await expect.poll(() => page.locator('#history-diff .diff-removed').allTextContents()).toEqual(['typed\n', '\ngamma!']);
    await page.click('#compare-now');
    await expect.poll(() => page.textContent('#history-diff .diff-summary')).toContain('to now: +0 −0 characters');
    await rows.nth(3).locator('button', { hasText: 'Show' }).click();
    await expect.poll(() => page.textContent('#history-content')).toBe('alpha\nbeta');
    await docScreenshot(page, 'live-history-diff');
    // restore asks first, naming what changes; cancel changes nothing
    await page.click('#restore');
    await expect.poll(() => page.textContent('#restore-what')).toContain('+0 −13 characters against now');
    await page.click('#restore-cancel');
    expect(dataOf<CrdtItem[]>(await t.callK('/v2/crdt/get', room))[0]!.data).toBe('typed\nalpha\nbeta\ngamma!');
    await page.click('#restore');
    await page.click('#restore-confirm');
    await expect
      .poll(() => page.textContent('#history-status'))
      .toMatch(/^Restored the document as it was at entry \d+ \(.+\), as a new update of .+: \+0 −13 characters\./);
    // the connected client, the live view and REST all converge on it
    await eventually(() => expect(client.doc.getText('content').toString()).toBe('alpha\nbeta'));
    await page.click('#tab-content');
    await expect.poll(() => page.textContent('#crdt-content')).toBe('alpha\nbeta');
    expect(dataOf<CrdtItem[]>(await t.callK('/v2/crdt/get', room))[0]!.data).toBe('alpha\nbeta');
    // the restore is in the history, by its origin
    await page.click('#tab-history');
    await expect.poll(() => rows.count()).toBe(6);
    expect(await rows.first().textContent()).toContain('admin-restore');
    client.close();
    expect(errors).toEqual([]);
  });

  it('exports the state as JSON and as one Yjs update that loads into a new document', async () => {
    const room = { organizationId: 'acme', documentId: 'spec', editorId: 'settings' };
    await t.callK('/v2/crdt/add', { ...room, type: 'map', data: { title: 'Spec', pages: 3 } });
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(liveUrl(room));
    await expect.poll(() => page.textContent('#crdt-content')).toContain('"title": "Spec"');
    const [json] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
    expect(json.suggestedFilename()).toBe('acme-spec-settings.json');
    expect(JSON.parse(await readFile((await json.path())!, 'utf8'))).toEqual({
      ...room,
      type: 'map',
      contentKey: 'content',
      data: { title: 'Spec', pages: 3 },
    });
    const [binary] = await Promise.all([page.waitForEvent('download'), page.click('#export-yjs')]);
    expect(binary.suggestedFilename()).toBe('acme-spec-settings.yjs');
    const doc = new Y.Doc();
    Y.applyUpdate(doc, new Uint8Array(await readFile((await binary.path())!)));
    expect(doc.getMap('content').toJSON()).toEqual({ title: 'Spec', pages: 3 });
    await screenshot(page, 'live-export');
    expect(errors).toEqual([]);
  });

  it('lists rooms opened over the websocket (no document record) under their organization, and suggests users where an id is asked for', async () => {
    const ghost = { organizationId: 'acme', documentId: 'ghost', editorId: 'e' };
    const client = connectYjs(t.url, ghost, creds());
    await client.synced;
    client.doc.getText('content').insert(0, 'opened over the websocket');
    await eventually(async () => expect(dataOf<CrdtItem[]>(await t.callK('/v2/crdt/get', ghost))[0]!.data).toBe('opened over the websocket'));
    await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'ann-smith', name: 'Ann Smith' }] });
    const { page, errors } = await signedInPage(browser, t);
    await page.goto(`${t.url}/k/${t.credentials.apiKey}/organizations/acme?tab=live`);
    const row = page.locator('#rooms tr[data-room="ghost/e"]');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain('1');
    await row.locator('a').first().click();
    await expect.poll(() => page.locator('#editors tr[data-editor="e"]').count()).toBe(1);
    // who can open it: the user field suggests users by name
    await page.click('#tab-access');
    await page.fill('#access-user', 'Ann S');
    await expect
      .poll(() => page.locator('#access-user-options option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value)))
      .toEqual(['ann-smith']);
    client.close();
    expect(errors).toEqual([]);
  });
});
