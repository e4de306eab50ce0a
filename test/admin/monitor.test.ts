import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type {
  authTokenAnswer,
  authTokensAnswer,
  endpointSecretAnswer,
  userTokenAnswer,
  workspaceAnswer,
  workspaceAuthTokenAnswer,
} from '../../shared/schemas/answers.ts';
import { isSecret } from '../../shared/schemas/common.ts';
import { operations } from '../../server/operations/index.ts';
import type { AnyOperation } from '../../server/http/operation.ts';
import { adminCookie } from '../helpers/admin.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { apiKeyHeaders, call, dataOf, eventually, startTestServer, workspaceHeaders, type TestServer } from '../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

/** advancedwebhook/endpoints/create's data: the endpoint's id, under either name. */
interface CreatedEndpoint {
  endpointId?: string;
  id?: string;
}

const UI = { 'x-hearth-ui': '1' };
const get = (path: string, cookie: string) => fetch(t.url + path, { headers: { ...UI, cookie } });

/** A live feed of the monitor as a session sees it: every event it sent so far. */
async function watch(cookie: string) {
  const controller = new AbortController();
  const res = await fetch(t.url + '/admin/api/requests/stream', { headers: { cookie }, signal: controller.signal });
  const reader = res.body!.getReader();
  const events: Array<{ id: number; path: string; caller: string | null; requestId: string }> = [];
  let connected!: () => void;
  const ready = new Promise<void>((resolve) => (connected = resolve));
  void (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += new TextDecoder().decode(value);
        for (let i = buffer.indexOf('\n\n'); i >= 0; i = buffer.indexOf('\n\n')) {
          const chunk = buffer.slice(0, i);
          buffer = buffer.slice(i + 2);
          if (chunk === ': connected') connected();
          if (chunk.startsWith('data: ')) events.push(JSON.parse(chunk.slice(6)));
        }
      }
    } catch {
      // aborted
    }
  })();
  await ready;
  return { events, stop: () => controller.abort() };
}

