// Operation POSTs on their exact paths are served straight on node:http (server/http/listener.ts); the rest goes
// through h3. Both ways must answer alike, and the server must really take the direct way.
import { toNodeHandler } from 'h3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../server/http/app.ts';
import { JSON_CONTENT_TYPE } from '../../server/http/listener.ts';
import { operations } from '../../server/operations/index.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(t.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('the request listener', () => {
  it('is what the server runs: toNodeHandler gives the operations listener, not the plain h3 adapter', () => {
    const h3 = createHttpApp(t.server.app, operations);
    const listener = (h3.fetch as unknown as { __nodeHandler?: unknown }).__nodeHandler;
    expect(typeof listener).toBe('function');
    expect(toNodeHandler(h3)).toBe(listener);
  });

  it('answers a direct call and the same call through h3 (another method) with the same envelope and headers', async () => {
    const direct = await post('/v2/ping?trace=1', '{"data":{}}');
    expect(direct.status).toBe(200);
    expect(direct.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
    expect(direct.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(direct.headers.get('content-length'))).toBe(Buffer.byteLength(await direct.clone().text()));
    expect(await direct.json()).toEqual({ result: { status: 'success', message: 'pong', data: { version: expect.any(String) } } });

    const viaH3 = await fetch(t.url + '/v2/ping', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"data":{}}' });
    expect(viaH3.status).toBe(400);
    expect(viaH3.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
    expect(viaH3.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await viaH3.json()).toEqual({ error: { status: 'INVALID_ARGUMENT', message: 'Bad Request: operations accept POST only, not PUT.' } });
  });

  it('keeps the request rules on the direct way: content type, JSON, the data key, the size limit', async () => {
    const cases: Array<[string, Record<string, string>, string]> = [
      ['{"data":{}}', { 'content-type': 'text/plain' }, 'Bad Request: Content-Type must be application/json.'],
      ['{"data":', {}, 'Bad Request: the body is not valid JSON.'],
      ['{"other":1}', {}, 'Bad Request: the body must have a "data" key.'],
      ['{"data":{},"x":1,"y":2}', {}, 'Bad Request: the body may have only the "data" key; found "x", "y".'],
      ['[1]', {}, 'Bad Request: the body must be a JSON object.'],
      [`{"data":${'['.repeat(70)}${']'.repeat(70)}}`, {}, 'Bad Request: the body is nested more than 64 levels deep.'],
    ];
    for (const [body, headers, message] of cases) {
      const res = await post('/v2/ping', body, headers);
      expect([res.status, await res.json()]).toEqual([400, { error: { status: 'INVALID_ARGUMENT', message } }]);
    }
    const charset = await post('/v2/ping', '{"data":null}', { 'content-type': 'Application/JSON; charset=utf-8' });
    expect(charset.status).toBe(200);
  });

  it('joins a repeated Content-Type as the Fetch API does, so that two values are refused', async () => {
    // written by hand: HTTP clients merge or refuse a repeated header before it is sent
    const { connect } = await import('node:net');
    const { port } = new URL(t.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.end(
          'POST /v2/ping HTTP/1.1\r\nHost: localhost\r\ncontent-type: application/json\r\ncontent-type: text/plain\r\ncontent-length: 11\r\nConnection: close\r\n\r\n{"data":{}}',
        );
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 400 ');
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error.message).toBe('Bad Request: Content-Type must be application/json.');
  });

  it('reads header names in any case and a body sent in many chunks; a client gone mid-body leaves the server well', async () => {
    const { connect } = await import('node:net');
    const { port } = new URL(t.url);
    const raw = (send: (socket: import('node:net').Socket) => void) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => send(socket));
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
    const creds = t.credentials;
    await t.callK('/v2/organizations/documents/add', { organizationId: 'listener-org', createOrganization: true, documents: [{ documentId: 'x' }] });
    const body = JSON.stringify({ data: { organizationId: 'listener-org', documentIds: ['x'] } });
    const chunked = await raw((socket) => {
      socket.write(
        `POST /v2/organizations/documents/get HTTP/1.1\r\nHost: localhost\r\nCONTENT-TYPE: application/json\r\nX-Svc-Api-Key: ${creds.apiKey}\r\nx-SVC-auth-TOKEN: ${creds.authToken}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`,
      );
      // one byte per chunk, a few at a time
      for (const ch of body) socket.write(`1\r\n${ch}\r\n`);
      socket.end('0\r\n\r\n');
    });
    expect(chunked.split('\r\n')[0]).toBe('HTTP/1.1 200 ');
    expect(chunked.slice(chunked.indexOf('\r\n\r\n') + 4)).toContain('"x"');

    await raw((socket) => {
      socket.write('POST /v2/ping HTTP/1.1\r\nHost: localhost\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"data":');
      setTimeout(() => socket.destroy(), 50);
    });
    const after = await post('/v2/ping', '{"data":{}}');
    expect(after.status).toBe(200);
  });

  it("records direct calls in their workspace's request monitor with the path as called", async () => {
    const key = { 'x-svc-api-key': t.credentials.apiKey, 'x-svc-auth-token': t.credentials.authToken };
    const res = await post('/v2/workspace/apikeyconfig/get?from=test', '{"data":{}}', key);
    const requestId = res.headers.get('x-request-id');
    const recorded = t.server.app.monitor.recent(t.credentials.workspaceId).find((c) => c.requestId === requestId);
    expect(recorded).toMatchObject({ method: 'POST', path: '/v2/workspace/apikeyconfig/get', status: 200, caller: t.credentials.apiKey });
  });

  it('sends everything else through h3: the OpenAPI document and unknown operations', async () => {
    expect((await fetch(t.url + '/openapi.json')).status).toBe(200);
    const unknown = await post('/v2/no/such/operation', '{"data":{}}');
    expect([unknown.status, await unknown.json()]).toEqual([404, { error: { status: 'NOT_FOUND', message: 'Unknown operation: /v2/no/such/operation' } }]);
  });
});
