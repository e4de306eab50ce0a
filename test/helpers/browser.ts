import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-results');
/** The admin UI's screenshots, committed and linked from the README: rewritten only with UPDATE_SCREENSHOTS=1. */
export const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'docs', 'screenshots');
/** Where every run writes the same pictures (gitignored), so a run leaves the working tree as it found it. */
export const RUN_SCREENSHOTS = join(ARTIFACTS, 'screenshots');
/** Whether this run refreshes the committed pictures (`UPDATE_SCREENSHOTS=1 npm run test:e2e`). */
export const UPDATE_SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1';

/** Debian's Chromium, headless, with the flags this machine needs (no sandbox as root, no background networking). */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extraArgs,
    ],
  });
}

/** Collects console errors and uncaught page errors, so a test can assert there were none. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

/** A full-page screenshot into test-results/ (not committed). */
export async function screenshot(page: Page, name: string) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/**
 * A screenshot of what the window shows, as the README's pictures of the UI: into test-results/screenshots/ on
 * every run, and into docs/screenshots/ (committed) only when UPDATE_SCREENSHOTS=1, so that running the suite
 * does not dirty the tree. Returns the files written.
 */
export async function docScreenshot(page: Page, name: string): Promise<string[]> {
  const dirs = UPDATE_SCREENSHOTS ? [RUN_SCREENSHOTS, SCREENSHOTS] : [RUN_SCREENSHOTS];
  const image = await page.screenshot();
  const files: string[] = [];
  for (const dir of dirs) {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${name}.png`);
    writeFileSync(file, image);
    files.push(file);
  }
  return files;
}

/** A new page signed in to the admin UI with a one-time sign-in link (as a user opens the one printed at start). */
export async function signedInPage(
  browser: Browser,
  t: { url: string; server: { signInLink(workspaceId?: string): string } },
  options: { width?: number; height?: number; theme?: 'light' | 'dark' } = {},
) {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 860 },
    colorScheme: options.theme ?? 'light',
  });
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(t.server.signInLink());
  await page.waitForSelector('#main');
  return { page, errors };
}

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
interface AxeResult {
  violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }>;
}

/**
 * The serious and critical accessibility violations axe-core finds on the page as it is (WCAG 2.x A and AA
 * rules, best practices included). Injected through the DevTools protocol: the UI's CSP allows no inline script.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const result = await page.evaluate(() =>
    (window as unknown as { axe: { run(context: Document, options: object): Promise<AxeResult> } }).axe.run(document, { resultTypes: ['violations'] }),
  );
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} — ${v.nodes
          .slice(0, 3)
          .map((n) => JSON.stringify(n.target))
          .join(', ')}`,
    );
}
