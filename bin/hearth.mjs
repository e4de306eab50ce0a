#!/usr/bin/env node
// The `hearth` command of the package (package.json "bin"): runs server/cli.ts through tsx (a runtime
// dependency) in this same process, so signals, stdin/stdout and the exit code are the CLI's own. The package's
// own tsconfig is used whatever the working directory is (a project's tsconfig there must not change how Hearth
// compiles).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(`hearth: Node.js 20.19 or newer is needed (this is ${process.versions.node})\n`);
  process.exit(1);
}

const tsconfig = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
const { register } = await import('tsx/esm/api');
register({ tsconfig: existsSync(tsconfig) ? tsconfig : false });
await import(new URL('../server/cli.ts', import.meta.url).href);
