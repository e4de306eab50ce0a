import { session, shell, type WebContents } from 'electron';

/**
 * The window shows Hearth's own UI and nothing else: no new windows (links open in the OS browser), no
 * navigation to other origins, no permission grants (camera, notifications, …), no webviews.
 */
export function lockDown(contents: WebContents, origin: string) {
  contents.setWindowOpenHandler(({ url }) => {
    if (/^https?:/.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    if (new URL(url).origin !== origin) {
      event.preventDefault();
      if (/^https?:/.test(url)) void shell.openExternal(url);
    }
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

export function denyPermissions() {
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
}
