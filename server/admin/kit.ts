// What every admin endpoint file shares: answering with a status, refusing, reading and validating input with the
// zod schemas of shared/admin.ts, and the session checks (signed in; the UI header on state changes; the API key
// one of the session's workspace's).
import type { H3Event } from 'h3';
import type { z } from 'zod';
import type { AppContext } from '../context.ts';
import { readBody, refuseRestOfBody } from '../http/body.ts';
import { BodyTooLarge, checkLongJson } from '../http/dispatch.ts';
import { ApiError } from '../errors.ts';
import type { PageTokens } from '../db/pagination.ts';
import type { Dir, PageArgs, SortKey } from '../db/repos/inspection.ts';
import type { TenantScope, WorkspaceScope } from '../db/scope.ts';
import { UI_HEADER } from './session.ts';

export const answer = (event: H3Event, status: number, body: unknown) => {
  event.res.status = status;
  return body;
};

const STATUS_NAME: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  412: 'FAILED_PRECONDITION',
  413: 'INVALID_ARGUMENT',
};
export const fail = (event: H3Event, status: number, message: string, name?: string) =>
  answer(event, status === 412 ? 400 : status, { error: { status: name ?? STATUS_NAME[status] ?? 'INTERNAL', message } });

/** The first problem zod found, naming the field (the interface's convention). */
export function problemOf(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'Invalid input.';
  const field = issue.path.join('.');
  return field ? `${field}: ${issue.message}` : issue.message;
}

/** Parses the query parameters with `schema`; an error envelope (400) when they do not fit. */
export function queryOf<S extends z.ZodType>(event: H3Event, schema: S): { ok: true; value: z.output<S> } | { ok: false; error: unknown } {
  const raw = Object.fromEntries(event.url.searchParams.entries());
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, error: fail(event, 400, problemOf(parsed.error)) };
}

/** Reads a JSON body (bounded like the API's) and parses it with `schema`. */
export async function bodyOf<S extends z.ZodType>(
  event: H3Event,
  app: AppContext,
  schema: S,
  limit = app.config.maxBodyBytes,
): Promise<{ ok: true; value: z.output<S> } | { ok: false; error: unknown }> {
  let text: string;
  try {
    text = await readBody(event, limit);
  } catch (error) {
    if (error instanceof BodyTooLarge) refuseRestOfBody(event, limit);
    if (error instanceof ApiError) return { ok: false, error: answer(event, 400, { error: { status: error.status, message: error.message } }) };
    throw error;
  }
  let value: unknown;
  try {
    // an import (a larger limit) holds many more values than a call, and is parsed by its own route
    if (limit <= app.config.maxBodyBytes) checkLongJson(text);
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, error: answer(event, 400, { error: { status: error.status, message: error.message } }) };
    throw error;
  }
  try {
    value = JSON.parse(text || '{}');
  } catch {
    return { ok: false, error: fail(event, 400, 'The body must be a JSON object.') };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, error: fail(event, 400, 'The body must be a JSON object.') };
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, error: fail(event, 400, problemOf(parsed.error)) };
}

export interface AdminKit {
  app: AppContext;
  /** The session's workspace, or null. */
  workspaceOf(event: H3Event): WorkspaceScope | null;
  fromUi(event: H3Event): boolean;
}

/**
 * The guard of an endpoint: the session's workspace (401 otherwise), with the UI header for state changes (403).
 */
export function guard(
  kit: AdminKit,
  event: H3Event,
  options: { change?: boolean } = {},
): { ok: true; workspace: WorkspaceScope } | { ok: false; error: unknown } {
  if (options.change && !kit.fromUi(event)) return { ok: false, error: fail(event, 403, `The admin API needs the ${UI_HEADER} header.`) };
  const workspace = kit.workspaceOf(event);
  if (!workspace) return { ok: false, error: fail(event, 401, 'Not signed in.') };
  return { ok: true, workspace };
}

/**
 * The guard of an endpoint on one API key's data: `guard`, then the key named by `apiKey`, which must be one of the
 * session's workspace's (404 otherwise, as for a key that does not exist): its scope is the only way to its data.
 */
export async function keyGuard(
  kit: AdminKit,
  event: H3Event,
  apiKey: string,
  options: { change?: boolean } = {},
): Promise<{ ok: true; workspace: WorkspaceScope; scope: TenantScope } | { ok: false; error: unknown }> {
  const g = guard(kit, event, options);
  if (!g.ok) return g;
  const scope = await kit.app.storage.inspection.keyScope(g.workspace, apiKey);
  if (!scope) return { ok: false, error: fail(event, 404, "Choose one of this workspace's API keys.") };
  return { ok: true, workspace: g.workspace, scope };
}

/**
 * Keyset pages: the cursor is an opaque token signed and tied to the query (scope) that made it; a forged or
 * foreign one is INVALID_ARGUMENT (DESIGN §3.5).
 */
export function pager(tokens: PageTokens) {
  return {
    args(
      event: H3Event,
      scope: unknown,
      input: { cursor?: string | undefined; dir: Dir; limit: number },
    ): { ok: true; page: PageArgs } | { ok: false; error: unknown } {
      if (!input.cursor) return { ok: true, page: { after: null, dir: input.dir, limit: input.limit } };
      const after = tokens.decode({ scope, dir: input.dir }, input.cursor);
      if (!after) return { ok: false, error: fail(event, 400, 'cursor: not a cursor of this list (it belongs to another query, or was changed).') };
      return { ok: true, page: { after, dir: input.dir, limit: input.limit } };
    },
    /** The page's items and the next cursor (from the last item's sort key) when there is more. */
    page<R, T>(rows: R[], page: PageArgs, scope: unknown, keyOf: (row: R) => SortKey, map: (row: R) => T) {
      const more = rows.length > page.limit;
      const kept = more ? rows.slice(0, page.limit) : rows;
      const last = kept[kept.length - 1];
      return { items: kept.map(map), nextCursor: more && last !== undefined ? tokens.encode({ scope, dir: page.dir }, keyOf(last)) : null };
    },
  };
}
