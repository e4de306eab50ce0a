// The shell: navigation, the API-key picker, the theme switch, the command palette, and the page the URL names.
import type { ComponentType } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { Palette, type Command } from './components/Palette.tsx';
import { api, onSignedOut } from './lib/api.ts';
import { keyLabel, SessionContext, type Session } from './lib/keys.ts';
import { links } from './lib/links.ts';
import { match, navigate, useLocation, type Params } from './lib/router.ts';
import { SignIn } from './pages/SignIn.tsx';

type Loader = () => Promise<{ default: ComponentType<{ params: Params }> }>;

// pages reached by two patterns (a list, and the list with one item open) share one loader: the page stays mounted
const LIVE: Loader = () => import('./pages/Live.tsx');
const REQUESTS: Loader = () => import('./pages/Requests.tsx');
const MAILBOX: Loader = () => import('./pages/Mailbox.tsx');

/** The routes: a page per entity, each in a chunk of its own (loaded on first visit). */
const ROUTES: Array<{ pattern: string; load: Loader; section: string }> = [
  { pattern: '/', load: () => import('./pages/Dashboard.tsx'), section: 'dashboard' },
  { pattern: '/k/:apiKey', load: () => import('./pages/Key.tsx'), section: 'workspace' },
  { pattern: '/k/:apiKey/organizations', load: () => import('./pages/Organizations.tsx'), section: 'data' },
  { pattern: '/k/:apiKey/organizations/:organizationId', load: () => import('./pages/Organization.tsx'), section: 'data' },
  { pattern: '/k/:apiKey/organizations/:organizationId/documents/:documentId', load: () => import('./pages/Document.tsx'), section: 'data' },
  { pattern: '/k/:apiKey/users', load: () => import('./pages/Users.tsx'), section: 'users' },
  { pattern: '/k/:apiKey/users/:userId', load: () => import('./pages/User.tsx'), section: 'users' },
  { pattern: '/k/:apiKey/live', load: LIVE, section: 'live' },
  { pattern: '/k/:apiKey/live/:organizationId/:documentId/:editorId', load: LIVE, section: 'live' },
  { pattern: '/k/:apiKey/webhooks', load: () => import('./pages/Webhooks.tsx'), section: 'webhooks' },
  { pattern: '/k/:apiKey/webhooks/:endpointId', load: () => import('./pages/Endpoint.tsx'), section: 'webhooks' },
  { pattern: '/deliveries', load: () => import('./pages/Deliveries.tsx'), section: 'webhooks' },
  { pattern: '/requests', load: REQUESTS, section: 'requests' },
  { pattern: '/requests/:id', load: REQUESTS, section: 'requests' },
  { pattern: '/explorer', load: () => import('./pages/Explorer.tsx'), section: 'explorer' },
  { pattern: '/mailbox', load: MAILBOX, section: 'mailbox' },
  { pattern: '/mailbox/:id', load: MAILBOX, section: 'mailbox' },
  { pattern: '/workspace', load: () => import('./pages/Workspace.tsx'), section: 'workspace' },
  { pattern: '/data', load: () => import('./pages/DataTools.tsx'), section: 'datatools' },
  { pattern: '/operations', load: () => import('./pages/Operations.tsx'), section: 'operations' },
];

/** Per-key sections: /organizations etc. without a key go to the first key's. */
const KEYED = ['organizations', 'users', 'live', 'webhooks'];

function Lazy({ load, params }: { load: Loader; params: Params }) {
  const [Page, setPage] = useState<ComponentType<{ params: Params }> | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    let stale = false;
    setFailed(null);
    load().then(
      (module) => !stale && setPage(() => module.default),
      (error: unknown) => !stale && setFailed(String(error)),
    );
    return () => void (stale = true);
  }, [load]);
  if (failed) return <p class="error">This page could not be loaded: {failed}</p>;
  return Page ? <Page params={params} /> : <p class="muted">Loading…</p>;
}

type Theme = 'light' | 'dark';
const storedTheme = (): Theme => {
  const saved = localStorage.getItem('hearth-theme');
  if (saved === 'light' || saved === 'dark') return saved;
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
};

