// The deletion lists of server/db/tenancy.ts against the schema itself: every table that holds a key's data, an
// organization's, a document's or a user's is on the list of that deletion, and a `cascade` there is a real
// ON DELETE CASCADE from the owner's table.
import { getTableColumns, getTableName, is } from 'drizzle-orm';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import * as schema from '../../server/db/schema.ts';
import { DOCUMENT_DATA, KEY_DATA, ORGANIZATION_DATA, USER_DATA, type Fate } from '../../server/db/tenancy.ts';

const tables: SQLiteTable[] = (Object.values(schema) as unknown[]).filter((value): value is SQLiteTable => is(value, SQLiteTable));
const columnsOf = (table: SQLiteTable) => Object.values(getTableColumns(table)).map((c) => c.name);
const nameOf = (table: SQLiteTable) => getTableName(table);
const having = (test: (column: string) => boolean) =>
  tables
    .filter((t) => columnsOf(t).some(test))
    .map(nameOf)
    .sort();

/** The tables a foreign key with ON DELETE CASCADE leads from `table` to. */
const cascadesTo = (table: SQLiteTable) =>
  getTableConfig(table)
    .foreignKeys.filter((fk) => fk.onDelete === 'cascade')
    .map((fk) => getTableName(fk.reference().foreignTable));

/** Whether deleting a row of `owner` reaches `table` through cascading foreign keys (directly or through parents). */
function cascades(table: string, owner: string, seen = new Set<string>()): boolean {
  if (seen.has(table)) return false;
  seen.add(table);
  const t = tables.find((x) => nameOf(x) === table);
  if (!t) return false;
  return cascadesTo(t).some((parent) => parent === owner || cascades(parent, owner, seen));
}

/**
 * `owner`: the table whose row is deleted. A `cascade` table must be reached by cascading foreign keys from it, or
 * from a table the same deletion clears (`deleted` or `cascade` itself).
 */
const check = (list: Readonly<Record<string, Fate>>, owner: string, holders: string[]) => {
  expect(Object.keys(list).sort(), `every table holding the data is on the list, and no other`).toEqual(holders);
  const cleared = [
    owner,
    ...Object.entries(list)
      .filter(([, fate]) => typeof fate === 'string')
      .map(([table]) => table),
  ];
  for (const [table, fate] of Object.entries(list)) {
    if (fate === 'cascade')
      expect(
        cleared.some((from) => from !== table && cascades(table, from)),
        `${table}: a cascade from ${owner} or a table it clears`,
      ).toBe(true);
    if (typeof fate === 'object') expect(fate.kept.length, `${table}: the reason it is kept`).toBeGreaterThan(10);
  }
};

describe('what each deletion clears', () => {
  it("a key's: every table with api_key_id, by cascade", () => {
    check(
      KEY_DATA,
      'api_keys',
      having((c) => c === 'api_key_id').filter((t) => t !== 'api_keys'),
    );
  });

  it("an organization's: every table with organization_id", () => {
    check(
      ORGANIZATION_DATA,
      'organizations',
      having((c) => c === 'organization_id'),
    );
  });

  it("a document's: every table that names a document (document_id, a membership's resource, a migration's ids)", () => {
    check(DOCUMENT_DATA, 'documents', [...new Set([...having((c) => /(^|_)document_id$/.test(c)), 'memberships'])].sort());
  });

  it("a user's removal: every table that names a user", () => {
    // and the users table itself: a removal keeps the profile
    check(USER_DATA, 'users', [...having((c) => /(^|_)user_id$/.test(c)), 'users'].sort());
  });
});
