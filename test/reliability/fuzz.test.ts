// Bad input: property-based fuzzing (fast-check) of every operation of the registry, against one real server
// (a child process) with valid credentials, so that requests get past authentication to validation and the
// handlers. Inputs are generated from each operation's zod schema (through z.toJSONSchema, as /openapi.json
// does), then mutated (fields dropped or of the wrong type, huge, empty and unicode strings with lone
// surrogates, deep nesting, extra keys, numbers out of range, 10,000-item arrays), or wrapped in malformed
// envelopes (not JSON, no `data`, extra top-level keys, wrong content type or method, bytes that are not UTF-8).
// Every answer must be an envelope with a known status name and its HTTP code, never a 5xx; the server must be
// healthy afterwards. Reproduce a run with FUZZ_SEED=<seed printed> (FUZZ_REQUESTS sets the count).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_TO_HTTP } from '../../server/http/errors.ts';
import type { AnyOperation } from '../../server/http/operation.ts';
import { operations } from '../../server/operations/index.ts';
import { apiKeyHeaders, call, dataOf, resultOf, workspaceHeaders, type CallResult } from '../helpers/server.ts';
import type { Pools } from './helpers/arbitraries.ts';
import { newDataDir, removeDataDir, rssMiB, startChild, type ChildServer, type Credentials } from './helpers/child.ts';
import { requestArbitrary, sendOnceMore, type FuzzRequest } from './helpers/requests.ts';
import type { AuthTokensAnswer } from '../helpers/answers.ts';

