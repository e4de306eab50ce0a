// The README's browser client, as written, bundled the way an app bundles it (esbuild) and run in Chromium from a
// page of the app's own origin, whose backend hands the page a user token.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, watchErrors } from '../helpers/browser.ts';
import { againstServer, readmeBlocks } from '../helpers/readme.ts';
import { dataOf, startTestServer, type TestServer } from '../helpers/server.ts';
import type { UserTokenAnswer } from '../helpers/answers.ts';

const ROOT = join(import.meta.dirname, '..', '..');
let t: TestServer;
let app: Server;
let appUrl: string;
let browser: Browser;

beforeAll(async () => {
  t = await startTestServer();
  expect(
    (await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc-1' }] })).status,
  ).toBe(200);
  const added = await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'doc-1', editorId: 'editor-1', type: 'text', data: 'Written over REST.' });
  expect(added.status).toBe(200);
  const granted = await t.callK('/v2/auth/generate_token', {
    userId: 'reader',
    permissions: { resources: [{ type: 'document', id: 'doc-1', organizationId: 'acme', accessRole: 'viewer' }] },
  });
  expect(granted.status, JSON.stringify(granted.body)).toBe(200);
  const token = dataOf<UserTokenAnswer>(granted).token;
  const [block] = readmeBlocks(ROOT).filter((b) => b.kind === 'browser');
  const bundle = await build({
    stdin: { contents: againstServer(block!.code, t.url), resolveDir: ROOT, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]!.text;
  // the app: its page, its bundle, and its backend's token route
  app = createServer((req, res) => {
    if (req.url === '/app.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    if (req.url === '/my-backend/hearth-token')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiKey: t.credentials.apiKey, token }));
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title><script type="module" src="/app.js"></script>');
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => app?.close(resolve));
  await t?.close();
});

describe("the README's browser client", () => {
  it('syncs the document in Chromium as written (bundled as an app bundles it)', async () => {
    const page = await browser.newPage();
    const errors = watchErrors(page);
    const logged: string[] = [];
    page.on('console', (message) => logged.push(message.text()));
    await page.goto(appUrl);
    await expect.poll(() => logged.join('\n'), { timeout: 10_000 }).toContain('synced: Written over REST.');
    expect(errors).toEqual([]);
    await page.close();
  });
});
