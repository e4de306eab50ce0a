// The command palette (Ctrl+K, ⌘K or /): the UI's pages, and the workspace's organizations, folders, documents,
// users, keys and webhook endpoints by id or name (GET /admin/api/search), and the request monitor's calls by request
// id. Arrow keys choose, Enter opens.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { SearchHit } from '../../../shared/admin.ts';
import { api } from '../lib/api.ts';
import { links } from '../lib/links.ts';
import { navigate } from '../lib/router.ts';
import { useDebounced } from '../lib/use.ts';

export interface Command {
  label: string;
  href: string;
  hint?: string;
}

interface Choice {
  key: string;
  label: string;
  hint: string;
  href: string;
}

export function Palette({ commands, open, onClose }: { commands: Command[]; open: boolean; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const input = useRef<HTMLInputElement>(null);
  // A dialog's close event comes later, as a task: the one of a close() made here (the palette closing itself) may
  // arrive after the shortcut opened the palette again, and must not close it then. Only a close the browser made
  // (Escape) tells the shell.
  const closedHere = useRef(false);
  const [typed, setTyped] = useState('');
  const [hits, setHits] = useState<SearchHit[]>([]);
  const [calls, setCalls] = useState<Choice[]>([]);
  const [searching, setSearching] = useState(false);
  const [active, setActive] = useState(0);
  const q = useDebounced(typed.trim(), 150);

  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (open && !el.open) {
      el.showModal();
      setTyped('');
      setHits([]);
      setActive(0);
      input.current?.focus();
    } else if (!open && el.open) {
      closedHere.current = true;
      el.close();
    }
  }, [open]);
  const onDialogClose = () => {
    if (closedHere.current) closedHere.current = false;
    else onClose();
  };

  useEffect(() => {
    if (!q) {
      setHits([]);
      setCalls([]);
      return;
    }
    let stale = false;
    // a request id (or its first characters, as a log line or an error answer shows it): the monitor's calls
    setCalls([]);
    if (/^[0-9a-f-]{4,36}$/i.test(q))
      api.requests().then(
        (answer) =>
          !stale &&
          setCalls(
            answer.items
              .filter((c) => c.requestId.toLowerCase().startsWith(q.toLowerCase()))
              .slice(0, 5)
              .map((c) => ({
                key: `request:${c.id}`,
                label: `${c.method} ${c.path} → ${c.status}`,
                hint: `request ${c.requestId.slice(0, 8)}`,
                href: links.request(c.id),
              })),
          ),
        () => undefined,
      );
    setSearching(true);
    api.search(q).then(
      (answer) => {
        if (!stale) {
          setHits(answer.items);
          setActive(0);
          setSearching(false);
        }
      },
      () => !stale && setSearching(false),
    );
    return () => void (stale = true);
  }, [q]);

  const words = typed.trim().toLowerCase();
  const pages: Choice[] = commands
    .filter((c) => !words || c.label.toLowerCase().includes(words))
    .map((c) => ({ key: `page:${c.href}`, label: c.label, hint: c.hint ?? 'page', href: c.href }));
  const found: Choice[] = hits.map((h) => ({
    key: `${h.kind}:${h.apiKey}:${h.organizationId ?? ''}:${h.id}`,
    label: h.label,
    hint: h.organizationId ? `${h.kind} in ${h.organizationId}` : h.kind,
    href: h.href,
  }));
  const choices = [...calls, ...found, ...pages].slice(0, 30);

  const go = (choice: Choice | undefined) => {
    if (!choice) return;
    onClose();
    navigate(choice.href);
  };
  const onKey = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown') setActive((a) => Math.min(a + 1, choices.length - 1));
    else if (event.key === 'ArrowUp') setActive((a) => Math.max(a - 1, 0));
    else if (event.key === 'Enter') go(choices[active]);
    else return;
    event.preventDefault();
  };

  return (
    <dialog ref={dialog} class="palette" aria-label="Search and go to" onClose={onDialogClose} onClick={(e) => e.target === dialog.current && onClose()}>
      <input
        ref={input}
        id="palette-input"
        type="search"
        list={undefined}
        role="combobox"
        aria-expanded={choices.length > 0}
        aria-controls="palette-results"
        aria-activedescendant={choices[active] ? `palette-${active}` : undefined}
        aria-autocomplete="list"
        aria-label="Search organizations, documents, users, keys, webhooks, or pages"
        placeholder="Search by id or name, or a page…"
        value={typed}
        onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
        onKeyDown={onKey}
      />
      <ul id="palette-results" role="listbox" aria-label="Results">
        {choices.map((c, i) => (
          <li
            key={c.key}
            id={`palette-${i}`}
            role="option"
            aria-selected={i === active}
            class={i === active ? 'active' : ''}
            onMouseEnter={() => setActive(i)}
            onClick={() => go(c)}
          >
            <span class="label">{c.label}</span>
            <span class="hint">{c.hint}</span>
          </li>
        ))}
        {q && !searching && choices.length === 0 && <li class="muted">Nothing found for “{q}”.</li>}
      </ul>
      <p class="muted palette-help">↑ ↓ to choose · Enter to open · Esc to close</p>
    </dialog>
  );
}
