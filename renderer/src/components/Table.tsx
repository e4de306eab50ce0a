// The one table of the UI: keyset paging (the server's opaque cursors, next and back), a search box and the sort
// direction, both kept in the URL (a filtered list can be linked to and survives a reload), and rows that link to
// their entity's page.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Page } from '../../../shared/admin.ts';
import { setQuery, useLocation } from '../lib/router.ts';
import { useDebounced, useLoad } from '../lib/use.ts';
import { ErrorBox } from './ui.tsx';

export interface Column<T> {
  id: string;
  label: string;
  render: (row: T) => ComponentChildren;
  /** The column the list is sorted by (one per table: the server's keyset order). */
  sort?: boolean;
  class?: string;
}

export interface LoadArgs {
  q: string | undefined;
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
  const [typed, setTyped] = useState(query.get(qParam) ?? '');
  const q = useDebounced(typed.trim(), 250);
  const dir = (query.get(dirParam) as 'asc' | 'desc' | null) ?? props.defaultDir ?? 'asc';
  // the cursors of the pages before this one: "Previous" pops
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  useEffect(() => {
    setCursors([]);
    if ((query.get(qParam) ?? '') !== q) setQuery(qParam, q || null);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [q, dir, ...props.deps]);
  const limit = props.limit ?? 50;
  const page = useLoad(() => props.load({ q: q || undefined, cursor, dir, limit }), [q, dir, cursor, ...props.deps]);
  const rows = page.data?.items ?? [];
  const sortColumn = props.columns.find((c) => c.sort);
  const pageNumber = cursors.length + 1;
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
              <th key={c.id} scope="col" class={c.class} aria-sort={c.sort ? (dir === 'asc' ? 'ascending' : 'descending') : undefined}>
                {c.sort ? (
                  <button type="button" class="sort" onClick={() => setQuery(dirParam, dir === 'asc' ? 'desc' : 'asc')} aria-label={`${c.label}, sorted ${dir === 'asc' ? 'ascending' : 'descending'}; click to reverse`}>
                    {c.label} <span aria-hidden="true">{dir === 'asc' ? '▲' : '▼'}</span>
                  </button>
                ) : (
                  c.label
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
        <button type="button" class="small" disabled={cursors.length === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Previous
        </button>
        <span class="muted">
          Page {pageNumber}
          {sortColumn ? ` · by ${sortColumn.label.toLowerCase()}` : ''}
        </span>
        <button type="button" class="small" data-next disabled={!page.data?.nextCursor} onClick={() => page.data?.nextCursor && setCursors((c) => [...c, page.data?.nextCursor as string])}>
          Next
        </button>
      </div>
    </div>
  );
}