export function App() {
  const [session, setSession] = useState<Session | null | 'checking'>('checking');
  const [palette, setPalette] = useState(false);
  const [theme, setTheme] = useState<Theme>(storedTheme);
  const [navOpen, setNavOpen] = useState(false);
  const { path } = useLocation();

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('hearth-theme', theme);
  }, [theme]);

  const start = useCallback(async () => {
    try {
      const s = await api.session();
      if (!s.signedIn || !s.workspaceId) {
        setSession(null);
        return;
      }
      const workspaceId = s.workspaceId;
      const holder: Session = { workspaceId, keys: (await api.keys()).items, reloadKeys: async () => undefined };
      holder.reloadKeys = async () => {
        const keys = (await api.keys()).items;
        setSession((prev) => (prev && prev !== 'checking' ? { ...prev, keys } : prev));
      };
      setSession(holder);
    } catch {
      setSession(null);
    }
  }, []);
  useEffect(() => {
    void start();
    return onSignedOut(() => setSession(null));
  }, [start]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const typing = event.target instanceof HTMLElement && (['INPUT', 'TEXTAREA', 'SELECT'].includes(event.target.tagName) || event.target.isContentEditable);
      if ((event.key === 'k' && (event.ctrlKey || event.metaKey)) || (event.key === '/' && !typing)) {
        event.preventDefault();
        setPalette(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => setNavOpen(false), [path]);
  // after a navigation (not the first load) the focus goes to the page, not left in the sidebar or on a removed
  // element: the next Tab reaches the page's first control, and a screen reader starts reading it
  const firstPath = useRef(true);
  useEffect(() => {
    if (firstPath.current) {
      firstPath.current = false;
      return;
    }
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [path]);

  if (session === 'checking') return <p class="muted boot">Loading…</p>;
  if (session === null) return <SignIn onSignedIn={() => void start()} />;

  const keyInPath = path.startsWith('/k/') ? safeDecode(path.split('/')[2] ?? '') : undefined;
  const currentKey = session.keys.find((k) => k.apiKey === keyInPath)?.apiKey ?? session.keys[0]?.apiKey ?? '';
  // /organizations and the other per-key sections without a key: the current key's
  const section = path.split('/')[1] ?? '';
  if (KEYED.includes(section) && currentKey) {
    // after this render: a navigation updates the location's listeners, this component among them
    queueMicrotask(() => navigate(`/k/${encodeURIComponent(currentKey)}${location.pathname}${location.search}`, true));
    return null;
  }
  const route = ROUTES.map((r) => ({ r, params: match(r.pattern, path) })).find((m) => m.params !== null);
  const active = route?.r.section ?? '';

  const nav: Array<{ id: string; label: string; href: string }> = [
    { id: 'dashboard', label: 'Dashboard', href: links.dashboard() },
    { id: 'data', label: 'Organizations', href: links.organizations(currentKey) },
    { id: 'users', label: 'Users', href: links.users(currentKey) },
    { id: 'live', label: 'Live documents', href: links.crdtList(currentKey) },
    { id: 'requests', label: 'Requests', href: links.requests() },
    { id: 'explorer', label: 'API explorer', href: links.explorer() },
    { id: 'webhooks', label: 'Webhooks', href: links.webhooks(currentKey) },
    { id: 'mailbox', label: 'Mailbox', href: links.mailbox() },
    { id: 'workspace', label: 'Workspace', href: links.workspace() },
    { id: 'datatools', label: 'Import, export, reset', href: links.data() },
    { id: 'operations', label: 'Operations', href: links.operations() },
  ];
  const commands: Command[] = nav.map((n) => ({ label: n.label, href: n.href }));
  const switchKey = (apiKey: string) => {
    if (keyInPath)
      navigate(
        path
          .replace(`/k/${encodeURIComponent(keyInPath)}`, `/k/${encodeURIComponent(apiKey)}`)
          .split('/')
          .slice(0, 4)
          .join('/'),
      );
    else navigate(links.organizations(apiKey));
  };

  return (
    <SessionContext.Provider value={session}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <button type="button" class="menu-toggle" aria-expanded={navOpen} aria-controls="nav" onClick={() => setNavOpen(!navOpen)}>
          Menu
        </button>
        <a class="brand" href="/">
          Hearth
        </a>
        <button type="button" class="search-button" onClick={() => setPalette(true)} aria-keyshortcuts="Control+K">
          Search… <kbd>Ctrl K</kbd>
        </button>
        <label class="key-picker">
          <span>API key</span>
          <select id="key-picker" aria-label="API key" value={currentKey} onChange={(e) => switchKey((e.target as HTMLSelectElement).value)}>
            {session.keys.map((k) => (
              <option key={k.apiKey} value={k.apiKey}>
                {keyLabel(k)}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          id="theme-toggle"
          class="small"
          aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}
          onClick={() => setTheme(theme === 'dark' ? 'light' : 'dark')}
        >
          {theme === 'dark' ? 'Light' : 'Dark'}
        </button>
        <button
          type="button"
          id="sign-out"
          class="small"
          onClick={async () => {
            await api.signOut();
            setSession(null);
          }}
        >
          Sign out
        </button>
      </header>
      <div class="layout">
        <nav id="nav" class={navOpen ? 'open' : ''} aria-label="Sections">
          <ul>
            {nav.map((n) => (
              <li key={n.id}>
                <a href={n.href} aria-current={n.id === active ? 'page' : undefined} data-nav={n.id}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          {route ? <Lazy key={String(ROUTES.findIndex((r) => r.load === route.r.load))} load={route.r.load} params={route.params as Params} /> : <NotFound />}
        </main>
      </div>
      <Palette commands={commands} open={palette} onClose={() => setPalette(false)} />
    </SessionContext.Provider>
  );
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        No page here. <a href="/">Go to the dashboard</a>, or press <kbd>Ctrl K</kbd> to search.
      </p>
    </section>
  );
}
