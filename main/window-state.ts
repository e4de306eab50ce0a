import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { app, screen, type BrowserWindow, type Rectangle } from 'electron';

/** Where and how big the window was: a small JSON file in the app's user-data folder. */
export interface WindowState {
  bounds: Rectangle;
  maximized: boolean;
}

const DEFAULT: WindowState = { bounds: { x: 0, y: 0, width: 1280, height: 860 }, maximized: false };
const file = () => join(app.getPath('userData'), 'window-state.json');

const isRect = (value: unknown): value is Rectangle =>
  !!value && typeof value === 'object' && ['x', 'y', 'width', 'height'].every((k) => Number.isFinite((value as Record<string, unknown>)[k]));

/**
 * The saved state, when it is readable and its window would still be on a display (a monitor unplugged since
 * leaves it off screen otherwise); the default size, centred by Electron, else.
 */
export function loadWindowState(): WindowState & { saved: boolean } {
  try {
    const parsed = JSON.parse(readFileSync(file(), 'utf8')) as unknown;
    const bounds = (parsed as { bounds?: unknown }).bounds;
    if (!isRect(bounds) || bounds.width < 400 || bounds.height < 300) return { ...DEFAULT, saved: false };
    const visible = screen
      .getAllDisplays()
      .some(({ workArea: a }) => bounds.x < a.x + a.width - 50 && bounds.x + bounds.width > a.x + 50 && bounds.y >= a.y - 10 && bounds.y < a.y + a.height - 50);
    if (!visible) return { ...DEFAULT, saved: false };
    return { bounds, maximized: (parsed as { maximized?: unknown }).maximized === true, saved: true };
  } catch {
    return { ...DEFAULT, saved: false };
  }
}

/** Saves the window's bounds (its normal ones when maximized) when it moves, resizes or closes. */
export function rememberWindowState(window: BrowserWindow) {
  let timer: NodeJS.Timeout | undefined;
  const save = () => {
    if (window.isDestroyed()) return;
    const state: WindowState = { bounds: window.getNormalBounds(), maximized: window.isMaximized() };
    try {
      writeFileSync(file(), JSON.stringify(state), { mode: 0o600 });
    } catch {
      // a read-only profile: the window opens at the default size next time
    }
  };
  const soon = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(save, 500);
  };
  window.on('resize', soon);
  window.on('move', soon);
  window.on('close', () => {
    if (timer) clearTimeout(timer);
    save();
  });
}
