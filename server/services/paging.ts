import type { Cursor } from '../db/pagination.ts';
import { invalid } from '../errors.ts';
import type { PageTokens } from '../db/pagination.ts';

/**
 * The cursor of a page token made for this scope, with the value kinds the query's sort key has; null for no
 * token (the first page). Anything else (forged, altered, foreign, another query's) is INVALID_ARGUMENT.
 */
export function readPageToken(
  app: { pageTokens: PageTokens },
  scope: unknown,
  token: string | null | undefined,
  kinds: ReadonlyArray<'string' | 'number'>,
  name = 'pageToken',
): Cursor | null {
  if (!token) return null;
  const cursor = app.pageTokens.decode(scope, token);
  if (!cursor || cursor.length !== kinds.length || !kinds.every((kind, i) => typeof cursor[i] === kind)) throw invalid(`Invalid ${name}.`);
  return cursor;
}
