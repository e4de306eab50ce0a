import * as Y from 'yjs';
import type { ArchiveTarget, Stored, TableTarget } from '../db/repos/archive.ts';
import type { Secrets } from '../security/secrets.ts';
import { ArchiveError } from './archive-manifest.ts';
import { toStoredValue, type ColumnSpec, type TableSpec } from './archive-schema.ts';
import { DIGEST_COLUMNS, OMITTED, SECRET_COLUMNS } from './archive-secrets.ts';
import type { ImportOptions, Manifest } from './transfer.ts';

type TableCounts = { inserted: number; replaced: number; skipped: number };

export interface ImportCounters {
  tables: Record<string, TableCounts>;
  generated: Map<string, { table: string; column: string; label: string; rows: number }>;
  dropped: Map<string, { table: string; label: string; rows: number }>;
}

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Writes archive lines into the target database (inside the caller's transaction): checks each value against
 * the schema, seals secrets under the target's master key (or generates fresh ones), recomputes lookup digests,
 * and applies the conflict policy by the row's identity. The target's calls are awaited (PostgreSQL answers later;
 * SQLite at once, which awaiting does not change): lines are written one after the other, in the archive's order.
 */
export async function createRowWriter(
  database: ArchiveTarget,
  context: { manifest: Manifest; conflict: ImportOptions['conflict']; opener: Secrets | undefined; target: Secrets; counters: ImportCounters; dataDir: string },
) {
  /** Per table: columns by key, the identity's columns, and the table's writer (worked out once, used per row). */
  const layouts = new Map<string, { byKey: Map<string, ColumnSpec>; identityColumns: string[]; rows: TableTarget }>();
  const layoutOf = (spec: TableSpec) => {
    let layout = layouts.get(spec.name);
    if (!layout) {
      const byKey = new Map(spec.columns.map((c) => [c.key, c]));
      const identityColumns = spec.identity.map((key) => byKey.get(key)!.sql);
      layout = { byKey, identityColumns, rows: database.table(spec, identityColumns) };
      layouts.set(spec.name, layout);
    }
    return layout;
  };
  const targetDefault = await database.defaultWorkspaceId();
  const count = <T extends { rows: number }>(map: Map<string, T>, id: string, make: () => T) => {
    const entry = map.get(id) ?? make();
    entry.rows++;
    map.set(id, entry);
  };

  /** The plaintext of a secret column's value, a fresh one, or what to do instead. */
  function openSecret(table: string, key: string, value: unknown, where: string): { plaintext: string } | { drop: true } | { nullWith: string[] } {
    const rule = SECRET_COLUMNS[table]![key]!;
    if (value === OMITTED) {
      const omitted = rule.whenOmitted;
      if ('dropRow' in omitted) {
        count(context.counters.dropped, table, () => ({ table, label: rule.label, rows: 0 }));
        return { drop: true };
      }
      if ('nullWith' in omitted) return { nullWith: omitted.nullWith };
      count(context.counters.generated, `${table}.${key}`, () => ({ table, column: key, label: rule.label, rows: 0 }));
      return { plaintext: 'fresh' in omitted ? omitted.fresh() : omitted.placeholder };
    }
    if (typeof value !== 'string') throw new ArchiveError(`${where}: ${key} must be a string`);
    if (!context.opener) throw new ArchiveError(`${where}: ${key} holds a secret, but manifest.json says secrets were omitted`);
    try {
      return { plaintext: context.opener.decrypt(value) };
    } catch {
      throw new ArchiveError(`${where}: ${key} cannot be opened with the passphrase (damaged or sealed by another export)`);
    }
  }

  return {
    /** Writes one line; returns the attachment's storage key when a recording attachment row was written. */
    async write(spec: TableSpec, table: Manifest['tables'][number], line: string, where: string): Promise<{ storageKey?: string }> {
      const counts = (context.counters.tables[spec.name] ??= { inserted: 0, replaced: 0, skipped: 0 });
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch (error) {
        throw new ArchiveError(`${where}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
      }
      if (!isObject(parsed)) throw new ArchiveError(`${where}: a row must be a JSON object`);
      const layout = layoutOf(spec);
      const values = new Map<string, Stored>();
      const secrets = SECRET_COLUMNS[spec.name] ?? {};
      for (const [key, value] of Object.entries(parsed)) {
        const column = layout.byKey.get(key);
        if (!column) throw new ArchiveError(`${where}: unknown field "${key}" for ${spec.name}`);
        if (secrets[key] && value !== null) {
          const opened = openSecret(spec.name, key, value, where);
          if ('drop' in opened) return {};
          if ('nullWith' in opened) {
            values.set(column.sql, null);
            for (const other of opened.nullWith) values.set(snake(other), null);
            continue;
          }
          values.set(column.sql, context.target.encrypt(opened.plaintext));
          const digest = secrets[key]!.digest;
          if (digest && DIGEST_COLUMNS[spec.name]?.includes(digest)) values.set(snake(digest), context.target.digest(opened.plaintext));
          continue;
        }
        if (values.has(column.sql)) continue;
        const stored = toStoredValue(column, value);
        if (!stored.ok) throw new ArchiveError(`${where}: ${stored.problem}`);
        values.set(column.sql, stored.value);
      }
      const identity = spec.identity.map((key, index) => {
        const value = values.get(layout.identityColumns[index]!);
        if (value === undefined || value === null) throw new ArchiveError(`${where}: ${key} is missing (it identifies the row)`);
        return value;
      });
      if (spec.name === 'crdt_documents') {
        const state = values.get('snapshot');
        if (state instanceof Buffer) {
          try {
            Y.decodeUpdate(state);
          } catch {
            throw new ArchiveError(`${where}: snapshot is not a Yjs update`);
          }
        }
        values.set('update_count', 0);
      }
      if (spec.name === 'recording_attachments' && !/^[A-Za-z0-9]{32}$/.test(String(values.get('storage_key'))))
        throw new ArchiveError(`${where}: storageKey must be 32 letters and digits`);
      // An imported workspace does not take the default role from the target's own default workspace; a workspace
      // brought along only as the parent of an exported API key never becomes the default.
      if (spec.name === 'workspaces' && values.get('is_default') === 1 && (table.parentOnly || (targetDefault !== undefined && targetDefault !== identity[0])))
        values.set('is_default', 0);

      if (await layout.rows.exists(identity)) {
        if (table.parentOnly || context.conflict === 'skip') {
          counts.skipped++;
          return {};
        }
        if (context.conflict === 'fail') {
          throw new ArchiveError(
            `${where}: ${spec.name} ${spec.identity.map((k, i) => `${k}=${String(identity[i])}`).join(', ')} exists already in ${context.dataDir}; nothing was imported (choose --conflict skip or replace)`,
          );
        }
        const refused = await layout.rows.replace(values, identity);
        if (refused !== undefined) throw new ArchiveError(`${where}: ${refused}`);
        counts.replaced++;
      } else {
        const refused = await layout.rows.insert(values);
        if (refused !== undefined) throw new ArchiveError(`${where}: ${refused}`);
        counts.inserted++;
      }
      return spec.name === 'recording_attachments' ? { storageKey: values.get('storage_key') as string } : {};
    },
  };
}
