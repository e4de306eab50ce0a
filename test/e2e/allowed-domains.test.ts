// A real browser's pages against an API key's allowed domains (/v2/workspace/domains/*): Chromium states each
// page's origin on the websocket upgrade by itself, and only pages of a listed domain get the document.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let pages: Server;
let pagePort: number;
let browser: Browser;
beforeAll(async () => {
  t = await startTestServer();
  // the app's pages: an empty page on its own port, reached under two names
  pages = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>'));
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  pagePort = (pages.address() as AddressInfo).port;
  browser = await launchBrowser(['--host-resolver-rules=MAP app.example.test 127.0.0.1, MAP evil.example.test 127.0.0.1']);
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => pages?.close(resolve));
  await t?.close();
});

/** Opens the room's websocket from a page of `host`; answers the size of the first message, or how it failed. */
async function openFrom(host: string): Promise<string> {
  const page = await browser.newPage();
  try {
    await page.goto(`http://${host}:${pagePort}/`);
    const url = `${t.url.replace(/^http/, 'ws')}/yjs/acme/doc/e?apiKey=${t.credentials.apiKey}&authToken=${t.credentials.authToken}`;
    return await page.evaluate(
      (url) =>
        new Promise<string>((resolve) => {
          const ws = new WebSocket(url);
          ws.binaryType = 'arraybuffer';
          ws.onmessage = (event) => {
            resolve(`message of ${(event.data as ArrayBuffer).byteLength} bytes`);
            ws.close();
          };
          ws.onclose = (event) => resolve(`closed ${event.code}`);
        }),
      url,
    );
  } finally {
    await page.close();
  }
}

describe('allowed domains in a real browser', () => {
  it("lets pages of the key's domains open its documents and refuses other pages", async () => {
    await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'doc', editorId: 'e', type: 'text', data: 'hello' });
    // no domain listed: any page
    expect(await openFrom('evil.example.test')).toMatch(/^message of \d+ bytes$/);
    expect((await t.callK('/v2/workspace/domains/add', { domains: ['app.example.test'] })).status).toBe(200);
    expect(await openFrom('app.example.test')).toMatch(/^message of \d+ bytes$/);
    // refused before the upgrade: the browser sees an abnormal close
    expect(await openFrom('evil.example.test')).toBe('closed 1006');
    expect((await t.callK('/v2/workspace/domains/add', { domains: ['*.example.test'] })).status).toBe(200);
    expect(await openFrom('evil.example.test')).toMatch(/^message of \d+ bytes$/);
  });
});
