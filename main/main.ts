import { app } from 'electron';
import type { HearthServer } from '../server/index.ts';
import { removeTray, installMenus } from './menu.ts';
import { dataDir } from './paths.ts';
import { denyPermissions } from './security.ts';
import { startServer } from './server.ts';
import { showWindow } from './window.ts';

/**
 * The desktop shell: one instance; the server in-process on loopback (main/server.ts), data under the OS
 * user-data folder (main/paths.ts); a locked-down window on its admin UI, signed in with a one-time link and
 * opened where it was last (main/window.ts, main/window-state.ts, main/security.ts); menus and a tray with
 * "Open data folder" and "Copy credentials" (main/menu.ts). Quitting stores every document and closes the database first.
 */
let server: HearthServer | undefined;

/** The window on the UI, signed in with a fresh one-time link (the server's sessions live in its memory). */
function open() {
  const running = server;
  if (running) showWindow(running.url, () => running.signInLink());
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => open());
  // Hearth keeps serving with its window closed only where apps usually do (macOS); elsewhere closing quits.
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => open());
  app.on('before-quit', (event) => {
    if (!server) return;
    event.preventDefault();
    const closing = server;
    server = undefined;
    removeTray();
    void closing.close().finally(() => app.quit());
  });
  void app.whenReady().then(async () => {
    denyPermissions();
    try {
      server = await startServer();
    } catch (error) {
      console.error('Hearth could not start:', error);
      app.exit(1);
      return;
    }
    installMenus(server.url, dataDir(), open);
    open();
    // for scripts and the desktop test: where the server listens
    console.log(`Hearth desktop: API ${server.url}`);
  });
}
