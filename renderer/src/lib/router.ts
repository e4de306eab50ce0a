// Client-side routes on the history API: deep-linkable URLs (the server answers index.html for any unknown GET
// path), back and forward, and links that stay ordinary <a href> elements (open in a new tab works).
import { useEffect, useState } from 'preact/hooks';

export interface Location {
  path: string;
  query: URLSearchParams;
}

const listeners = new Set<() => void>();
const read = (): Location => ({ path: location.pathname, query: new URLSearchParams(location.search) });
let current = read();

function changed() {
  current = read();
  for (const listener of listeners) listener();
}
window.addEventListener('popstate', changed);

/** Goes to `href` (a path with an optional query) without reloading; `replace` keeps the history entry. */
export function navigate(href: string, replace = false, scroll = !replace) {
  if (href === location.pathname + location.search) return;
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  changed();
  if (scroll) window.scrollTo(0, 0);
}

/**
 * Changes one query parameter of the current URL: filters as typed keep the history entry; `push` (tabs) makes
 * one, so that back and forward move between them.
 */
export function setQuery(name: string, value: string | null, push = false) {
  const query = new URLSearchParams(location.search);
  if (value === null || value === '') query.delete(name);
  else query.set(name, value);
  const text = query.toString();
  navigate(location.pathname + (text ? `?${text}` : ''), !push, false);
}

/** Sets several query parameters in one history entry (null removes one); `push` makes a new entry (a page of a list). */
export function setQueries(values: Record<string, string | null>, push = false) {
  const query = new URLSearchParams(location.search);
  for (const [name, value] of Object.entries(values)) {
    if (value === null || value === '') query.delete(name);
    else query.set(name, value);
  }
  const text = query.toString();
  navigate(location.pathname + (text ? `?${text}` : ''), !push, false);
}

export function useLocation(): Location {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = () => setTick((n) => n + 1);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return current;
}

/** Clicks on same-origin links become navigations (modified clicks and other targets keep the browser's way). */
export function interceptLinks(root: HTMLElement) {
  root.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as HTMLElement).closest('a');
    if (!anchor || anchor.target || anchor.hasAttribute('download') || anchor.origin !== location.origin) return;
    // a link within the page (the skip link): the browser scrolls and moves the focus
    if (anchor.hash && anchor.pathname === location.pathname && anchor.search === location.search) return;
    if (anchor.pathname.startsWith('/admin/') || anchor.pathname.startsWith('/attachments/') || anchor.pathname === '/openapi.json') return;
    event.preventDefault();
    navigate(anchor.pathname + anchor.search);
  });
}

export type Params = Record<string, string>;

/** Matches `/k/:apiKey/orgs/:org` against a path; params are decoded. */
export function match(pattern: string, path: string): Params | null {
  const want = pattern.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Params = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] as string;
    const h = have[i] as string;
    if (w.startsWith(':')) {
      try {
        params[w.slice(1)] = decodeURIComponent(h);
      } catch {
        return null;
      }
    } else if (w !== h) return null;
  }
  return params;
}

/** A path from segments, each encoded: `href('k', key, 'orgs', id)`. */
export const href = (...segments: string[]) => `/${segments.map(encodeURIComponent).join('/')}`;
