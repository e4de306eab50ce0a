// Where Hearth's own files are (not the data dir's): the package root, found from this module whether it runs
// from the TypeScript sources (server/paths.ts), from the build (dist/server/paths.js) or inside a packaged
// desktop app (the app's root, next to its package.json). Everything read from the package at run time is named
// here, so that no module counts `../` from wherever it was compiled to.
import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`Hearth's package.json was not found above ${from}`);
  }
}

/** Set by scripts/build.mjs in the bundles of dist/; undefined in the TypeScript sources. */
declare const HEARTH_BUILD: string | undefined;

/** The folder of Hearth's package.json. */
export const PACKAGE_ROOT = packageRoot(dirname(fileURLToPath(import.meta.url)));
/** Where the running code's files are: dist/ for the build, the package root for the sources. */
export const CODE_ROOT = typeof HEARTH_BUILD === 'string' ? join(PACKAGE_ROOT, 'dist') : PACKAGE_ROOT;
/**
 * The delivery worker thread's entry (plain JavaScript, beside worker.ts or the built worker.js). Packaged in
 * Electron it is unpacked next to the asar archive (electron-builder.yml asarUnpack): a worker's entry must be a
 * real file.
 */
export const WORKER_ENTRY = join(CODE_ROOT, 'server', 'webhooks', 'worker-entry.mjs').replace(`app.asar${sep}`, `app.asar.unpacked${sep}`);
/** The admin import reader thread's entry (admin/import-worker.ts), found and packaged as WORKER_ENTRY is. */
export const IMPORT_WORKER_ENTRY = join(CODE_ROOT, 'server', 'admin', 'import-worker-entry.mjs').replace(`app.asar${sep}`, `app.asar.unpacked${sep}`);
/** The Yjs worker thread's entry (crdt/yjs-worker.ts), found and packaged as WORKER_ENTRY is. */
export const YJS_WORKER_ENTRY = join(CODE_ROOT, 'server', 'crdt', 'yjs-worker-entry.mjs').replace(`app.asar${sep}`, `app.asar.unpacked${sep}`);
export const PACKAGE_JSON = join(PACKAGE_ROOT, 'package.json');
/** The committed drizzle-kit migrations (SQL and journal). */
export const MIGRATIONS_DIR = join(PACKAGE_ROOT, 'server', 'db', 'migrations');
/** PostgreSQL's migrations (drizzle-kit's pg dialect, from the same schema). */
export const PG_MIGRATIONS_DIR = join(PACKAGE_ROOT, 'server', 'db', 'pg', 'migrations');
/** The built admin UI (npm run build:renderer). */
export const RENDERER_DIST = join(PACKAGE_ROOT, 'renderer', 'dist');
/** Static lists the server reads (regions). */
export const RESOURCES_DIR = join(PACKAGE_ROOT, 'resources');
