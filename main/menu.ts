import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { app, clipboard, dialog, Menu, nativeImage, shell, Tray } from 'electron';

let tray: Tray | undefined;

/** The default workspace's credentials as the data dir keeps them (credentials.json), for scripts. */
function copyCredentials(dataDir: string) {
  try {
    const credentials = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as Record<string, string>;
    clipboard.writeText(JSON.stringify(credentials, null, 2));
  } catch (error) {
    void dialog.showMessageBox({
      type: 'error',
      message: 'The credentials could not be read.',
      detail: `${join(dataDir, 'credentials.json')}: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
}

/**
 * The application menu and a tray icon: open the UI, copy the API URL or the default credentials, open the data
 * folder, quit.
 */
export function installMenus(url: string, dataDir: string, open: () => void) {
  const items = [
    { label: 'Open Hearth', click: open },
    { label: 'Copy API URL', click: () => clipboard.writeText(url) },
    { label: 'Copy credentials', click: () => copyCredentials(dataDir) },
    { label: 'Open data folder', click: () => void shell.openPath(dataDir) },
    { type: 'separator' as const },
    { label: 'Quit Hearth', click: () => app.quit() },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate([{ label: 'Hearth', submenu: items }, { role: 'editMenu' }, { role: 'viewMenu' }, { role: 'windowMenu' }]));
  try {
    tray = new Tray(nativeImage.createEmpty());
    tray.setToolTip(`Hearth on ${url}`);
    tray.setContextMenu(Menu.buildFromTemplate(items));
  } catch {
    // no system tray on this desktop (some Linux sessions): the window and the menu are enough
  }
}

export function removeTray() {
  tray?.destroy();
  tray = undefined;
}
