// Every keyset-paginated list reads its page in order from an index: no list sorts the rows it matched before it
// takes a page (SQLite's "USE TEMP B-TREE FOR ORDER BY"), which would make each page cost as much as the whole
// organization. The feed bench measures it at 1M rows; this pins it on the query plans, for the filters that an
// index leads with. Each call's page statement is caught as it is compiled, on its first use.
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { sqliteEngineOf } from '../../server/db/repos/index.ts';

let t: TestServer;
let prepared: string[] = [];
let restore: () => void;

beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  // both connections: reads outside units of work compile on the main one, units of work on the write one
  const restores = [sqliteEngineOf(t.server.app.storage).main.sqlite, sqliteEngineOf(t.server.app.storage).writer.sqlite].map((sqlite) => {
    const prepare = sqlite.prepare;
    sqlite.prepare = ((source: string) => {
      prepared.push(source);
      return prepare.call(sqlite, source);
    }) as typeof sqlite.prepare;
    return () => (sqlite.prepare = prepare);
  });
  restore = () => {
    for (const r of restores) r();
  };
});
afterAll(() => {
  restore();
  return t.close();
});

/** The plan of the page statement of `table` that a call compiles (its first call with these filters). */
async function pagePlan(path: string, data: Record<string, unknown>, table: string): Promise<string> {
  prepared = [];
  const res = await t.callK(path, data);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const page = prepared.filter((sql) => sql.includes(`from "${table}"`) && / limit [+]?\?$/.test(sql));
  expect(page, `${path} ${JSON.stringify(data)}: one page statement compiled`).toHaveLength(1);
  const sql = page[0] as string;
  const sqlite: Database.Database = sqliteEngineOf(t.server.app.storage).main.sqlite;
  const parameters = Array.from({ length: sql.split('?').length - 1 }, () => 'x');
  return sqlite
    .prepare<unknown[], { detail: string }>(`explain query plan ${sql}`)
    .all(...parameters)
    .map((row) => row.detail)
    .join(' | ');
}

const CASES: Array<[string, Record<string, unknown>, string]> = [
  ['/v2/activities/get', { organizationId: 'acme' }, 'activities'],
  ['/v2/activities/get', { organizationId: 'acme', documentId: 'doc' }, 'activities'],
  ['/v2/activities/get', { organizationId: 'acme', targetEntityId: 't' }, 'activities'],
  ['/v2/activities/get', { organizationId: 'acme', userId: 'u' }, 'activities'],
  ['/v2/activities/get', { organizationId: 'acme', featureTypes: ['crdt'], order: 'asc' }, 'activities'],
  ['/v2/commentannotations/get', { organizationId: 'acme' }, 'comment_annotations'],
  ['/v2/commentannotations/get', { organizationId: 'acme', documentId: 'doc' }, 'comment_annotations'],
  ['/v2/commentannotations/get', { organizationId: 'acme', documentIds: ['doc'], order: 'asc' }, 'comment_annotations'],
  ['/v2/commentannotations/get', { organizationId: 'acme', statusIds: ['OPEN'], userId: 'u' }, 'comment_annotations'],
  ['/v2/recordings/get', { organizationId: 'acme' }, 'recordings'],
  ['/v2/recordings/get', { organizationId: 'acme', documentId: 'doc' }, 'recordings'],
  ['/v2/agents/list', {}, 'agents'],
  ['/v2/agents/execution/list', {}, 'agent_executions'],
  ['/v2/agents/execution/list', { agentId: 'a', orderDirection: 'asc' }, 'agent_executions'],
  ['/v2/organizations/documents/get', { organizationId: 'acme' }, 'documents'],
];

describe('paginated lists read their page in index order', () => {
  it.each(CASES)('%s %j', async (path, data, table) => {
    const plan = await pagePlan(path, data, table);
    expect(plan).toMatch(/^SEARCH /);
    expect(plan).not.toContain('TEMP B-TREE');
  });
});

describe("a reply reads its thread's first and last comment from an index", () => {
  it('without sorting the thread (the judgment of every reply names the thread by its first comment)', async () => {
    const from = { userId: 'ann', name: 'Ann' };
    const created = await t.callK('/v2/commentannotations/add', {
      organizationId: 'acme',
      documentId: 'doc',
      commentAnnotations: [{ annotationId: 'thread', commentData: [{ commentText: 'first', from }] }],
    });
    expect(created.status).toBe(200);
    prepared = [];
    const reply = await t.callK('/v2/commentannotations/comments/add', {
      organizationId: 'acme',
      annotationId: 'thread',
      commentData: [{ commentText: 'a reply', from }],
    });
    expect(reply.status).toBe(200);
    const ends = prepared.filter((sql) => sql.includes('from "comments"') && sql.includes('order by "comments"."created_at"') && / limit [+]?\?$/.test(sql));
    expect(ends).toHaveLength(2);
    const sqlite: Database.Database = sqliteEngineOf(t.server.app.storage).main.sqlite;
    for (const sql of ends) {
      const plan = sqlite
        .prepare<unknown[], { detail: string }>(`explain query plan ${sql}`)
        .all('k', 'o', 'a', 1)
        .map((row) => row.detail)
        .join(' | ');
      expect(plan).toMatch(/^SEARCH comments USING (COVERING )?INDEX comments_thread_time/);
      expect(plan).not.toContain('TEMP B-TREE');
    }
  });
});
