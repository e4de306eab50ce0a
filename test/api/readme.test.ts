import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { againstServer, readmeBlocks } from '../helpers/readme.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const ROOT = join(import.meta.dirname, '..', '..');
/** Node blocks are written inside the project, so that their imports resolve to its node_modules as a reader's do. */
const SCRATCH = join(ROOT, 'node_modules', '.cache', 'readme-blocks');

let t: TestServer;
/** The reader's project folder: `data/` is the test server's data dir, as `npm start` leaves it. */
let cwd: string;
beforeAll(async () => {
  t = await startTestServer();
  cwd = mkdtempSync(join(tmpdir(), 'hearth-readme-'));
  symlinkSync(t.dataDir, join(cwd, 'data'));
  mkdirSync(SCRATCH, { recursive: true });
});
afterAll(async () => {
  await t.close();
  rmSync(cwd, { recursive: true, force: true });
});

function run(command: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout: 30_000, env: { ...process.env, NODE_OPTIONS: '' } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

const blocks = readmeBlocks(ROOT);

describe("the README's code blocks", () => {
  it('are found: the first calls, the Node client, the webhook recipe, REST content, the browser client', () => {
    expect(blocks.map((b) => b.kind).sort()).toEqual(['browser', 'node', 'node', 'sh', 'sh']);
  });

  // in README order: the REST example reads what the Node client wrote, then replaces it
  for (const [index, block] of blocks.entries()) {
    if (block.kind === 'browser') continue; // test/e2e/readme-browser.test.ts runs it in Chromium
    it(`README.md:${block.line} (${block.kind}) runs as written and prints "${block.prints}"`, async () => {
      const code = againstServer(block.code, t.url);
      let result: Awaited<ReturnType<typeof run>>;
      if (block.kind === 'node') {
        const file = join(SCRATCH, `block-${index}.mjs`);
        writeFileSync(file, code);
        result = await run(process.execPath, [file]);
      } else {
        result = await run('bash', ['-euo', 'pipefail', '-c', code]);
      }
      expect(result.code, result.out).toBe(0);
      expect(result.out).toContain(block.prints);
    }, 40_000);
  }
});
