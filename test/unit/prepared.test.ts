// Queries prepared once per connection (server/db/prepared.ts): built once whether first asked for by the
// database or by one of its transactions, and run inside a transaction they see its own uncommitted writes.
// compiledRows: whole rows decoded as drizzle decodes them, whatever else shares the compiled statement.
// rowInserter: the row drizzle's insert would store, byte for byte.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, asc, eq, getTableColumns, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, transaction } from '../../server/db/client.ts';
import { compiledRows, preparedFor, rowInserter } from '../../server/db/prepared.ts';
import { activities, organizations, workspaces } from '../../server/db/schema.ts';

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
  {
    apiKeyId: 'k',
    organizationId: 'o',
    id: 'a1',
    featureType: 'comment',
    actionType: 'comment.add',
    actionUser: { userId: 'u', name: 'Zoë 😀' },
    actionUserId: 'u',
    timestamp: 1,
  },
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
  {
    apiKeyId: 'k',
    organizationId: 'o',
    id: 'a3',
    featureType: 'crdt',
    actionType: 'y',
    actionUser: { userId: 'w' },
    actionUserId: 'w',
    entityData: 0,
    resolver: false,
    timestamp: 3,
  },
  { apiKeyId: 'k', organizationId: 'other', id: 'a4', featureType: 'crdt', actionType: 'y', actionUser: { userId: 'w' }, actionUserId: 'w', timestamp: 4 },
];

let compiles = 0;
const rowsOf = compiledRows(activities, (db, shape: 'all' | 'data', columns) => {
  compiles++;
  const a = activities;
  const conditions = [eq(a.apiKeyId, sql.placeholder('apiKeyId')), eq(a.organizationId, sql.placeholder('organizationId'))];
  // a placeholder wrapped in a parameter with its column's encoder (JSON text here)
  if (shape === 'data') conditions.push(sql`${a.entityData} = ${sql.param(sql.placeholder('entityData'), a.entityData)}`);
  return db
    .select(columns)
    .from(a)
    .where(and(...conditions))
    .orderBy(asc(a.id));
});

describe('compiledRows', () => {
  const { db } = first;
  const drizzleRows = () =>
    db
      .select()
      .from(activities)
      .where(and(eq(activities.apiKeyId, 'k'), eq(activities.organizationId, 'o')))
      .orderBy(asc(activities.id))
      .all();

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

describe('rowInserter', () => {
  const rawRows = (sqlite: typeof first.sqlite, table: string) => sqlite.prepare(`SELECT * FROM ${table} ORDER BY id`).raw().all();
  const insertActivity = rowInserter(activities);
  const insertWorkspace = rowInserter(workspaces);

  it("stores what drizzle's insert stores: encoded JSON and booleans, NULL for null and for missing values", () => {
    // `first` holds ROWS as drizzle inserted them (compiledRows above); `second` gets them through rowInserter
    transaction(second.db, (tx) => {
      for (const row of ROWS) insertActivity(tx, row);
    });
    const expected = rawRows(first.sqlite, 'activities');
    expect(expected).toHaveLength(ROWS.length);
    expect(rawRows(second.sqlite, 'activities')).toEqual(expected);
  });

  it("fills a missing value with the column's default, as drizzle does; an SQL default needs a value", () => {
    const base = { name: 'W', ownerId: 'o', ownerEmail: 'o@example.com', authTokenEnc: 'enc', authTokenDigest: 'digest', createdAt: 5 };
    const rows = [
      { ...base, id: 'w1' },
      { ...base, id: 'w2', ownerName: 'Owner', plan: 'paid' as const, selfServeProduction: true, maxProductionKeys: 3, emailVerified: true, isDefault: false },
    ];
    first.db.insert(workspaces).values(rows).run();
    for (const row of rows) insertWorkspace(second.db, row);
    const expected = rawRows(first.sqlite, 'workspaces');
    expect(expected.map((r) => (r as unknown[]).slice(4, 13))).toEqual([
      ['', '', 'enc', 'digest', 'free', 0, 0, 0, 0],
      ['Owner', '', 'enc', 'digest', 'paid', 1, 3, 1, 0],
    ]);
    expect(rawRows(second.sqlite, 'workspaces')).toEqual(expected);
    // created_at's default is SQL (the database's clock): drizzle writes it into the statement, the compiled one cannot
    const { createdAt: _, ...withoutTime } = base;
    expect(() => insertWorkspace(second.db, { ...withoutTime, id: 'w3' })).toThrow('rowInserter: createdAt has an SQL default; give it a value');
    expect(rawRows(second.sqlite, 'workspaces')).toHaveLength(2);
  });

  it("upserts as drizzle's onConflictDoUpdate does: the stored row under the key gets every other column", () => {
    const key = [activities.apiKeyId, activities.organizationId, activities.id];
    const upsert = rowInserter(activities, { upsertOn: key });
    const changed = { ...ROWS[1]!, documentId: null, changes: null, entityData: { now: 'other' }, resolver: false, timestamp: 20 };
    const { apiKeyId: _k, organizationId: _o, id: _i, ...set } = changed;
    first.db.insert(activities).values(changed).onConflictDoUpdate({ target: key, set }).run();
    upsert(second.db, changed);
    // and a new key is an insert
    const fresh = { ...ROWS[0]!, id: 'a5' };
    first.db
      .insert(activities)
      .values(fresh)
      .onConflictDoUpdate({ target: key, set: { timestamp: 0 } })
      .run();
    upsert(second.db, fresh);
    const expected = rawRows(first.sqlite, 'activities');
    expect(expected).toHaveLength(ROWS.length + 1);
    expect(rawRows(second.sqlite, 'activities')).toEqual(expected);
  });

  it("runs inside the caller's transaction: a rollback takes the row back", () => {
    expect(() =>
      transaction(second.db, (tx) => {
        insertActivity(tx, { ...ROWS[0]!, id: 'rolled-back' });
        expect(tx.select().from(activities).where(eq(activities.id, 'rolled-back')).all()).toHaveLength(1);
        throw new Error('undo');
      }),
    ).toThrow('undo');
    expect(second.db.select().from(activities).where(eq(activities.id, 'rolled-back')).all()).toHaveLength(0);
  });
});
