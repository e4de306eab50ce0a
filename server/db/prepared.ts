import type Database from 'better-sqlite3';
import { getTableColumns, is, Param, Placeholder, sql, SQL, type InferInsertModel, type InferSelectModel } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { connectionOf, sessionOf, type Db } from './connection.ts';

/**
 * Queries built by drizzle once per connection, with placeholders for their values, and reused. Building a
 * select costs drizzle 50–80 µs (its `is()` walks prototype chains for every column and chunk), many times what
 * SQLite then takes to run it: a lookup by primary key runs in 2–3 µs. `build` runs once per connection; the
 * queries it returns run on that connection inside or outside a transaction (`db` or any `tx` of it).
 */
export function preparedFor<T>(build: (db: Db) => T): (db: Db) => T {
  const cache = new WeakMap<object, T>();
  return (db) => {
    const session = sessionOf(db);
    let prepared = cache.get(session);
    if (!prepared) {
      prepared = build(db);
      cache.set(session, prepared);
    }
    return prepared;
  };
}

/**
 * preparedFor with one query per shape: `shape` names the filters a call uses, from a fixed set of keys (never
 * the caller's values), and `build` prepares the query of that shape the first time it is asked for.
 */
export function preparedShapes<S extends string, T>(build: (db: Db, shape: S) => T): (db: Db, shape: S) => T {
  const shapesOf = preparedFor(() => new Map<S, T>());
  return (db, shape) => {
    const shapes = shapesOf(db);
    let prepared = shapes.get(shape);
    if (prepared === undefined) {
      // a shape that counts ids (a folder chain's depth) has no fixed bound: past MAX_SHAPES the cache starts over
      if (shapes.size >= MAX_SHAPES) shapes.clear();
      shapes.set(shape, (prepared = build(db, shape)));
    }
    return prepared;
  };
}

const MAX_SHAPES = 256;

/**
 * A function from a raw row (the columns' values in order) to the object drizzle makes of it: each key set to
 * null or to its column's decoding of the value. Written out as one object literal for the table's columns (the
 * keys are the schema's own property names), so that every row gets the same shape in one allocation; a loop
 * of keyed stores was 4 % of an activities page.
 */
function rowDecoder<Row>(columns: Record<string, SQLiteColumn>): (row: unknown[]) => Row {
  const decoders = Object.values(columns);
  const fields = Object.keys(columns).map((key, i) => `${JSON.stringify(key)}: row[${i}] === null ? null : decoders[${i}].mapFromDriverValue(row[${i}])`);
  return new Function('decoders', `return (row) => ({ ${fields.join(', ')} });`)(decoders) as (row: unknown[]) => Row;
}

/** A compiled query's parameter: a fixed driver value, or a placeholder's value (through its column's encoder). */
type Slot = { fixed: unknown } | { name: string; encode?: (value: unknown) => unknown };

/**
 * Whole rows of `table` from a select that drizzle compiles once per connection and shape (with placeholders),
 * run by better-sqlite3 in raw mode and decoded by each column's own decoder into the object drizzle returns.
 * drizzle's prepared query decodes each row with a reduce over the selection that tests every cell with `is()`
 * (14 % of an activities page); here each row is one call of rowDecoder's function. `build` must select exactly
 * `columns` (the table's, in their order) and may use placeholders; the call passes their values.
 */
export function compiledRows<T extends SQLiteTable, S extends string>(
  table: T,
  build: (db: Db, shape: S, columns: Record<string, SQLiteColumn>) => { toSQL(): { sql: string; params: unknown[] } },
): (db: Db, shape: S, values: Record<string, unknown>) => Array<InferSelectModel<T>> {
  const columns = getTableColumns(table) as Record<string, SQLiteColumn>;
  const decode = rowDecoder<InferSelectModel<T>>(columns);
  const compiled = preparedShapes((db, shape: S) => {
    const { sql: text, params } = build(db, shape, columns).toSQL();
    const slots = params.map((p): Slot => {
      if (p instanceof Placeholder) return { name: p.name };
      if (p instanceof Param && p.value instanceof Placeholder) {
        const encoder = p.encoder;
        return { name: p.value.name, encode: (value) => encoder.mapToDriverValue(value) };
      }
      return { fixed: p };
    });
    return { statement: connectionOf(db).prepare<unknown[], unknown[]>(text), slots };
  });
  return (db, shape, values) => {
    const { statement, slots } = compiled(db, shape);
    const bound = new Array<unknown>(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i] as Slot;
      if ('fixed' in slot) bound[i] = slot.fixed;
      else {
        if (!(slot.name in values)) throw new Error(`No value for placeholder "${slot.name}"`);
        const value = values[slot.name];
        bound[i] = slot.encode ? slot.encode(value) : value;
      }
    }
    // raw on every run: the statement cache of db/client.ts shares the statement with any query of the same text,
    // and hands it out with raw off
    const rows = statement.raw(true).all(...bound);
    const out = new Array<InferSelectModel<T>>(rows.length);
    for (let r = 0; r < rows.length; r++) out[r] = decode(rows[r] as unknown[]);
    return out;
  };
}

