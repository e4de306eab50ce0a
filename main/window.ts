import { BrowserWindow } from 'electron';
import { lockDown } from './security.ts';
import { loadWindowState, rememberWindowState } from './window-state.ts';

let window: BrowserWindow | undefined;

/**
 * The one window, on the local admin UI: isolated, sandboxed, no Node in the page. It opens where it was last
 * (window-state.ts) and signs in with a fresh one-time link (`entry` mints it), so nothing else on the machine
 * signs in the way the window does.
 */
export function showWindow(origin: string, entry: () => string): BrowserWindow {
  if (window) {
    if (window.isMinimized()) window.restore();
    window.focus();
    return window;
  }
  const state = loadWindowState();
  const created = new BrowserWindow({
    ...(state.saved ? state.bounds : { width: state.bounds.width, height: state.bounds.height }),
    minWidth: 800,
    minHeight: 500,
    title: 'Hearth',
    show: false,
    webPreferences: { contextIsolation: true, nodeIntegration: false, sandbox: true, webviewTag: false },
  });
  if (state.maximized) created.maximize();
  created.once('ready-to-show', () => created.show());
  rememberWindowState(created);
  lockDown(created.webContents, new URL(origin).origin);
  created.on('closed', () => (window = undefined));
  void created.loadURL(entry());
  window = created;
  return created;
}