/** Waits until `check` holds (the stream's events arrive after the call's answer). */
async function until(check: () => boolean, what: string) {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

describe('request monitor per workspace', () => {
  it("shows a session only its own workspace's calls: list, live feed and detail", async () => {
    const other = await createWorkspace(t);
    const mine = await adminCookie(t);
    const theirs = await adminCookie(t, other.workspaceId);
    const idsOf = async (cookie: string) =>
      ((await (await get('/admin/api/requests', cookie)).json()).items as Array<{ requestId: string }>).map((e) => e.requestId);
    const before = { mine: await idsOf(mine), theirs: await idsOf(theirs) };
    const feedMine = await watch(mine);
    const feedTheirs = await watch(theirs);

    const a = await t.callK('/v2/users/add', { organizationId: 'org-a', users: [{ userId: 'ann', name: 'Ann Secret-Name', email: 'ann@example.com' }] });
    const b = await call(
      t.url,
      '/v2/users/add',
      { organizationId: 'org-b', users: [{ userId: 'bob', name: 'Bob', email: 'bob@example.com' }] },
      apiKeyHeaders(other),
    );
    const c = await t.callW('/v2/workspace/apikeys/get', {});
    await until(() => feedMine.events.length >= 2 && feedTheirs.events.length >= 1, 'both feeds');
    feedMine.stop();
    feedTheirs.stop();

    const idOf = (r: { headers: Headers }) => r.headers.get('x-request-id');
    expect(feedMine.events.map((e) => e.requestId)).toEqual([idOf(a), idOf(c)]);
    expect(feedTheirs.events.map((e) => e.requestId)).toEqual([idOf(b)]);

    expect(await idsOf(mine)).toEqual([...before.mine, idOf(a), idOf(c)]);
    expect(await idsOf(theirs)).toEqual([...before.theirs, idOf(b)]);

    // a call of one workspace is not found by id from the other's session
    const myCall = feedMine.events[0]!;
    const detail = await (await get(`/admin/api/requests/${myCall.id}`, mine)).json();
    expect(detail.request).toContain('Ann Secret-Name');
    expect((await get(`/admin/api/requests/${myCall.id}`, theirs)).status).toBe(404);
  });

  it('keeps calls refused for wrong tokens for the workspace whose key or id they named, and the rest for nobody (public operations, unknown keys)', async () => {
    const cookie = await adminCookie(t);
    const items = async () => (await (await get('/admin/api/requests', cookie)).json()).items as Array<{ path: string; status: number; caller: string }>;
    const before = (await items()).length;
    await t.callPublic('/v2/ping', {});
    await call(t.url, '/v2/users/add', { organizationId: 'o', users: [{ userId: 'x' }] }, apiKeyHeaders({ apiKey: 'no-such-key', authToken: 'wrong' }));
    await call(t.url, '/v2/users/add', { organizationId: 'o', users: [{ userId: 'x' }] }, apiKeyHeaders({ apiKey: t.credentials.apiKey, authToken: 'wrong' }));
    await call(t.url, '/v2/workspace/apikeys/get', {}, workspaceHeaders({ workspaceId: t.credentials.workspaceId, workspaceAuthToken: 'wrong' }));
    // issue 44: the refused calls are the workspace's to see (recorded once the named key's owner is read)
    await eventually(async () => expect((await items()).length).toBe(before + 2));
    expect(
      (await items())
        .slice(-2)
        .map((c) => [c.path, c.status, c.caller])
        .sort(),
    ).toEqual([
      ['/v2/users/add', 403, t.credentials.apiKey],
      ['/v2/workspace/apikeys/get', 403, t.credentials.workspaceId],
    ]);
  });
});

// --- secrets: marked once in the schemas, never in the monitor ---

type Def = {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
};
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/**
 * A value shaped like `schema` that holds `canary` at every field marked secret and nothing else: objects with
 * the keys that lead to a secret, arrays of one item, records under one key. Undefined when nothing inside is marked.
 */
function canaryValue(schema: z.ZodType, canary: string, depth = 0): unknown {
  if (depth > 20) return undefined;
  if (isSecret(schema)) return canary;
  const def = defOf(schema);
  switch (def.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(def.shape ?? {})) {
        const value = canaryValue(field, canary, depth + 1);
        if (value !== undefined) out[key] = value;
      }
      return Object.keys(out).length ? out : undefined;
    }
    case 'array': {
      const item = def.element ? canaryValue(def.element, canary, depth + 1) : undefined;
      return item === undefined ? undefined : [item];
    }
    case 'record': {
      const value = def.valueType ? canaryValue(def.valueType, canary, depth + 1) : undefined;
      return value === undefined ? undefined : { someKey: value };
    }
    case 'union':
      for (const option of def.options ?? []) {
        const value = canaryValue(option, canary, depth + 1);
        if (value !== undefined) return value;
      }
      return undefined;
    case 'intersection':
      return canaryValue(def.left as z.ZodType, canary, depth + 1) ?? canaryValue(def.right as z.ZodType, canary, depth + 1);
    case 'pipe':
      return canaryValue(def.in as z.ZodType, canary, depth + 1);
    default:
      return def.innerType ? canaryValue(def.innerType, canary, depth + 1) : undefined;
  }
}

/** Every kept call of the session, with its bodies. */
async function everything(cookie: string): Promise<string> {
  const items = (await (await get('/admin/api/requests', cookie)).json()).items as Array<{ id: number }>;
  const details = await Promise.all(items.map(async (item) => (await get(`/admin/api/requests/${item.id}`, cookie)).text()));
  return details.join('\n');
}