/**
 * Inserts one row into `table` with the statement drizzle's `insert(table).values(row)` builds (every insertable
 * column, in the schema's order), compiled once per connection instead of built on every call (50–80 µs).
 * Values are encoded as that call encodes them: null stays NULL; any other value goes through its column's
 * encoder (JSON columns as JSON text, booleans as 1 / 0); a missing value takes the column's default, its
 * `$defaultFn` or `$onUpdateFn`, else NULL. A column whose default is SQL must be given a value (throws).
 * `upsertOn`: the key columns of an upsert; a row already stored under that key gets every other column of the
 * new row (drizzle's `onConflictDoUpdate` with those values as its `set`).
 */
export function rowInserter<T extends SQLiteTable>(
  table: T,
  options: { upsertOn?: SQLiteColumn[] } = {},
): (db: Db, row: InferInsertModel<T>) => Database.RunResult {
  // generated columns are not inserted (drizzle's `shouldDisableInsert`, left out of its typings)
  const columns = Object.entries(getTableColumns(table) as Record<string, SQLiteColumn>).filter(
    ([, column]) => !(column as unknown as { shouldDisableInsert(): boolean }).shouldDisableInsert(),
  );
  const compiled = preparedFor((db) => {
    const values = Object.fromEntries(columns.map(([key]) => [key, sql.placeholder(key)]));
    const insert = db.insert(table).values(values as InferInsertModel<T>);
    const target = options.upsertOn;
    const set =
      target &&
      Object.fromEntries(columns.filter(([, column]) => !target.includes(column)).map(([key, column]) => [key, sql.raw(`excluded."${column.name}"`)]));
    const { sql: text, params } = (target ? insert.onConflictDoUpdate({ target, set: set as never }) : insert).toSQL();
    if (params.length !== columns.length) throw new Error(`rowInserter: ${params.length} parameters for ${columns.length} columns in ${text}`);
    // the placeholders come back in the columns' order, each wrapped with its column's encoder
    params.forEach((p, i) => {
      if (!(p instanceof Param && p.value instanceof Placeholder && p.value.name === columns[i]?.[0]))
        throw new Error(`rowInserter: unexpected parameter ${i} of ${text}`);
    });
    return connectionOf(db).prepare(text);
  });
  return (db, row) => {
    const record = row as Record<string, unknown>;
    const bound = new Array<unknown>(columns.length);
    for (let i = 0; i < columns.length; i++) {
      const [key, column] = columns[i] as [string, SQLiteColumn];
      let value = record[key];
      if (value === undefined) {
        if (column.default !== undefined && column.default !== null) value = column.default;
        else if (column.defaultFn !== undefined) value = column.defaultFn();
        else if (column.onUpdateFn !== undefined) value = column.onUpdateFn();
        else value = null;
        if (is(value, SQL)) throw new Error(`rowInserter: ${key} has an SQL default; give it a value`);
      }
      bound[i] = value === null ? null : column.mapToDriverValue(value);
    }
    return compiled(db).run(...bound);
  };
}

/** `count` placeholders named `prefix0`, `prefix1`, …: one per value of a list (its shape counts the values). */
export const placeholderList = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => sql.placeholder(`${prefix}${i}`));

/** The values of placeholderList's placeholders: `list[i]` as `prefix{i}` in `into`. */
export function listValues<V>(into: Record<string, V>, prefix: string, list: readonly V[] | undefined) {
  if (list) for (let i = 0; i < list.length; i++) into[`${prefix}${i}`] = list[i] as V;
}

/**
 * `column in (the values of the JSON array bound to the placeholder)`: one compiled statement for any number of
 * values, searched on an index led by the column as an IN list is. Not for a list that must keep an index's
 * order (a single value of `in (?)` reads it in order as `=` does; the planner cannot know a JSON array's length).
 */
export const inJsonList = (column: SQLiteColumn, placeholder: string): SQL => sql`${column} in (select value from json_each(${sql.placeholder(placeholder)}))`;
