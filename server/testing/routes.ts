/**
 * The testing API over HTTP, for suites in any language: under /testing/, answered only in testing mode
 * (`hearth serve --testing`, `hearth exec`, `startHearth`), refused with a FAILED_PRECONDITION envelope otherwise.
 * Bodies and answers follow the operations' convention (`{ "data": {...} }` in, `{ result: { status, message, data } }`
 * or `{ error: { status, message } }` out); an empty body is `{ "data": {} }`. No credentials: testing mode is a
 * throwaway server on a developer's or CI's loopback (README, "Hearth in your test suite").
 *
 *   POST /testing/reset          { workspaceId? }              delete all data (or one workspace's): reset.ts
 *   GET  /testing/clock                                         Hearth's now: { now, iso, offsetMs }
 *   POST /testing/clock          { advanceMs } | { to } | { reset: true }
 *   GET  /testing/outbox?kind=mail|webhook&apiKey=…             captured mail and webhook attempts: state.ts
 *   POST /testing/outbox/clear   { apiKey? }
 */
import type { H3, H3Event } from 'h3';
import { z } from 'zod';
import { clock, currentTime } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { readBody } from '../http/body.ts';
import { ApiError } from '../errors.ts';
import { errorBody, httpStatusOf } from '../http/errors.ts';
import { resetData } from './reset.ts';

const BODY_LIMIT = 64 * 1024;
/** How far one call may move the clock: ten years (a bigger jump is a mistake, and overflows timers' arithmetic). */
const MAX_ADVANCE_MS = 10 * 365 * 24 * 60 * 60 * 1000;

const resetInput = z.strictObject({ workspaceId: z.string().min(1).optional() });
const clockInput = z.union([
  z.strictObject({ advanceMs: z.number().int().positive().max(MAX_ADVANCE_MS) }),
  z.strictObject({ to: z.number().int().positive() }),
  z.strictObject({ reset: z.literal(true) }),
]);
const clearInput = z.strictObject({ apiKey: z.string().min(1).optional() });

export const TESTING_OFF_MESSAGE =
  'The testing API answers only in testing mode: start Hearth with `hearth serve --testing`, `hearth exec -- <command>` or startHearth() from hearth/testing.';

function refuse(event: H3Event, error: ApiError) {
  event.res.status = httpStatusOf(error.status);
  return errorBody(error);
}

const success = (message: string, data: unknown) => ({ result: { status: 'success', message, data } });

async function dataOf<T>(event: H3Event, schema: z.ZodType<T>): Promise<T> {
  const text = (await readBody(event, BODY_LIMIT)).trim();
  let body: unknown = { data: {} };
  if (text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      throw new ApiError('INVALID_ARGUMENT', 'The body is not JSON: send { "data": { ... } }.');
    }
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body) || Object.keys(body).some((k) => k !== 'data'))
    throw new ApiError('INVALID_ARGUMENT', 'The body must be { "data": { ... } } (an empty body is { "data": {} }).');
  const parsed = schema.safeParse((body as { data?: unknown }).data ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiError('INVALID_ARGUMENT', `data${issue?.path.length ? `.${issue.path.join('.')}` : ''}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

const clockAnswer = () => {
  const now = currentTime();
  return { now, iso: new Date(now).toISOString(), offsetMs: clock.offsetMs() };
};

/** Moves Hearth's clock as `input` says; never behind the real time (the offset stays at least 0). */
export function moveClock(input: z.infer<typeof clockInput>) {
  if ('reset' in input) clock.setOffset(0);
  else if ('advanceMs' in input) clock.setOffset(clock.offsetMs() + input.advanceMs);
  else {
    const offset = input.to - Date.now();
    if (offset < 0)
      throw new ApiError('INVALID_ARGUMENT', `data.to: ${new Date(input.to).toISOString()} is before the real time; Hearth's clock only runs ahead of it.`);
    clock.setOffset(offset);
  }
  return clockAnswer();
}

export function registerTestingRoutes(h3: H3, app: AppContext) {
  const testing = app.testing;
  const handle =
    (work: (event: H3Event) => Promise<unknown>) =>
    async (event: H3Event): Promise<unknown> => {
      if (!app.config.testing || !testing) return refuse(event, new ApiError('FAILED_PRECONDITION', TESTING_OFF_MESSAGE));
      // No credentials are asked here, so a web page must not reach it: a browser names the page's origin on a
      // cross-origin request (a form or a text/plain POST needs no preflight); test suites and curl send none.
      const origin = event.req.headers.get('origin');
      if (origin !== null && origin !== `${new URL(event.req.url).protocol}//${event.req.headers.get('host')}`) {
        return refuse(event, new ApiError('PERMISSION_DENIED', `The testing API answers no web page of another origin (${origin}).`));
      }
      try {
        return await work(event);
      } catch (error) {
        if (error instanceof ApiError) return refuse(event, error);
        throw error;
      }
    };

  h3.post(
    '/testing/reset',
    handle(async (event) => {
      const { workspaceId } = await dataOf(event, resetInput);
      const result = await resetData(app, workspaceId);
      if (!result) throw new ApiError('NOT_FOUND', `Workspace does not exist: ${workspaceId}.`);
      return success(workspaceId === undefined ? 'Everything was reset.' : `Workspace ${workspaceId} was reset.`, result);
    }),
  );
  h3.get(
    '/testing/clock',
    handle(async () => success('clock', clockAnswer())),
  );
  h3.post(
    '/testing/clock',
    handle(async (event) => success('clock', moveClock(await dataOf(event, clockInput)))),
  );
  h3.get(
    '/testing/outbox',
    handle(async (event) => {
      const kind = event.url.searchParams.get('kind');
      if (kind !== null && kind !== 'mail' && kind !== 'webhook') throw new ApiError('INVALID_ARGUMENT', 'kind must be mail or webhook (or absent: both).');
      const apiKeyId = event.url.searchParams.get('apiKey') ?? undefined;
      return success('outbox', {
        ...(kind !== 'webhook' ? { mail: await testing!.mail(app.mail, { apiKeyId }) } : {}),
        ...(kind !== 'mail' ? { webhooks: testing!.webhooks(apiKeyId) } : {}),
      });
    }),
  );
  h3.post(
    '/testing/outbox/clear',
    handle(async (event) => {
      const { apiKey } = await dataOf(event, clearInput);
      await testing!.clear(app.mail, apiKey);
      return success('The outbox was cleared.', {});
    }),
  );
  // every other path and method under /testing/: a clear answer, not the admin UI's page
  h3.all(
    '/testing/**',
    handle(async (event) => {
      throw new ApiError('NOT_FOUND', `Unknown testing route: ${event.req.method} ${event.url.pathname} (README, "Hearth in your test suite").`);
    }),
  );
}
