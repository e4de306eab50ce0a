// A stored value and its archive form (a JSON-line value), by the column's kind: how SQLite holds JSON, booleans and
// bytes is the storage's business, so the conversion both ways is here.
import type { ColumnKind } from './tables.ts';

/** What a column holds in SQLite. */
export type Stored = string | number | Buffer | null;

/** A stored value as a JSON-line value: JSON columns parsed, booleans as booleans, bytes as base64. */
export function toArchiveValue(column: { kind: ColumnKind }, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (column.kind === 'json') return JSON.parse(value as string);
  if (column.kind === 'boolean') return value === 1 || value === true;
  if (column.kind === 'buffer') return Buffer.from(value as Uint8Array).toString('base64');
  return value;
}

/** A JSON-line value back to what SQLite stores, or a message saying what is wrong with it. */
export function toStoredValue(
  column: { key: string; kind: ColumnKind; notNull: boolean },
  value: unknown,
): { ok: true; value: Stored } | { ok: false; problem: string } {
  if (value === null) return column.notNull ? { ok: false, problem: `${column.key} must not be null` } : { ok: true, value: null };
  switch (column.kind) {
    case 'json':
      return { ok: true, value: JSON.stringify(value) };
    case 'boolean':
      return typeof value === 'boolean' ? { ok: true, value: value ? 1 : 0 } : { ok: false, problem: `${column.key} must be true or false` };
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? { ok: true, value } : { ok: false, problem: `${column.key} must be a number` };
    case 'string':
      return typeof value === 'string' ? { ok: true, value } : { ok: false, problem: `${column.key} must be a string` };
    case 'buffer':
      return typeof value === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(value)
        ? { ok: true, value: Buffer.from(value, 'base64') }
        : { ok: false, problem: `${column.key} must be base64` };
  }
}
