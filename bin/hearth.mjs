#!/usr/bin/env node
// The `hearth` command of the package (package.json "bin") and `npm start`: runs the server and CLI built into
// dist/ by `npm install` (scripts/build.mjs), in this same process, so signals, stdin/stdout and the exit code
// are the CLI's own. When the build is missing or older than a source file (a checkout being edited), it runs the
// TypeScript sources through tsx instead, so what runs is always what is in the tree; `npm run build` makes the
// next start fast again.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  const message = `Node.js 20.19 or newer is needed (this is ${process.versions.node})`;
  // in the log format, as the CLI writes its other fatal failures (server/cli/run.ts)
  process.stderr.write(
    process.env.LOG_FORMAT?.toLowerCase() === 'json'
      ? `${JSON.stringify({ time: new Date().toISOString(), level: 'error', msg: message, exitCode: 1 })}\n`
      : `hearth: ${message}\n`,
  );
  process.exit(1);
}

const root = fileURLToPath(new URL('..', import.meta.url));
const built = `${root}dist/server/cli.js`;
const stamp = `${root}dist/.build-stamp`;

/** The newest modification time of the sources the build is made from (a few hundred stats: about 5 ms). */
function newestSource() {
  let newest = statSync(`${root}package.json`).mtimeMs;
  for (const folder of ['server', 'shared']) {
    if (!existsSync(`${root}${folder}`)) continue;
    for (const entry of readdirSync(`${root}${folder}`, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const mtime = statSync(`${entry.parentPath}/${entry.name}`).mtimeMs;
      if (mtime > newest) newest = mtime;
    }
  }
  return newest;
}

// An installed package has no TypeScript sources (package.json "files": its server/ holds the migrations only):
// its build is what runs, whatever the file times the tarball's extraction gave.
const fresh = existsSync(built) && existsSync(stamp) && (!existsSync(`${root}server/cli.ts`) || statSync(stamp).mtimeMs >= newestSource());
if (fresh) {
  await import(new URL('../dist/server/cli.js', import.meta.url).href);
} else {
  // said to a person at a terminal only: scripts and pipes get the CLI's own output and nothing else
  if (existsSync(`${root}server/cli.ts`) && process.stderr.isTTY) {
    process.stderr.write(
      `hearth: running the TypeScript sources (${existsSync(built) ? 'the build in dist/ is older than them' : 'no build in dist/'}); npm run build makes start-up faster\n`,
    );
  }
  // The package's own tsconfig, whatever the working directory is (a project's tsconfig there must not change
  // how Hearth compiles).
  const tsconfig = `${root}tsconfig.json`;
  const { register } = await import('tsx/esm/api');
  register({ tsconfig: existsSync(tsconfig) ? tsconfig : false });
  await import(new URL('../server/cli.ts', import.meta.url).href);
}
