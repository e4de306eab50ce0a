// The desktop app, driven by Playwright's Electron support. It needs an Electron binary, which this workplace's
// machines cannot download (npm installs with ELECTRON_SKIP_BINARY_DOWNLOAD=1): set ELECTRON_PATH to a binary,
// or install electron where its download works, and this file runs; otherwise it says so and runs nothing.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron, type ElectronApplication } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from '../helpers/browser.ts';

const ROOT = join(import.meta.dirname, '..', '..');

function electronBinary(): string | null {
  if (process.env.ELECTRON_PATH) return existsSync(process.env.ELECTRON_PATH) ? process.env.ELECTRON_PATH : null;
  try {
    // the electron package exports the binary's path once its download has happened
    const path = createRequire(import.meta.url)('electron') as unknown;
    return typeof path === 'string' && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

const binary = electronBinary();
if (!binary) {
  console.warn(
    '[desktop] The Electron desktop test is NOT run: no Electron binary here. Set ELECTRON_PATH=/path/to/electron (or install electron without ELECTRON_SKIP_BINARY_DOWNLOAD) to run it.',
  );
}

describe.runIf(binary !== null)('desktop app (Electron)', () => {
  let electron: ElectronApplication;
  let dataDir: string;
  beforeAll(async () => {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
    dataDir = mkdtempSync(join(tmpdir(), 'hearth-desktop-'));
    electron = await _electron.launch({
      executablePath: binary as string,
      args: ['--no-sandbox', join(ROOT, 'dist/main/main.js')],
      env: { ...process.env, HEARTH_DATA_DIR: dataDir, PORT: '0' },
    });
  }, 120_000);
  afterAll(async () => {
    await electron?.close().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('opens its window on the local UI, locked down, and quits cleanly with the database closed', async () => {
    const page = await electron.firstWindow();
    await expect.poll(() => page.textContent('#health'), { timeout: 30_000 }).toBe('healthy');
    expect(new URL(page.url()).hostname).toBe('127.0.0.1');
    // no Node in the page (nodeIntegration off, sandboxed, isolated)
    expect(await page.evaluate(() => [typeof (globalThis as { require?: unknown }).require, typeof (globalThis as { process?: unknown }).process])).toEqual([
      'undefined',
      'undefined',
    ]);
    expect(await page.evaluate(() => window.open('https://example.com') === null)).toBe(true);
    await screenshot(page, 'desktop');
    await electron.close();
    // quitting checkpointed and closed the database: no write-ahead log left behind
    const wal = join(dataDir, 'hearth.db-wal');
    expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
    expect(readdirSync(dataDir)).toContain('credentials.json');
  }, 120_000);
});
