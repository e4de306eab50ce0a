// What one client can hold of the server (issue 42, points 3 and 6): connections and websockets per address, the
// deadlines of a silent, a slow-headed and a slow-bodied connection, and how much body is read before anyone is
// identified. Every test goes over real sockets to a real server.
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

/** A raw connection, open once connected. */
function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.on('error', reject);
  });
}

/** What the server sends on a socket until it closes it, and when it closed it (ms after the call). */
function untilClosed(socket: Socket): Promise<{ text: string; afterMs: number }> {
  const started = Date.now();
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined);
  return new Promise((resolve) => socket.once('close', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), afterMs: Date.now() - started })));
}

/** A POST with a body of our making (chunked when `contentLength` is false), and the answer. */
function post(url: string, path: string, body: string, headers: Record<string, string>, contentLength = true) {
  return new Promise<{ status: number; body: { error?: { status: string; message: string } } }>((resolve, reject) => {
    const req = request(
      url + path,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(contentLength ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as never }));
      },
    );
    // the server may answer and close before the whole body is sent: the answer is what is checked
    req.on('error', reject);
    req.end(body);
  });
}

describe('connection limits', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({
      connections: { maxPerAddress: 6, maxWebsocketsPerAddress: 2, firstByteTimeoutMs: 300, headersTimeoutMs: 400, requestTimeoutMs: 800 },
    });
  });
  afterAll(() => t.close());

  it('closes a connection past the address’s share at once, and takes new ones once others close', async () => {
    const held = await Promise.all(Array.from({ length: 6 }, () => open(t.url)));
    // keep them from counting as silent while the test runs
    for (const socket of held) socket.write('POST /v2/ping HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const extra = await open(t.url);
    const refused = await untilClosed(extra);
    expect(refused.text).toBe('');
    for (const socket of held) socket.destroy();
    // once the server has seen them close, the address has room again
    await expect.poll(async () => (await t.callPublic('/v2/ping', {}).catch(() => ({ status: 0 }))).status, { timeout: 5_000 }).toBe(200);
  });

  it('closes a connection that sends nothing, one whose headers are slow and one whose body is slow', async () => {
    const silent = untilClosed(await open(t.url));
    const slowHead = await open(t.url);
    const slowHeadClosed = untilClosed(slowHead);
    slowHead.write('POST /v2/ping HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const slowBody = await open(t.url);
    const slowBodyClosed = untilClosed(slowBody);
    slowBody.write('POST /v2/ping HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"data"');
    const [a, b, c] = await Promise.all([silent, slowHeadClosed, slowBodyClosed]);
    expect(a.text).toBe('');
    expect(b.text).toMatch(/^HTTP\/1\.1 408/);
    expect(c.text).toMatch(/^HTTP\/1\.1 408/);
  });

  it('refuses a websocket past the address’s share with 503, and takes one again once another closes', async () => {
    const { apiKey, authToken } = t.credentials;
    const wsUrl = (doc: string) => `${t.url.replace('http', 'ws')}/yjs/org/${doc}/main?apiKey=${apiKey}&authToken=${authToken}`;
    const opened = (ws: WebSocket) => new Promise<void>((resolve, reject) => (ws.once('open', () => resolve()), ws.once('error', reject)));
    const first = new WebSocket(wsUrl('a'));
    const second = new WebSocket(wsUrl('b'));
    await Promise.all([opened(first), opened(second)]);
    const third = new WebSocket(wsUrl('c'));
    third.on('error', () => undefined);
    const status = await new Promise<number>((resolve) => third.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(503);
    third.terminate();
    first.close();
    await expect
      .poll(
        () =>
          new Promise<boolean>((resolve) => {
            const again = new WebSocket(wsUrl('d'));
            again.on('error', () => resolve(false));
            again.once('open', () => (again.close(), resolve(true)));
            again.once('unexpected-response', () => (again.terminate(), resolve(false)));
          }),
        { timeout: 5_000 },
      )
      .toBe(true);
    second.close();
  });
});

describe('bodies before the caller is known', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  // one megabyte that is not JSON: what the server says shows whether it read it before the credentials
  const notJson = `{"data":${'x'.repeat(1024 * 1024)}`;

  it('verifies the credentials of a long body before reading it', async () => {
    const answer = await post(t.url, '/v2/crdt/get', notJson, {});
    expect(answer.status).toBe(400);
    expect(answer.body.error?.message).toBe('API key not found in headers (x-svc-api-key).');
    const wrong = await post(t.url, '/v2/crdt/get', notJson, { 'x-svc-api-key': t.credentials.apiKey, 'x-svc-auth-token': 'yauth_nope' });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error?.message).toBe('Invalid auth token for this API key.');
  });

  it('does the same for a chunked body, which names no length', async () => {
    const answer = await post(t.url, '/v2/workspace/get', notJson, {}, false);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.message).toBe('Workspace ID not found in headers.');
  });

  it('reads a long body once its caller is known, and a short body first, as before', async () => {
    const headers = { 'x-svc-api-key': t.credentials.apiKey, 'x-svc-auth-token': t.credentials.authToken };
    expect((await post(t.url, '/v2/crdt/get', notJson, headers)).body.error?.message).toBe('Bad Request: the body is not valid JSON.');
    expect((await post(t.url, '/v2/crdt/get', '{"data":', {})).body.error?.message).toBe('Bad Request: the body is not valid JSON.');
  });

  it('reads no more than 64 KiB for an operation anyone may call', async () => {
    const big = JSON.stringify({ data: { pad: 'x'.repeat(70 * 1024) } });
    for (const path of ['/v2/ping', '/v2/workspace/create']) {
      const answer = await post(t.url, path, big, {});
      expect(answer.status).toBe(400);
      expect(answer.body.error?.message).toBe('Bad Request: the body exceeds the limit of 65536 bytes.');
    }
    expect((await t.callPublic('/v2/ping', { pad: 'x'.repeat(1000) })).status).toBe(200);
  });

  it('refuses a body of more values than any call takes, before parsing it', async () => {
    const headers = { 'x-svc-api-key': t.credentials.apiKey, 'x-svc-auth-token': t.credentials.authToken };
    const many = `{"data":{"organizationId":"o","documentId":"d","pad":[${'{},'.repeat(300_000)}{}]}}`;
    const answer = await post(t.url, '/v2/crdt/get', many, headers);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.message).toBe('Bad Request: the body holds more than 250,000 JSON values.');
    // 10,000 recipients, the most notifications/add takes, are far below it
    const recipients = JSON.stringify({ data: { pad: Array.from({ length: 10_000 }, (_, i) => ({ userId: `u${i}`, name: 'n', email: `u${i}@x.example` })) } });
    expect((await post(t.url, '/v2/crdt/get', recipients, headers)).body.error?.message).not.toMatch(/JSON values/);
  });
});
