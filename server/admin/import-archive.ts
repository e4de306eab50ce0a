// What the admin UI's import accepts, shared by the route (admin/data-routes.ts) and the thread that reads an
// archive off the event loop (admin/import-worker.ts): kept free of the server's modules, so that the thread loads
// zod and nothing else.
import { z } from 'zod';

/** A cell of an exported row: JSON values, blobs as `{ $base64 }`. */
const cell = z.union([z.string(), z.number(), z.null(), z.object({ $base64: z.string() })]);

/** The body of an import: the key to write into, and an export of this UI (`format`, its table names). */
export function importSchema(format: string, tables: readonly [string, ...string[]]) {
  return z.object({
    apiKey: z.string().trim().min(1).max(256),
    archive: z.object({
      format: z.literal(format, { error: `must be an export of the Hearth admin UI (format ${format})` }),
      version: z.literal(1),
      exportedAt: z.string(),
      apiKey: z.string(),
      tables: z.partialRecord(z.enum(tables), z.array(z.record(z.string().regex(/^[a-z_]+$/), cell))),
    }),
  });
}

/** A zod error as one line: the first problem, with its field (as the admin API answers every bad body). */
export function problemOf(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'Invalid input.';
  const field = issue.path.join('.');
  return field ? `${field}: ${issue.message}` : issue.message;
}

/** What the reading thread is given. */
export interface ImportWorkerData {
  /** The body's bytes, moved to the thread (not copied). */
  bytes: ArrayBuffer;
  format: string;
  /** The tables of an export, parents first: the order rows are handed back in. */
  tables: readonly [string, ...string[]];
  /** Rows a message holds at most: what one step of the import writes before it lets other work run. */
  chunkRows: number;
}

/** What the reading thread answers, in this order: the key, then rows table by table, then the end; or a refusal. */
export type FromImportWorker =
  | { kind: 'head'; apiKey: string }
  | { kind: 'rows'; table: string; rows: Array<Record<string, unknown>> }
  | { kind: 'end' }
  | { kind: 'refused'; message: string };
