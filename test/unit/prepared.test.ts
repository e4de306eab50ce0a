// Queries prepared once per connection (server/db/prepared.ts): built once whether first asked for by the
// database or by one of its transactions, and run inside a transaction they see its own uncommitted writes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, transaction } from '../../server/db/client.ts';
import { preparedFor } from '../../server/db/prepared.ts';
import { organizations } from '../../server/db/schema.ts';

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