const TOTAL = Number(process.env.FUZZ_REQUESTS ?? 20_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const CONCURRENCY = 6;
const BATCH = 200;
const ORG = 'fuzz-org';

/** workspace/create's data, as far as the set-up reads it. */
interface WorkspaceCreated {
  id: string;
  authToken: string;
  apiKeyList: Record<string, unknown>;
}
/** notifications/get's items, as far as the test reads them. */
interface NotificationItem {
  id: string;
}
/** notifications/add's data. */
interface NotificationAdded {
  notificationId: string;
}

let server: ChildServer;
let dataDir: string;
/** Workspaces for the workspace-level operations: not the default one, whose key the other calls use. */
const workspaces: Credentials[] = [];
const pools: Record<string, string[]> = {};

beforeAll(async () => {
  dataDir = newDataDir('fuzz');
  // AI providers named by a fuzzed configuration are not reachable here: fail fast
  server = await startChild(dataDir, { AI_TIMEOUT_MS: '2000' });
  const must = async (res: Promise<CallResult>) => {
    const answer = await res;
    if (answer.status !== 200) throw new Error(`set-up failed: ${JSON.stringify(answer.body)}`);
    return dataOf<Record<string, unknown>>(answer);
  };
  await must(
    server.callK('/v2/organizations/documents/add', {
      organizationId: ORG,
      createOrganization: true,
      documents: [{ documentId: 'doc-1' }, { documentId: 'doc-2', accessType: 'restricted' }],
    }),
  );
  await must(
    server.callK('/v2/users/add', {
      organizationId: ORG,
      users: [
        { userId: 'ann', accessRole: 'editor' },
        { userId: 'bob', accessRole: 'viewer' },
      ],
    }),
  );
  await must(server.callK('/v2/crdt/add', { organizationId: ORG, documentId: 'doc-1', editorId: 'e1', type: 'text', data: 'hello' }));
  const notification = await must(
    server.callK('/v2/notifications/add', {
      organizationId: ORG,
      documentId: 'doc-1',
      actionUser: { userId: 'ann' },
      notifyUsers: [{ userId: 'bob' }],
      displayHeadlineMessageTemplate: 'hi',
      displayBodyMessage: 'body',
    }),
  );
  await must(
    server.callK('/v2/commentannotations/add', {
      organizationId: ORG,
      documentId: 'doc-1',
      commentAnnotations: [{ annotationId: 'annotation-1', commentData: [{ commentText: 'first', from: { userId: 'ann' } }] }],
    }),
  );
  for (let i = 0; i < 3; i++) {
    const created = await call(server.url, '/v2/workspace/create', { ownerEmail: `fuzz-owner-${i}@example.com`, name: 'Fuzz' });
    const data = dataOf<WorkspaceCreated>(created);
    const apiKey = Object.keys(data.apiKeyList)[0] as string;
    const tokens = await call(
      server.url,
      '/v2/workspace/authtokens/get',
      { apiKey },
      workspaceHeaders({ workspaceId: data.id, workspaceAuthToken: data.authToken }),
    );
    workspaces.push({ workspaceId: data.id, workspaceAuthToken: data.authToken, apiKey, authToken: dataOf<AuthTokensAnswer>(tokens).authTokens[0]!.token });
  }
  Object.assign(pools, {
    organizationId: [ORG],
    documentId: ['doc-1', 'doc-2'],
    userId: ['ann', 'bob'],
    editorId: ['e1'],
    notificationId: [String(notification.notificationId)],
    annotationId: ['annotation-1'],
    // the extra workspaces' keys: a fuzzed token reset or key update never touches the key the calls use
    apiKey: workspaces.map((w) => w.apiKey),
    ownerEmail: workspaces.map((_, i) => `fuzz-owner-${i}@example.com`),
  } satisfies Pools);
});
afterAll(async () => {
  await server?.stop();
  removeDataDir(dataDir);
});

function headersFor(op: AnyOperation, request: FuzzRequest, n: number): Record<string, string> {
  const headers: Record<string, string> = request.contentType === null ? {} : { 'content-type': request.contentType };
  if (request.credentials === 'none' || op.auth === 'public') return headers;
  if (op.auth === 'apiKey') {
    const own = server.credentials;
    return { ...headers, ...apiKeyHeaders(request.credentials === 'wrong' ? { apiKey: own.apiKey, authToken: 'wrong' } : own) };
  }
  const workspace = workspaces[n % workspaces.length] as Credentials;
  return { ...headers, ...workspaceHeaders(request.credentials === 'wrong' ? { ...workspace, workspaceAuthToken: 'wrong' } : workspace) };
}

const KNOWN_STATUSES = new Set(Object.keys(STATUS_TO_HTTP).filter((s) => s !== 'OK'));

/** What is wrong with an answer (null when it is a proper envelope without a 5xx). */
function problemWith(status: number, text: string): string | null {
  if (status >= 500) return `HTTP ${status}`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 200)}`;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return `not an object: ${text.slice(0, 200)}`;
  const keys = Object.keys(body);
  if (keys.length !== 1) return `envelope keys ${keys.join(',')}`;
  if (keys[0] === 'result') return status === 200 ? null : `result with HTTP ${status}`;
  if (keys[0] !== 'error') return `envelope key ${keys[0]}`;
  const error = (body as { error: { status?: unknown; message?: unknown } }).error;
  if (typeof error?.status !== 'string' || !KNOWN_STATUSES.has(error.status)) return `unknown status ${String(error?.status)}`;
  if (typeof error.message !== 'string' || error.message.length === 0) return 'error without a message';
  const expected = STATUS_TO_HTTP[error.status as keyof typeof STATUS_TO_HTTP];
  return expected === status ? null : `${error.status} answered with HTTP ${status}, not ${expected}`;
}

describe('bad input: fuzzing every operation', () => {
  it(
    `answers ${TOTAL} generated and mutated requests with envelopes, never a 5xx`,
    async () => {
      const started = Date.now();
      const rssBefore = rssMiB(server.pid);
      const histogram = new Map<string, number>();
      const kinds = new Map<string, number>();
      const findings: string[] = [];
      const dropped: string[] = [];
      let sent = 0;
      // operation chosen per request, uniformly over the registry; the seed makes a run reproducible
      // (each operation's arbitrary built once: building one costs z.toJSONSchema and regex compilation)
      const perOperation = operations.map((op) => requestArbitrary(op, pools).map((request) => ({ op, request })));
      const arbitrary = fc.integer({ min: 0, max: operations.length - 1 }).chain((i) => perOperation[i]!);
      for (let batch = 0; sent < TOTAL; batch++) {
        const requests = fc.sample(arbitrary, { numRuns: Math.min(BATCH, TOTAL - sent), seed: SEED + batch });
        let next = 0;
        const worker = async () => {
          for (let item = requests[next++]; item; item = requests[next++]) {
            const { op, request } = item;
            const n = sent++;
            const describe = () => {
              const body = typeof request.body === 'string' ? request.body.slice(0, 500) : request.body ? `bytes(${request.body.length})` : '';
              return `${request.method} ${request.path} [${request.kind}] content-type=${request.contentType} body=${body}`;
            };
            const send = async () => {
              const response = await fetch(server.url + request.path, { method: request.method, headers: headersFor(op, request, n), body: request.body });
              return { response, text: await response.text() };
            };
            const answered = await sendOnceMore(send, (cause, again) =>
              dropped.push(again ? `again: ${cause}` : `${cause} (server ${server.cli.child.exitCode === null ? 'alive' : 'dead'}) for ${describe()}`),
            );
            if (answered === undefined) continue;
            const { response, text } = answered;
            const status = request.method === 'HEAD' ? null : problemWith(response.status, text);
            const name =
              request.method === 'HEAD'
                ? 'HEAD'
                : status
                  ? 'BROKEN'
                  : response.status === 200
                    ? 'OK'
                    : (JSON.parse(text) as { error: { status: string } }).error.status;
            const label = `${response.status} ${name}`;
            histogram.set(label, (histogram.get(label) ?? 0) + 1);
            const kind = request.kind.split(':')[0] as string;
            kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
            if (status) findings.push(`${status} for ${describe()}`);
          }
        };
        await Promise.all(Array.from({ length: CONCURRENCY }, worker));
        expect(server.cli.child.exitCode, server.cli.output()).toBeNull();
      }
      const seconds = (Date.now() - started) / 1000;
      // healthy after: it answers, reads real data, and its memory did not run away
      const ping = await call(server.url, '/v2/ping', {});
      // (the fuzz may have deleted anything it was given: write a fresh row, then read it back)
      const written = await server.callK('/v2/notifications/add', {
        organizationId: 'after-fuzz',
        createOrganization: true,
        documentId: 'doc',
        createDocument: true,
        actionUser: { userId: 'ann' },
        notifyUsers: [{ userId: 'bob' }],
        displayHeadlineMessageTemplate: 'still here',
        displayBodyMessage: 'after',
      });
      const read = await server.callK('/v2/notifications/get', { organizationId: 'after-fuzz', documentId: 'doc' });
      const rssAfter = rssMiB(server.pid);
      console.log(
        [
          `fuzz: ${sent} requests over ${operations.length} operations in ${seconds.toFixed(0)} s (${Math.round(sent / seconds)}/s, seed ${SEED}); 5xx or non-envelope answers: ${findings.length}`,
          `  kinds: ${[...kinds].map(([k, v]) => `${k} ${v}`).join(', ')}`,
          `  answers: ${[...histogram]
            .sort((a, b) => b[1] - a[1])
            .map(([k, v]) => `${k}: ${v}`)
            .join(', ')}`,
          `  server RSS: ${rssBefore} MiB before, ${rssAfter} MiB after`,
          `  connections closed before an answer (each request sent once more): ${dropped.length}`,
          ...dropped.slice(0, 10).map((d) => `  DROPPED ${d}`),
          ...findings.slice(0, 30).map((f) => `  FINDING ${f}`),
        ].join('\n'),
      );
      expect(findings).toEqual([]);
      expect(sent).toBeGreaterThanOrEqual(TOTAL);
      expect(resultOf(ping).message).toBe('pong');
      expect(written.status, JSON.stringify(written.body)).toBe(200);
      expect(dataOf<NotificationItem[]>(read).map((n: { id: string }) => n.id)).toEqual([dataOf<NotificationAdded>(written).notificationId]);
      // "not exploding": the fuzz leaves the server within a few hundred MiB of where it started
      expect(rssAfter).toBeLessThan(rssBefore + 400);
      // 20,000 requests take a few minutes on an idle 2-core machine; the margin is for a busy one
    },
    30 * 60_000,
  );
});
