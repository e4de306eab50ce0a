// Export, import and reset of one API key's data while the server runs (transfer.ts does the work).
import type { H3 } from 'h3';
import { z } from 'zod';
import { resetInput } from '../../shared/admin.ts';
import { bodyOf, fail, guard, keyGuard, queryOf, type AdminKit } from './kit.ts';
import { EXPORT_FORMAT, EXPORT_TABLES, exportKey, importKey, resetKey, TransferRefused, type Archive } from './transfer.ts';

/** What an import accepts: an export of this UI (rows as objects of JSON values; blobs as { $base64 }). */
const cell = z.union([z.string(), z.number(), z.null(), z.object({ $base64: z.string() })]);
const importInput = z.object({
  apiKey: z.string().trim().min(1).max(256),
  archive: z.object({
    format: z.literal(EXPORT_FORMAT, { error: `must be an export of the Hearth admin UI (format ${EXPORT_FORMAT})` }),
    version: z.literal(1),
    exportedAt: z.string(),
    apiKey: z.string(),
    tables: z.partialRecord(z.enum(EXPORT_TABLES), z.array(z.record(z.string().regex(/^[a-z_]+$/), cell))),
  }),
});
/** Imports may be larger than API calls. */
const IMPORT_LIMIT = 256 * 1024 * 1024;

export function registerDataRoutes(h3: H3, kit: AdminKit) {
  const { app } = kit;

  h3.get('/admin/api/data/export', async (event) => {
    const input = queryOf(event, z.object({ apiKey: z.string().trim().min(1).max(256) }));
    if (!input.ok) return input.error;
    const g = await keyGuard(kit, event, input.value.apiKey);
    if (!g.ok) return g.error;
    try {
      const archive = await exportKey(app, g.scope);
      const name = `hearth-${input.value.apiKey}-${archive.exportedAt.replace(/[:.]/g, '-')}.json`;
      return new Response(JSON.stringify(archive), {
        headers: { 'content-type': 'application/json; charset=utf-8', 'content-disposition': `attachment; filename="${name}"`, 'cache-control': 'no-store' },
      });
    } catch (error) {
      if (error instanceof TransferRefused) return fail(event, 412, error.message);
      throw error;
    }
  });

  h3.post('/admin/api/data/import', async (event) => {
    const g0 = guard(kit, event, { change: true });
    if (!g0.ok) return g0.error;
    const input = await bodyOf(event, app, importInput, IMPORT_LIMIT);
    if (!input.ok) return input.error;
    const g = await keyGuard(kit, event, input.value.apiKey, { change: true });
    if (!g.ok) return g.error;
    try {
      return { imported: await importKey(app, g.scope, input.value.archive as Archive) };
    } catch (error) {
      if (error instanceof TransferRefused) return fail(event, 412, error.message);
      throw error;
    }
  });

  h3.post('/admin/api/data/reset', async (event) => {
    const g0 = guard(kit, event, { change: true });
    if (!g0.ok) return g0.error;
    const input = await bodyOf(event, app, resetInput);
    if (!input.ok) return input.error;
    const g = await keyGuard(kit, event, input.value.apiKey, { change: true });
    if (!g.ok) return g.error;
    try {
      return await resetKey(app, g.scope);
    } catch (error) {
      if (error instanceof TransferRefused) return fail(event, 412, error.message);
      throw error;
    }
  });
}