describe('secret fields in the request monitor', () => {
  it("walks every operation's input schema: a value at any field marked secret never reaches the monitor", async () => {
    const cookie = await adminCookie(t);
    const feed = await watch(cookie);
    const marked: string[] = [];
    for (const op of operations as readonly AnyOperation[]) {
      const canary = `canary-${op.path.replace(/\W+/g, '-')}-${Math.random().toString(36).slice(2)}`;
      const data = canaryValue(op.input, canary);
      if (data === undefined) continue;
      marked.push(op.path);
      // the call may be refused (other fields missing): its body is in the monitor all the same
      const res = op.auth === 'workspace' ? await t.callW(op.path, data) : await t.callK(op.path, data);
      const requestId = res.headers.get('x-request-id') as string;
      if (op.auth === 'public') {
        // no workspace's credentials verified it: kept for nobody
        expect(await everything(cookie), op.path).not.toContain(canary);
        continue;
      }
      await until(() => feed.events.some((e) => e.requestId === requestId), op.path);
      const id = feed.events.find((e) => e.requestId === requestId)!.id;
      const detail = await (await get(`/admin/api/requests/${id}`, cookie)).text();
      expect(detail, op.path).toContain('[redacted]');
      expect(detail, op.path).not.toContain(canary);
    }
    feed.stop();
    // the operations that take secrets are all marked (a new one without a mark would not be in this list)
    expect(marked).toEqual(
      expect.arrayContaining([
        '/v2/workspace/apikey/create',
        '/v2/workspace/apikeyconfig/update',
        '/v2/workspace/emailconfig/update',
        '/v2/workspace/webhookconfig/update',
        '/v2/workspace/authtoken/reset',
        '/v2/workspace/advancedwebhook/endpoints/secret/rotate',
        '/v1/auth/token/get',
        '/v2/workflow/definitions/create',
        '/v2/workflow/definitions/update',
      ]),
    );
  });

  it('redacts every secret an answer carries, by the operations’ output schemas', async () => {
    const cookie = await adminCookie(t);
    const feed = await watch(cookie);
    const secrets: string[] = [];
    const keep = (value: unknown) => {
      expect(typeof value).toBe('string');
      secrets.push(value as string);
    };
    const called = new Set<string>();
    const k = async <T>(path: string, data: unknown) => {
      called.add(path);
      const res = await t.callK(path, data);
      expect(res.status, path).toBe(200);
      return dataOf<T>(res);
    };
    let last = '';
    const w = async <T>(path: string, data: unknown) => {
      called.add(path);
      const res = await t.callW(path, data);
      expect(res.status, path).toBe(200);
      last = res.headers.get('x-request-id') as string;
      return dataOf<T>(res);
    };
    keep((await w<z.infer<typeof workspaceAnswer>>('/v2/workspace/get', {})).authToken);
    keep((await w<z.infer<typeof authTokensAnswer>>('/v2/workspace/authtokens/get', { apiKey: t.credentials.apiKey })).authTokens[0]!.token);
    const created = await call(t.url, '/v2/workspace/create', { ownerEmail: 'owner2@example.com' }, workspaceHeaders(t.credentials));
    called.add('/v2/workspace/create');
    keep(dataOf<z.infer<typeof workspaceAnswer>>(created).authToken);
    keep((await k<z.infer<typeof userTokenAnswer>>('/v2/auth/generate_token', { userId: 'u1', userProperties: { organizationId: 'o1' } })).token);
    called.add('/v1/auth/token/get');
    const legacy = await t.callPublic('/v1/auth/token/get', {
      apiKey: t.credentials.apiKey,
      authToken: t.credentials.authToken,
      userId: 'u2',
      userProperties: { organizationId: 'o1' },
    });
    expect(legacy.status).toBe(200);
    keep(dataOf<z.infer<typeof userTokenAnswer>>(legacy).token);
    await k('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
    const endpoint = await k<CreatedEndpoint>('/v2/workspace/advancedwebhook/endpoints/create', { url: 'https://example.com/hook' });
    keep(
      (await k<z.infer<typeof endpointSecretAnswer>>('/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId: endpoint.endpointId ?? endpoint.id }))
        .secret,
    );
    keep(
      (
        await k<z.infer<typeof endpointSecretAnswer>>('/v2/workspace/advancedwebhook/endpoints/secret/rotate', {
          endpointId: endpoint.endpointId ?? endpoint.id,
        })
      ).secret,
    );
    // last: it replaces the key's token the other calls use
    const reset = await w<z.infer<typeof authTokenAnswer>>('/v2/workspace/authtoken/reset', { apiKey: t.credentials.apiKey });
    keep(reset.authToken.token);
    // and the workspace's own token (issue 42)
    const rotated = await w<z.infer<typeof workspaceAuthTokenAnswer>>('/v2/workspace/workspaceauthtoken/rotate', {});
    keep(rotated.authToken);
    t.credentials.workspaceAuthToken = rotated.authToken;
    await until(() => feed.events.some((e) => e.requestId === last), 'the calls');
    feed.stop();

    // every operation that declares secrets in its answer was called here
    const declared = (operations as readonly AnyOperation[]).filter((op) => op.output).map((op) => op.path);
    expect([...called]).toEqual(expect.arrayContaining(declared));
    const kept = await everything(cookie);
    expect(kept).toContain('[redacted]');
    for (const value of secrets) expect(kept).not.toContain(value);
  });
});
