import { and, eq, gt, lt, or, type Placeholder, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../security/secrets.ts';

/** The sort-key values of the last row of a page; the next page starts strictly after them. */
export type Cursor = ReadonlyArray<string | number>;

/**
 * Opaque, signed keyset page tokens (DESIGN §3.5). A token names the position after which the next page
 * starts and is bound to the query that made it: the tenant, the operation and its filters. Any change to
 * those, or to a byte of the token, makes it invalid.
 */
export interface PageTokens {
  encode(scope: unknown, cursor: Cursor): string;
  /** The cursor of a token made for this exact scope; null for anything else (forged, foreign, malformed). */
  decode(scope: unknown, token: string): Cursor | null;
}

export function createPageTokens(key: Buffer): PageTokens {
  const sign = (scope: string, payload: string) => createHmac('sha256', key).update(scope).update('\0').update(payload).digest('base64url').slice(0, 22);
  return {
    encode(scope, cursor) {
      const payload = Buffer.from(JSON.stringify(cursor)).toString('base64url');
      return `${payload}.${sign(stableStringify(scope), payload)}`;
    },
    decode(scope, token) {
      const dot = token.indexOf('.');
      if (dot <= 0) return null;
      const payload = token.slice(0, dot);
      if (!constantTimeEqual(token.slice(dot + 1), sign(stableStringify(scope), payload))) return null;
      try {
        const cursor: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
        if (Array.isArray(cursor) && cursor.every((v) => typeof v === 'string' || typeof v === 'number')) return cursor;
      } catch {
        return null;
      }
      return null;
    },
  };
}

/** JSON with object keys sorted, so that equal queries give equal scopes whatever the key order. */
export function stableStringify(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
}

/**
 * Takes `pageSize + 1` rows fetched after the cursor and splits them into the page and the next token.
 * `keyOf` gives the sort-key values of a row, in the order of the query's ORDER BY.
 */
export function paginate<T>(
  rows: T[],
  pageSize: number,
  keyOf: (row: T) => Cursor,
  tokens: PageTokens,
  scope: unknown,
): { items: T[]; pageToken: string | null } {
  if (rows.length <= pageSize) return { items: rows, pageToken: null };
  const items = rows.slice(0, pageSize);
  return { items, pageToken: tokens.encode(scope, keyOf(items[items.length - 1] as T)) };
}

/**
 * The keyset condition "strictly after the cursor" for an ORDER BY (first, second) in either direction.
 * Null without a cursor (the first page). The cursor's values may be placeholders (a query compiled once).
 */
export function keysetAfter(
  first: SQLiteColumn,
  second: SQLiteColumn,
  cursor: Cursor | readonly [Placeholder, Placeholder] | null,
  descending: boolean,
): SQL | undefined {
  if (!cursor) return undefined;
  const [a, b] = cursor;
  const beyond = descending ? lt : gt;
  return or(beyond(first, a), and(eq(first, a), beyond(second, b)));
}
