// Collaborative documents in the admin UI: a paged list, and for one document its history from the stored update
// log, its content at any kept point, restore of a past state (a new update through the server-side edit
// helper, so connected clients converge), and export as JSON or as one Yjs update.
import type { H3, H3Event } from 'h3';
import * as Y from 'yjs';
import { z } from 'zod';
import { crdtKey, listQuery, restoreInput, stateQuery, type CrdtKey } from '../../shared/admin.ts';
import { refuseTooDeepDoc, type CrdtType } from '../crdt/content.ts';
import { contentAt, historyOf, restoreState, stateAt } from '../crdt/history.ts';
import type { DocKey } from '../crdt/store.ts';
import type { TenantScope } from '../db/scope.ts';
import { ApiError } from '../errors.ts';
import { bodyOf, fail, guard, keyGuard, pager, queryOf, type AdminKit } from './kit.ts';

/** A content error (a document nesting deeper than the depth limit) answered as the API answers it: 400 with its status. */
const contentError = (event: H3Event, error: unknown) => {
  if (error instanceof ApiError) return fail(event, 400, error.message, error.status);
  throw error;
};

const docKey = (k: CrdtKey): DocKey => ({ apiKeyId: k.apiKey, organizationId: k.organizationId, documentId: k.documentId, editorId: k.editorId });

export function registerCrdtRoutes(h3: H3, kit: AdminKit) {
  const { app } = kit;
  const q = app.storage.inspection;
  const pages = pager(app.pageTokens);
  // the key's scope (from the session's workspace, keyGuard) reaches the document: the row, if there is one
  const rowOf = (scope: TenantScope, k: CrdtKey) => q.crdt(scope, k.organizationId, k.documentId, k.editorId);
  const missing = 'No such editor document in this workspace.';

  h3.get('/admin/api/crdt/page', async (event) => {
    const input = queryOf(event, listQuery.extend({ organizationId: z.string().max(256).optional() }));
    if (!input.ok) return input.error;
    const { apiKey, organizationId, q: search, cursor, dir, limit } = input.value;
    const g = await keyGuard(kit, event, apiKey);
    if (!g.ok) return g.error;
    const scope = { list: 'crdt', apiKey, organizationId, search };
    const args = pages.args(event, scope, { cursor, dir, limit });
    if (!args.ok) return args.error;
    return pages.page(
      await q.crdtPage(g.scope, organizationId, search || undefined, args.page),
      args.page,
      scope,
      (r) => [r.organizationId, r.documentId, r.editorId],
      (r) => ({
        ...r,
        connections: app.crdt.connections({ apiKeyId: r.apiKey, organizationId: r.organizationId, documentId: r.documentId, editorId: r.editorId }),
      }),
    );
  });

  h3.get('/admin/api/crdt/history', async (event) => {
    const input = queryOf(event, crdtKey);
    if (!input.ok) return input.error;
    const g = await keyGuard(kit, event, input.value.apiKey);
    if (!g.ok) return g.error;
    const history = (await rowOf(g.scope, input.value)) ? await historyOf(app.crdt, g.scope, docKey(input.value)) : null;
    if (!history) return fail(event, 404, missing);
    return { ...history, kept: app.crdt.historyUpdates };
  });

  h3.get('/admin/api/crdt/state', async (event) => {
    const input = queryOf(event, stateQuery);
    if (!input.ok) return input.error;
    const g = await keyGuard(kit, event, input.value.apiKey);
    if (!g.ok) return g.error;
    const row = await rowOf(g.scope, input.value);
    if (!row) return fail(event, 404, missing);
    const doc = await stateAt(app.crdt, g.scope, docKey(input.value), input.value.seq);
    if (!doc) return fail(event, 404, `No history entry ${String(input.value.seq)} (the last ${app.crdt.historyUpdates} updates are kept).`);
    try {
      const content = contentAt(doc, row.type as CrdtType, row.contentKey);
      return { seq: input.value.seq ?? null, type: row.type, contentKey: row.contentKey, content, roots: { [row.contentKey]: content } };
    } catch (error) {
      return contentError(event, error);
    } finally {
      doc.destroy();
    }
  });

  h3.post('/admin/api/crdt/restore', async (event) => {
    const g0 = guard(kit, event, { change: true });
    if (!g0.ok) return g0.error;
    const input = await bodyOf(event, app, restoreInput);
    if (!input.ok) return input.error;
    const g = await keyGuard(kit, event, input.value.apiKey, { change: true });
    if (!g.ok) return g.error;
    if (!(await rowOf(g.scope, input.value))) return fail(event, 404, missing);
    // a restore deletes the live content and copies the past one, both recursive in Yjs: neither may be too deep
    const live = await app.crdt.load(g.scope, docKey(input.value));
    const past = await stateAt(app.crdt, g.scope, docKey(input.value), input.value.seq);
    try {
      if (live) refuseTooDeepDoc(live.doc, 'write');
      if (past) refuseTooDeepDoc(past, 'write');
    } catch (error) {
      return contentError(event, error);
    } finally {
      past?.destroy();
    }
    const bytes = await restoreState(app.crdt, g.scope, docKey(input.value), input.value.seq);
    if (bytes === null) return fail(event, 404, `No history entry ${input.value.seq}.`);
    return { restored: true, seq: input.value.seq, bytes };
  });

  h3.get('/admin/api/crdt/export', async (event) => {
    const input = queryOf(event, crdtKey.extend({ format: z.enum(['json', 'yjs']).default('json') }));
    if (!input.ok) return input.error;
    const g = await keyGuard(kit, event, input.value.apiKey);
    if (!g.ok) return g.error;
    const row = await rowOf(g.scope, input.value);
    if (!row) return fail(event, 404, missing);
    const doc = await stateAt(app.crdt, g.scope, docKey(input.value));
    if (!doc) return fail(event, 404, missing);
    try {
      const name = [row.organizationId, row.documentId, row.editorId].join('-').replace(/[^\w.-]+/g, '_');
      if (input.value.format === 'yjs') {
        return new Response(Buffer.from(Y.encodeStateAsUpdate(doc)), {
          headers: { 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${name}.yjs"`, 'cache-control': 'no-store' },
        });
      }
      const body = JSON.stringify(
        {
          organizationId: row.organizationId,
          documentId: row.documentId,
          editorId: row.editorId,
          type: row.type,
          contentKey: row.contentKey,
          data: contentAt(doc, row.type as CrdtType, row.contentKey),
        },
        null,
        2,
      );
      return new Response(body, {
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'content-disposition': `attachment; filename="${name}.json"`,
          'cache-control': 'no-store',
        },
      });
    } catch (error) {
      return contentError(event, error);
    } finally {
      doc.destroy();
    }
  });
}
