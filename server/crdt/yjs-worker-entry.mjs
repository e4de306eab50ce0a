// Starts the Yjs worker: its TypeScript source through tsx in a source tree (a worker thread does not inherit the
// loader that runs the main thread's TypeScript), or the compiled yjs-worker.js in dist/.
import { existsSync } from 'node:fs';

const source = new URL('./yjs-worker.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  // Packaged in Electron only this file is unpacked next to the asar archive; the compiled worker is inside it.
  await import(new URL('./yjs-worker.js', import.meta.url).href.replace('/app.asar.unpacked/', '/app.asar/'));
}
