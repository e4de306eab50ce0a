// Keyset conditions for PostgreSQL repositories: ../pagination.ts's keysetAfter, for the converted tables' columns.
import { and, eq, gt, lt, or, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Cursor } from '../pagination.ts';

/** Rows strictly after `cursor` in the order (first, second), ascending or descending; undefined without a cursor. */
export function keysetAfterPg(first: PgColumn, second: PgColumn, cursor: Cursor | null, descending: boolean): SQL | undefined {
  if (!cursor) return undefined;
  const [a, b] = cursor;
  const beyond = descending ? lt : gt;
  return or(beyond(first, a), and(eq(first, a), beyond(second, b)));
}
