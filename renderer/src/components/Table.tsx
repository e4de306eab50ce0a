// The one table of the UI: keyset paging (the server's opaque cursors, next and back), a search box, the sort column
// and direction, and the page, all kept in the URL (a filtered or sorted list can be linked to and survives a reload), and rows
// that link to their entity's page. Every sort is the server's: a keyset order on an index, never a client-side
// sort of one page.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Page } from '../../../shared/admin.ts';
import { setQueries, setQuery, useLocation } from '../lib/router.ts';
import { useDebounced, useLoad } from '../lib/use.ts';
import { ErrorBox } from './ui.tsx';

export interface Column<T> {
  id: string;
  label: string;
  render: (row: T) => ComponentChildren;
  /** The server's sort key when the list can be sorted by this column (its keyset order on an index). */
  sort?: string;
  /** The direction the sort starts in when this column is chosen (times and updates: newest first). */
  sortDir?: 'asc' | 'desc';
  class?: string;
}

export interface LoadArgs {
  q: string | undefined;
  /** The chosen column's sort key (the first sortable column's by default). */
  sort: string;
  cursor: string | undefined;
  dir: 'asc' | 'desc';
  limit: number;
}

interface Props<T> {
  id: string;
  caption: string;
  columns: Column<T>[];
  load: (args: LoadArgs) => Promise<Page<T>>;
  rowKey: (row: T) => string;
  /** data-* attributes of a row (what tests and styles find it by). */
  rowData?: (row: T) => Record<string, string>;
  rowClass?: (row: T) => string;
  /** Reloads when these change (the key, the organization…). */
  deps: unknown[];
  search?: string | false;
  defaultDir?: 'asc' | 'desc';
  limit?: number;
  empty?: ComponentChildren;
  /** More filters, shown beside the search box. */
  filters?: ComponentChildren;
  selected?: string | null;
}

