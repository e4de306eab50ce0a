import { join } from 'node:path';
import { app, BrowserWindow, shell } from 'electron';
import { createServer, type HearthServer } from '../server/index.ts';

/**
 * The desktop shell: one instance, the server in-process on loopback (data under the OS user-data folder
 * unless HEARTH_DATA_DIR says otherwise), and a locked-down window on its admin UI.
 */
let server: HearthServer | undefined;
let window: BrowserWindow | undefined;

async function startServer(): Promise<HearthServer> {
  const dataDir = process.env.HEARTH_DATA_DIR ?? join(app.getPath('userData'), 'data');
  const port = Number(process.env.PORT ?? 8787);
  try {
    return await createServer({ dataDir, port, host: '127.0.0.1' });
  } catch (error) {
    // Another Hearth (say `npm start`) holds the port: run on a free one rather than not at all.
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    return createServer({ dataDir, port: 0, host: '127.0.0.1' });
  }
}

function openWindow(url: string) {
  window = new BrowserWindow({
    width: 1280,
    height: 860,
    title: 'Hearth',
    webPreferences: { contextIsolation: true, nodeIntegration: false, sandbox: true },
  });
  window.webContents.setWindowOpenHandler(({ url: target }) => {
    void shell.openExternal(target);
    return { action: 'deny' };
  });
  window.webContents.on('will-navigate', (event, target) => {
    if (new URL(target).origin !== new URL(url).origin) {
      event.preventDefault();
      void shell.openExternal(target);
    }
  });
  window.on('closed', () => (window = undefined));
  void window.loadURL(`${url}/`);
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (window?.isMinimized()) window.restore();
    window?.focus();
  });
  app.on('window-all-closed', () => app.quit());
  app.on('before-quit', (event) => {
    if (!server) return;
    // Close the server (in-flight requests, database) before Electron exits.
    event.preventDefault();
    const closing = server;
    server = undefined;
    void closing.close().finally(() => app.quit());
  });
  void app.whenReady().then(async () => {
    server = await startServer();
    openWindow(server.url);
  });
}
