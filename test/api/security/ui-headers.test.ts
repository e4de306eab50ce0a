import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const expectLockedDown = (res: Response, what: string) => {
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp, what).toContain("script-src 'self'");
  expect(csp, what).toContain("frame-ancestors 'none'");
  expect(csp, what).toContain("object-src 'none'");
  expect(csp, what).toContain("base-uri 'none'");
  expect(csp, what).not.toContain('unsafe-inline');
  expect(csp, what).not.toContain('unsafe-eval');
  expect(res.headers.get('x-frame-options'), what).toBe('DENY');
  expect(res.headers.get('referrer-policy'), what).toBe('no-referrer');
  expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
};

describe('the admin UI and its assets', () => {
  it('send a strict CSP without inline script, and refuse framing and referrers', async () => {
    const index = await fetch(t.url + '/');
    expect(index.status).toBe(200);
    expectLockedDown(index, '/');
    const html = await index.text();
    // a deep link of the single-page app gets the same page, with the same headers
    expectLockedDown(await fetch(t.url + '/some/deep/link'), 'deep link');
    // every script and stylesheet the page loads comes from a file of its own origin, none inline
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
    expect(html).not.toMatch(/<style\b/i);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((m) => new URL(m[1]!, t.url + '/').pathname);
    // npm install builds the renderer (prepare): the page has its bundle
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      const res = await fetch(t.url + asset);
      expect(res.status, asset).toBe(200);
      expectLockedDown(res, asset);
    }
  });
});