export function Table<T>(props: Props<T>) {
  const { query } = useLocation();
  const qParam = `${props.id}-q`;
  const dirParam = `${props.id}-dir`;
  const sortParam = `${props.id}-sort`;
  const [typed, setTyped] = useState(query.get(qParam) ?? '');
  const q = useDebounced(typed.trim(), 250);
  const sortable = props.columns.filter((c) => c.sort !== undefined);
  const sortColumn = sortable.find((c) => c.sort === query.get(sortParam)) ?? sortable[0];
  const sort = sortColumn?.sort ?? '';
  const startDir = (c: Column<T> | undefined) => (c === sortable[0] ? props.defaultDir : undefined) ?? c?.sortDir ?? 'asc';
  const dir = (query.get(dirParam) as 'asc' | 'desc' | null) ?? startDir(sortColumn);
  /** A click on a header: the same column reverses, another one is chosen in its own starting direction. */
  const sortBy = (c: Column<T>) => {
    if (c === sortColumn) return setQuery(dirParam, dir === 'asc' ? 'desc' : 'asc');
    setQueries({ [sortParam]: c === sortable[0] ? null : (c.sort ?? null), [dirParam]: null });
  };
  // The page is in the URL (`<id>-page`, and its keyset cursor `<id>-at`), each page a history entry: a reload or a
  // shared link opens the same page, Back returns to the one before. The cursors of the pages seen before it are
  // kept in memory for "Previous"; a page opened from a link has none, and "Previous" then goes to the first page.
  const pageParam = `${props.id}-page`;
  const atParam = `${props.id}-at`;
  // a cursor belongs to the query it was made for: after a new search, sort or scope it is not sent (the server
  // would refuse it) while the URL is brought back to the first page
  const scope = JSON.stringify([q, sort, dir, ...props.deps.map(String)]);
  const pagedFor = useRef(scope);
  const cursor = pagedFor.current === scope ? (query.get(atParam) ?? undefined) : undefined;
  const pageNumber = cursor ? Math.max(2, Number.parseInt(query.get(pageParam) ?? '2', 10) || 2) : 1;
  const seen = useRef(new Map<number, string | undefined>());
  const goTo = (n: number, at: string | undefined) => setQueries({ [pageParam]: n > 1 && at ? String(n) : null, [atParam]: n > 1 && at ? at : null }, true);
  const firstRun = useRef(true);
  useEffect(() => {
    // a new search, sort or scope starts at the first page (not on the first render: the URL's page is kept)
    if (firstRun.current) firstRun.current = false;
    else {
      pagedFor.current = scope;
      seen.current.clear();
      if (query.get(atParam)) setQueries({ [pageParam]: null, [atParam]: null });
    }
    if ((query.get(qParam) ?? '') !== q) setQuery(qParam, q || null);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [q, sort, dir, ...props.deps]);
  const limit = props.limit ?? 50;
  const page = useLoad(() => props.load({ q: q || undefined, sort, cursor, dir, limit }), [q, sort, dir, cursor, ...props.deps]);
  const rows = page.data?.items ?? [];
  const previousKnown = pageNumber <= 2 || seen.current.has(pageNumber - 1);
  return (
    <div class="table-wrap" id={props.id}>
      {(props.search !== false || props.filters) && (
        <div class="filters" role="search">
          {props.search !== false && (
            <label>
              <span>{props.search ?? 'Search'}</span>
              <input type="search" value={typed} onInput={(e) => setTyped((e.target as HTMLInputElement).value)} placeholder="id or name" data-filter="q" />
            </label>
          )}
          {props.filters}
        </div>
      )}
      <ErrorBox error={page.error} />
      <table>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th key={c.id} scope="col" class={c.class} aria-sort={c === sortColumn ? (dir === 'asc' ? 'ascending' : 'descending') : undefined}>
                {c.sort === undefined ? (
                  c.label
                ) : c === sortColumn ? (
                  <button
                    type="button"
                    class="sort"
                    data-sort={c.sort}
                    onClick={() => sortBy(c)}
                    aria-label={`${c.label}, sorted ${dir === 'asc' ? 'ascending' : 'descending'}; click to reverse`}
                  >
                    {c.label} <span aria-hidden="true">{dir === 'asc' ? '▲' : '▼'}</span>
                  </button>
                ) : (
                  <button type="button" class="sort" data-sort={c.sort} onClick={() => sortBy(c)} aria-label={`${c.label}: sort by it`}>
                    {c.label}{' '}
                    <span aria-hidden="true" class="muted">
                      ↕
                    </span>
                  </button>
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody aria-busy={page.loading}>
          {rows.map((row) => {
            const key = props.rowKey(row);
            const data = Object.fromEntries(Object.entries(props.rowData?.(row) ?? {}).map(([k, v]) => [`data-${k}`, v]));
            return (
              <tr key={key} {...data} class={`${props.rowClass?.(row) ?? ''} ${props.selected === key ? 'selected' : ''}`}>
                {props.columns.map((c) => (
                  <td key={c.id} class={c.class}>
                    {c.render(row)}
                  </td>
                ))}
              </tr>
            );
          })}
          {!page.loading && rows.length === 0 && (
            <tr>
              <td colSpan={props.columns.length} class="muted">
                {props.empty ?? (q ? `Nothing matches “${q}”.` : 'Nothing here yet.')}
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <div class="pager">
        <button
          type="button"
          class="small"
          data-previous
          disabled={pageNumber === 1}
          onClick={() => (previousKnown ? goTo(pageNumber - 1, seen.current.get(pageNumber - 1)) : goTo(1, undefined))}
        >
          {previousKnown ? 'Previous' : 'First page'}
        </button>
        <span class="muted">
          Page {pageNumber}
          {sortColumn ? ` · by ${sortColumn.label.toLowerCase()}` : ''}
        </span>
        <button
          type="button"
          class="small"
          data-next
          disabled={!page.data?.nextCursor}
          onClick={() => {
            const next = page.data?.nextCursor;
            if (!next) return;
            seen.current.set(pageNumber, cursor);
            goTo(pageNumber + 1, next);
          }}
        >
          Next
        </button>
      </div>
    </div>
  );
}
