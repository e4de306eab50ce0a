// Builds the server, the CLI, the delivery worker and the desktop shell's main process from TypeScript into dist/,
// so that `npm start`, `npx hearth` and the desktop app start without compiling anything. esbuild bundles each
// entry with the JavaScript packages it uses (one file to parse instead of hundreds to resolve: a fresh server
// answers in about half the time and with less memory), split into chunks that load on use (`hearth --help`
// loads none of the server). Native and data packages stay imports. Types are checked by `npm run typecheck`,
// not here. Files the code reads at run time (migrations, the renderer, resources, package.json) are found from
// the package root (server/paths.ts): nothing is copied. Run by `npm install` (prepare) and `npm run build`.
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist');
/** Written last: bin/hearth.mjs runs dist/ only when no source is newer than this file. */
const STAMP = join(OUT, '.build-stamp');

const started = Date.now();
rmSync(OUT, { recursive: true, force: true });
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: [
    'server/cli.ts',
    'server/index.ts',
    'server/testing/index.ts',
    'server/webhooks/worker.ts',
    'server/admin/import-worker.ts',
    'server/crdt/yjs-worker.ts',
    'main/main.ts',
  ],
  outdir: OUT,
  outbase: ROOT,
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // better-sqlite3 is native; the optional accelerators of ws are native too; electron is the desktop runtime;
  // disposable-email-domains is 120k names of JSON read on first use
  external: ['better-sqlite3', 'bufferutil', 'utf-8-validate', 'electron', 'disposable-email-domains'],
  // CommonJS packages inside an ES module bundle call require(): give them Node's
  banner: { js: "import { createRequire as __hearthCreateRequire } from 'node:module'; const require = __hearthCreateRequire(import.meta.url);" },
  define: { HEARTH_BUILD: JSON.stringify(started.toString(36)) },
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
});
// the delivery worker's entry is plain JavaScript: it starts worker.js next to it (or worker.ts in the sources)
mkdirSync(join(OUT, 'server', 'webhooks'), { recursive: true });
copyFileSync(join(ROOT, 'server', 'webhooks', 'worker-entry.mjs'), join(OUT, 'server', 'webhooks', 'worker-entry.mjs'));
mkdirSync(join(OUT, 'server', 'admin'), { recursive: true });
copyFileSync(join(ROOT, 'server', 'admin', 'import-worker-entry.mjs'), join(OUT, 'server', 'admin', 'import-worker-entry.mjs'));
mkdirSync(join(OUT, 'server', 'crdt'), { recursive: true });
copyFileSync(join(ROOT, 'server', 'crdt', 'yjs-worker-entry.mjs'), join(OUT, 'server', 'crdt', 'yjs-worker-entry.mjs'));
writeFileSync(STAMP, `${new Date().toISOString()}\n`);
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
process.stdout.write(
  `built dist/ in ${Date.now() - started} ms (${Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js')).length} files, ${(bytes / 1e6).toFixed(1)} MB with source maps)\n`,
);
