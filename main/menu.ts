import { app, clipboard, Menu, nativeImage, shell, Tray } from 'electron';
import { showWindow } from './window.ts';

let tray: Tray | undefined;

/** The application menu and a tray icon: open the UI, copy the API URL, open the data folder, quit. */
export function installMenus(url: string, dataDir: string) {
  const items = [
    { label: 'Open Hearth', click: () => showWindow(url) },
    { label: 'Copy API URL', click: () => clipboard.writeText(url) },
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
