import { BrowserWindow } from 'electron';
import { lockDown } from './security.ts';

let window: BrowserWindow | undefined;

/** The one window, on the local admin UI: isolated, sandboxed, no Node in the page. */
export function showWindow(url: string): BrowserWindow {
  if (window) {
    if (window.isMinimized()) window.restore();
    window.focus();
    return window;
  }
  const created = new BrowserWindow({
    width: 1280,
    height: 860,
    title: 'Hearth',
    webPreferences: { contextIsolation: true, nodeIntegration: false, sandbox: true, webviewTag: false },
  });
  lockDown(created.webContents, new URL(url).origin);
  created.on('closed', () => (window = undefined));
  void created.loadURL(`${url}/`);
  window = created;
  return created;
}
