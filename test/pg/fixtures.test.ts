// Fixtures on PostgreSQL: the loader writes through the operations and their shared services, so the example
// loads into a PostgreSQL Hearth as into SQLite (test/cli/fixtures.test.ts) and the API answers it alike; a refusal
// of a late part rolls the whole file back there too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportFixtures } from '../../server/testing/fixtures-export.ts';
import { FixturesError, loadFixtures, parseFixtures, readFixturesFile } from '../../server/testing/fixtures.ts';
import { EXAMPLE, EXAMPLE_FILE, expectExampleOverApi } from '../cli/fixtures-checks.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('fixtures on PostgreSQL', () => {
  it('runs on PostgreSQL', () => {
    expect(t.server.app.storage.engine.kind).toBe('postgres');
  });

  it('loads the example; the API answers its keys, documents, access, comments, notifications and Yjs content', async () => {
    const summary = await loadFixtures(t.server.app, readFixturesFile(EXAMPLE_FILE));
    expect(summary.counts.contents).toBe(3);
    await expectExampleOverApi(t.url);
  });

  it('exports them from PostgreSQL as fixtures that load into another fresh database with the same answers', async () => {
    const exported = await exportFixtures(t.server.app, { workspaceId: EXAMPLE.workspaceId });
    expect(exported.workspaces.map((w) => w.id)).toEqual([EXAMPLE.workspaceId]);
    const other = await startTestServer();
    try {
      await loadFixtures(other.server.app, parseFixtures(exported));
      await expectExampleOverApi(other.url);
      expect(await exportFixtures(other.server.app, { workspaceId: EXAMPLE.workspaceId })).toEqual(exported);
    } finally {
      await other.close();
    }
  });

  it('rolls the whole file back when an operation refuses a late part', async () => {
    const fixtures = parseFixtures({
      version: 1,
      workspaces: [
        {
          id: 'ws_pg_late',
          authToken: 'ws_token_pg_late_000',
          ownerEmail: 'owner@example.com',
          apiKeys: [
            {
              id: 'key_pg_late',
              authTokens: [{ token: 'yauth_pg_late_0000000' }],
              organizations: [
                { id: 'pg-first', documents: [{ id: 'doc', content: [{ type: 'text', data: 'never stored' }] }] },
                {
                  id: 'pg-second',
                  documents: [
                    { id: 'doc', comments: [{ commentData: [{ commentText: 'psst', from: { userId: 'u1' } }], visibility: { type: 'restricted' } }] },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    await expect(loadFixtures(t.server.app, fixtures)).rejects.toThrow(FixturesError);
    await expect(loadFixtures(t.server.app, fixtures)).rejects.toThrow(
      /organizations\[1\].documents\[0\].comments: \/v2\/commentannotations\/add answered FAILED_PRECONDITION/,
    );
    expect(await t.query('SELECT id FROM workspaces WHERE id = ?', ['ws_pg_late'])).toEqual([]);
    expect(await t.query('SELECT id FROM organizations WHERE id IN (?, ?)', ['pg-first', 'pg-second'])).toEqual([]);
    expect(await t.query('SELECT document_id FROM crdt_documents WHERE api_key_id = ?', ['key_pg_late'])).toEqual([]);
  });
});
