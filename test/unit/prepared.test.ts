// Queries prepared once per connection (server/db/prepared.ts): built once whether first asked for by the
// database or by one of its transactions, and run inside a transaction they see its own uncommitted writes.
// compiledRows: whole rows decoded as drizzle decodes them, whatever else shares the compiled statement.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, asc, eq, getTableColumns, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, transaction } from '../../server/db/client.ts';
import { compiledRows, preparedFor } from '../../server/db/prepared.ts';
import { activities, organizations } from '../../server/db/schema.ts';

const dir = mkdtempSync(join(tmpdir(), 'hearth-prepared-'));
const first = openDatabase(join(dir, 'one.db'));
const second = openDatabase(join(dir, 'two.db'));
afterAll(() => {
  first.close();
  second.close();
  rmSync(dir, { recursive: true, force: true });
});

let builds = 0;
const byId = preparedFor((db) => {
  builds++;
  return db
    .select()
    .from(organizations)
    .where(and(eq(organizations.apiKeyId, sql.placeholder('apiKeyId')), eq(organizations.id, sql.placeholder('id'))))
    .prepare();
});

// organizations without their API key rows: what is tested is the query's connection, not the schema's keys
for (const database of [first, second]) database.sqlite.pragma('foreign_keys = OFF');

describe('preparedFor', () => {
  it('builds once per connection, shared by the database and its transactions', () => {
    expect(byId(first.db).get({ apiKeyId: 'k', id: 'o' })).toBeUndefined();
    expect(builds).toBe(1);
    transaction(first.db, (tx) => {
      tx.insert(organizations).values({ apiKeyId: 'k', id: 'o', name: 'O', disabled: false, metadata: {}, createdAt: 1, updatedAt: 1 }).run();
      // the transaction's own write, through the query prepared on the database
      expect(byId(tx).get({ apiKeyId: 'k', id: 'o' })?.name).toBe('O');
      tx.transaction((nested) => expect(byId(nested).get({ apiKeyId: 'k', id: 'o' })?.metadata).toEqual({}));
    });
    expect(builds).toBe(1);
    expect(byId(first.db).get({ apiKeyId: 'k', id: 'o' })?.name).toBe('O');
  });

  it('builds anew for another connection, which reads its own file', () => {
    expect(byId(second.db).get({ apiKeyId: 'k', id: 'o' })).toBeUndefined();
    expect(builds).toBe(2);
  });
});

// every kind of column activities has: text, nullable text, JSON (objects, arrays, scalars, null), boolean, integer
const ROWS: Array<typeof activities.$inferInsert> = [
  { apiKeyId: 'k', organizationId: 'o', id: 'a1', featureType: 'comment', actionType: 'comment.add', actionUser: { userId: 'u', name: 'Zoë 😀' }, actionUserId: 'u', timestamp: 1 },
  {
    apiKeyId: 'k',
    organizationId: 'o',
    id: 'a2',
    documentId: 'd',
    featureType: 'custom',
    actionType: 'x',
    actionUser: { userId: 'v' },
    actionUserId: 'v',
    targetEntityId: 't',
    targetSubEntityId: 's',
    changes: { title: { from: 'a', to: null } },
    entityData: [1, 2.5, 'x', { deep: true }],
    entityTargetData: 'plain string',
    displayMessageTemplate: '{{user}}',
    displayMessageTemplateData: { '2': 'two', a: 1 },
    actionIcon: 'icon',
    resolver: true,
    timestamp: 2,
  },
  { apiKeyId: 'k', organizationId: 'o', id: 'a3', featureType: 'crdt', actionType: 'y', actionUser: { userId: 'w' }, actionUserId: 'w', entityData: 0, resolver: false, timestamp: 3 },
  { apiKeyId: 'k', organizationId: 'other', id: 'a4', featureType: 'crdt', actionType: 'y', actionUser: { userId: 'w' }, actionUserId: 'w', timestamp: 4 },
];

let compiles = 0;
const rowsOf = compiledRows(activities, (db, shape: 'all' | 'data', columns) => {
  compiles++;
  const a = activities;
  const conditions = [eq(a.apiKeyId, sql.placeholder('apiKeyId')), eq(a.organizationId, sql.placeholder('organizationId'))];
  // a placeholder wrapped in a parameter with its column's encoder (JSON text here)
  if (shape === 'data') conditions.push(sql`${a.entityData} = ${sql.param(sql.placeholder('entityData'), a.entityData)}`);
  return db.select(columns).from(a).where(and(...conditions)).orderBy(asc(a.id));
});

describe('compiledRows', () => {
  const { db } = first;
  const drizzleRows = () => db.select().from(activities).where(and(eq(activities.apiKeyId, 'k'), eq(activities.organizationId, 'o'))).orderBy(asc(activities.id)).all();

  it("decodes whole rows as drizzle's own query does: the same keys in the same order, the same values", () => {
    db.insert(activities).values(ROWS).run();
    const expected = drizzleRows();
    expect(expected).toHaveLength(3);
    const got = rowsOf(db, 'all', { apiKeyId: 'k', organizationId: 'o' });
    expect(JSON.stringify(got)).toBe(JSON.stringify(expected));
    expect(got).toEqual(expected);
    expect(got[1]?.resolver).toBe(true);
    expect(got[2]?.resolver).toBe(false);
    expect(got[0]?.changes).toBeNull();
  });

  it("binds a placeholder through its column's encoder", () => {
    expect(rowsOf(db, 'data', { apiKeyId: 'k', organizationId: 'o', entityData: [1, 2.5, 'x', { deep: true }] }).map((r) => r.id)).toEqual(['a2']);
    expect(rowsOf(db, 'data', { apiKeyId: 'k', organizationId: 'o', entityData: 0 }).map((r) => r.id)).toEqual(['a3']);
  });

  it('still decodes after another caller ran its statement with object rows (the statement cache shares it)', () => {
    expect(rowsOf(db, 'all', { apiKeyId: 'k', organizationId: 'o' })).toHaveLength(3);
    const before = compiles;
    // the same SQL text through the connection: the cache hands the shared statement out with raw off
    const text = db
      .select(getTableColumns(activities))
      .from(activities)
      .where(and(eq(activities.apiKeyId, sql.placeholder('apiKeyId')), eq(activities.organizationId, sql.placeholder('organizationId'))))
      .orderBy(asc(activities.id))
      .toSQL().sql;
    const objects = first.sqlite.prepare<unknown[], { id: string }>(text).all('k', 'o');
    expect(objects.map((r) => r.id)).toEqual(['a1', 'a2', 'a3']);
    const got = rowsOf(db, 'all', { apiKeyId: 'k', organizationId: 'o' });
    expect(got.map((r) => r.id)).toEqual(['a1', 'a2', 'a3']);
    expect(got[0]?.actionUser).toEqual({ userId: 'u', name: 'Zoë 😀' });
    expect(compiles).toBe(before);
  });

  it('refuses a call without the value of one of its placeholders', () => {
    expect(() => rowsOf(db, 'all', { apiKeyId: 'k' })).toThrow('No value for placeholder "organizationId"');
  });
});
