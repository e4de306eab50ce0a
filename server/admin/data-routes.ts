// Export, import and reset of one API key's data while the server runs (transfer.ts does the work).
import type { H3 } from 'h3';
import { z } from 'zod';
import { resetInput } from '../../shared/admin.ts';
import { ApiError } from '../errors.ts';
import { readBytes, refuseRestOfBody } from '../http/body.ts';
import { BodyTooLarge } from '../http/dispatch.ts';
import { importChunks, readImport } from './import-stream.ts';
import { bodyOf, fail, guard, keyGuard, queryOf, type AdminKit } from './kit.ts';
import { exportKey, resetKey, TransferRefused } from './transfer.ts';

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
    let bytes: Buffer;
    try {
      bytes = await readBytes(event, IMPORT_LIMIT);
    } catch (error) {
      if (error instanceof BodyTooLarge) refuseRestOfBody(event, IMPORT_LIMIT);
      if (error instanceof ApiError) return fail(event, 400, error.message);
      throw error;
    }
    // read, parsed and checked off the event loop (import-stream.ts), then written a chunk at a time
    const reader = readImport(bytes);
    const head = await reader.head;
    if ('refused' in head) {
      reader.stop();
      return fail(event, 400, head.refused);
    }
    const g = await keyGuard(kit, event, head.apiKey, { change: true });
    if (!g.ok) {
      reader.stop();
      return g.error;
    }
    try {
      return { imported: await importChunks(app, g.scope, reader.chunks()) };
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
