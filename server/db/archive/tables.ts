// Every table Hearth stores, described from the drizzle schema (hearth.db's, and webhooks.db's delivery tables): the
// columns with their SQL names and value kinds, the key that identifies a row across data dirs, and the foreign keys'
// order. The archive (tooling/archive-schema.ts) builds its table specs from these, so that a table or column added
// later is exported without touching the tooling.
import { getTableColumns, is } from 'drizzle-orm';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { webhookAttempts, webhookDeliveries } from '../delivery-schema.ts';
import * as schema from '../schema.ts';

export type ColumnKind = 'string' | 'number' | 'boolean' | 'json' | 'buffer';

export interface StoredColumn {
  /** The drizzle property name. */
  key: string;
  /** The SQL column name. */
  sql: string;
  kind: ColumnKind;
  notNull: boolean;
  /** An autoincrement primary key: a number of this data dir only. */
  surrogate: boolean;
}

export interface StoredTable {
  /** The SQL table name. */
  name: string;
  columns: StoredColumn[];
  /** Column keys that identify a row across data dirs (the primary key, or the unique columns beside a surrogate key); may be empty. */
  identity: string[];
  /** The table's rows belong to an API key (have api_key_id). */
  tenant: boolean;
  /** `main`: hearth.db; `deliveries`: webhooks.db (delivery state, its own file). */
  database: 'main' | 'deliveries';
  /** The tables its foreign keys point at. */
  dependsOn: string[];
}

function kindOf(dataType: string, table: string, key: string): ColumnKind {
  if (dataType === 'string' || dataType === 'number' || dataType === 'boolean' || dataType === 'json' || dataType === 'buffer') return dataType;
  throw new Error(`export: ${table}.${key} has a column type (${dataType}) the archive format does not know`);
}

function describeTable(table: SQLiteTable, database: StoredTable['database']): StoredTable {
  const config = getTableConfig(table);
  const all = Object.entries(getTableColumns(table)).map(([key, column]) => ({
    key,
    sql: column.name,
    kind: kindOf(column.dataType, config.name, key),
    notNull: column.notNull,
    primary: column.primary,
    unique: column.isUnique,
    autoIncrement: 'autoIncrement' in column && column.autoIncrement === true,
  }));
  const surrogate = all.find((c) => c.primary && c.autoIncrement);
  const composite = config.primaryKeys[0]?.columns.map((c) => all.find((a) => a.sql === c.name)!.key);
  const identity = surrogate ? all.filter((c) => c.unique).map((c) => c.key) : (composite ?? all.filter((c) => c.primary).map((c) => c.key));
  return {
    name: config.name,
    columns: all.map((c) => ({ key: c.key, sql: c.sql, kind: c.kind, notNull: c.notNull, surrogate: c === surrogate })),
    identity,
    tenant: all.some((c) => c.sql === 'api_key_id'),
    database,
    dependsOn: config.foreignKeys.map((f) => getTableConfig(f.reference().foreignTable).name).filter((n) => n !== config.name),
  };
}

/** Every table of both files, parents before children (by name among equals). */
function orderedTables(): StoredTable[] {
  const specs = [
    ...(Object.values(schema) as unknown[]).filter((value): value is SQLiteTable => is(value, SQLiteTable)).map((table) => describeTable(table, 'main')),
    ...[webhookDeliveries, webhookAttempts].map((table) => describeTable(table, 'deliveries')),
  ].sort((a, b) => a.name.localeCompare(b.name));
  const byName = new Map(specs.map((s) => [s.name, s]));
  const ordered: StoredTable[] = [];
  const visiting = new Set<string>();
  const visit = (spec: StoredTable) => {
    if (ordered.includes(spec)) return;
    if (visiting.has(spec.name)) throw new Error(`export: foreign keys form a cycle through ${spec.name}`);
    visiting.add(spec.name);
    for (const parent of spec.dependsOn) visit(byName.get(parent)!);
    visiting.delete(spec.name);
    ordered.push(spec);
  };
  for (const spec of specs) visit(spec);
  return ordered;
}

let storedTables_: StoredTable[] | undefined;
/** Every stored table, parents first (worked out on first use, so a schema problem fails the command, not the CLI's start). */
export function storedTables(): StoredTable[] {
  return (storedTables_ ??= orderedTables());
}
