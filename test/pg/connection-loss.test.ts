// A Hearth on PostgreSQL whose connections are lost under load (PostgreSQL terminating its backends, as a restart or
// an administrator does): the server goes on, each call in flight is answered 200 or UNAVAILABLE (503, the error
// envelope), never INTERNAL and never a crash, and the calls after it are answered as before. Before, a connection
// lost between two statements of a unit of work was an 'error' event nobody listened to, and it ended the process.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

type Body = { result?: unknown; error?: { status: string; message: string } };

const add = (i: number) =>
  t.callK<Body>('/v2/notifications/add', {
    organizationId: 'org',
    createOrganization: true,
    documentId: 'doc',
    createDocument: true,
    actionUser: { userId: 'actor' },
    displayHeadlineMessageTemplate: 'h',
    displayBodyMessage: `n${i}`,
    notifyUsers: [{ userId: `reader-${i % 5}` }],
  });

it('answers the calls in flight 200 or UNAVAILABLE while PostgreSQL terminates its backends, and every call after them 200', async () => {
  expect(t.server.app.storage.engine.kind).toBe('postgres');
  const answers: Array<{ status: number; body: Body }> = [];
  let terminated = 0;
  for (let round = 0; round < 5; round++) {
    const calls = Array.from({ length: 40 }, (_, i) => add(round * 40 + i));
    // the server's own connections (application_name 'hearth', on its database: the server PostgreSQL runs is shared
    // by the run's test files, each with a database of its own), while its units of work hold them
    await new Promise((resolve) => setTimeout(resolve, 2 + round * 2));
    const rows = await t.query<{ n: number | string }>(
      "SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE application_name = 'hearth' AND datname = current_database() AND pid <> pg_backend_pid()",
    );
    terminated += Number(rows[0]?.n);
    answers.push(...(await Promise.all(calls)));
  }
  expect(terminated).toBeGreaterThan(0);
  for (const answer of answers) {
    if (answer.status === 200) continue;
    expect(answer.status, JSON.stringify(answer.body)).toBe(503);
    expect(answer.body.error?.status).toBe('UNAVAILABLE');
    expect(answer.body.error?.message).toMatch(/connection to the database was lost/);
  }
  // the server is up and its pool has new connections
  const after = await Promise.all(Array.from({ length: 20 }, (_, i) => add(1000 + i)));
  for (const answer of after) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
});
