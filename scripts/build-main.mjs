// Compiles the Electron main process and the server it starts into dist/, with the files they read at run
// time (migrations, resources, package.json) at the same relative places as in the source tree.
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'main/tsconfig.json'], { stdio: 'inherit' });
cpSync('server/db/migrations', 'dist/server/db/migrations', { recursive: true });
cpSync('server/webhooks/worker-entry.mjs', 'dist/server/webhooks/worker-entry.mjs');
cpSync('resources', 'dist/resources', { recursive: true });
cpSync('renderer/dist', 'dist/renderer/dist', { recursive: true });
cpSync('package.json', 'dist/package.json');
