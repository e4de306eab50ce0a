import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ maxBodyBytes: 64 * 1024 });
});
afterAll(() => t.close());

describe('/v2/ping', () => {
  it('answers pong with the version, without credentials', async () => {
    const res = await t.callPublic('/v2/ping', {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: { status: 'success', message: 'pong', data: { version: expect.any(String) } } });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers the same bytes to every valid call once its answer is kept, and still reads and checks each body', async () => {
    const texts = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(t.url + '/v2/ping', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"data":{}}' });
      expect(res.status).toBe(200);
      texts.push(await res.text());
    }
    expect(new Set(texts).size).toBe(1);
    expect(JSON.parse(texts[0]!)).toEqual({ result: { status: 'success', message: 'pong', data: { version: expect.any(String) } } });
    // the kept answer is not an answer to everything: invalid bodies after it are still refused
    expect((await raw(t.url, '/v2/ping', '{"data":[]}')).body).toEqual({
      error: { status: 'INVALID_ARGUMENT', message: 'data must be an object, not an array.' },
    });
    expect((await raw(t.url, '/v2/ping', '{"data":{},"x":1}')).status).toBe(400);
    expect((await raw(t.url, '/v2/ping', '{"data":{}}')).status).toBe(200);
  });

  it('gives every call its own request id, a random UUID', async () => {
    const ids = [];
    for (let i = 0; i < 20; i++) ids.push((await t.callPublic('/v2/ping', {})).headers.get('x-request-id'));
    expect(new Set(ids).size).toBe(20);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('accepts "data": null as present', async () => {
    const res = await raw(t.url, '/v2/ping', '{"data":null}');
    expect(res.status).toBe(200);
  });

  it('accepts a charset suffix on the content type', async () => {
    const res = await raw(t.url, '/v2/ping', '{"data":{}}', { 'content-type': 'application/json; charset=utf-8' });
    expect(res.status).toBe(200);
  });
});

describe('callable request rules', () => {
  const expectBadRequest = (res: { status: number; body: any }, reason: RegExp) => {
    expect(res.status).toBe(400);
    expect(res.body.error.status).toBe('INVALID_ARGUMENT');
    expect(res.body.error.message).toMatch(/^Bad Request: /);
    expect(res.body.error.message).toMatch(reason);
  };

  it('refuses malformed JSON', async () => {
    expectBadRequest(await raw(t.url, '/v2/ping', '{"data": {'), /not valid JSON/);
  });

  it('refuses a body without data', async () => {
    expectBadRequest(await raw(t.url, '/v2/ping', '{}'), /"data" key/);
  });

  it('refuses keys besides data, naming them', async () => {
    expectBadRequest(await raw(t.url, '/v2/ping', '{"data":{},"extra":1}'), /"extra"/);
  });

  it('refuses a body that is not an object', async () => {
    expectBadRequest(await raw(t.url, '/v2/ping', '[1,2]'), /JSON object/);
    expectBadRequest(await raw(t.url, '/v2/ping', '"data"'), /JSON object/);
  });

  it('refuses another content type', async () => {
    expectBadRequest(await raw(t.url, '/v2/ping', '{"data":{}}', { 'content-type': 'text/plain' }), /Content-Type/);
  });

  it('refuses another method on an operation path', async () => {
    expectBadRequest(await raw(t.url, '/v2/ping', undefined, {}, 'PUT'), /POST only/);
  });

  it('refuses a body over the size limit, with or without a content length', async () => {
    const big = JSON.stringify({ data: { pad: 'x'.repeat(70 * 1024) } });
    expectBadRequest(await raw(t.url, '/v2/ping', big), /exceeds the limit of 65536 bytes/);
    const streamed = await fetch(t.url + '/v2/ping', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(big));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(400);
    expect(((await streamed.json()) as any).error.message).toMatch(/exceeds the limit/);
  });

  it('answers Expect: 100-continue with the refusal, before the body, when the declared size is over the limit', async () => {
    const over = await expectContinue(t.url, 1024 * 1024);
    expect(over).toMatch(/^HTTP\/1\.1 400 \r\n/);
    expect(over).toMatch(/\r\nconnection: close\r\n/);
    expect(over).toContain('the body exceeds the limit of 65536 bytes');
    // within the limit: 100 Continue, and the call once the body has come
    expect(await expectContinue(t.url, 11)).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
  });

  it('refuses data of the wrong type, naming it', async () => {
    const res = await raw(t.url, '/v2/ping', '{"data":5}');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { status: 'INVALID_ARGUMENT', message: 'data must be an object, not a number.' } });
  });

  it('refuses JSON nested deeper than 64 levels, and accepts 64', async () => {
    const nest = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
    expectBadRequest(await raw(t.url, '/v2/ping', `{"data":${nest(70)}}`), /nested more than 64 levels/);
    expect((await raw(t.url, '/v2/ping', `{"data":${nest(62)}}`)).status).toBe(200);
    // far deeper than a recursive parser or serializer could take: still a clear 400, and the server lives
    expectBadRequest(await raw(t.url, '/v2/ping', `{"data":${'['.repeat(20000)}${']'.repeat(20000)}}`), /nested more than 64 levels|not valid JSON/);
  });

  it('answers an unknown path with a NOT_FOUND envelope', async () => {
    const res = await t.callPublic('/v2/no/such/operation', {});
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { status: 'NOT_FOUND', message: 'Unknown operation: /v2/no/such/operation' } });
  });

  it('stays up after all of that', async () => {
    expect((await t.callPublic('/v2/ping', {})).status).toBe(200);
  });
});

describe('GET /openapi.json', () => {
  it('describes every operation with its input schema and auth headers', async () => {
    const res = await fetch(t.url + '/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    const create = doc.paths['/v2/workspace/apikey/create'].post;
    expect(create.requestBody.content['application/json'].schema.properties.data.required).toEqual(['ownerEmail', 'type']);
    expect(create.security).toEqual([{ workspaceId: [], workspaceAuthToken: [] }]);
    expect(doc.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'x-svc-api-key' });
    expect(doc.paths['/v2/ping'].post.security).toEqual([]);
  });
});

describe('GET /', () => {
  it('serves an HTML page for the admin UI', async () => {
    const res = await fetch(t.url + '/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toMatch(/<html/i);
  });
});

/**
 * Sends a ping's headers with `Expect: 100-continue` and the declared `length`; sends the 11-byte body only after
 * a 100 Continue. Resolves with all the server wrote once it has answered (a final status after any 100).
 */
function expectContinue(url: string, length: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    let received = '';
    socket.on('error', reject);
    socket.on('data', (d: Buffer) => {
      received += d.toString('utf8');
      if (received.startsWith('HTTP/1.1 100 Continue\r\n\r\n') && !received.includes('\r\n\r\nHTTP/')) {
        if (received === 'HTTP/1.1 100 Continue\r\n\r\n') socket.write('{"data":{}}');
        return;
      }
      const bodyAt = received.lastIndexOf('\r\n\r\n');
      const declared = Number(/content-length: (\d+)/i.exec(received.slice(received.lastIndexOf('HTTP/1.1')))?.[1]);
      if (received.length - (bodyAt + 4) >= declared) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.write(`POST /v2/ping HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nexpect: 100-continue\r\ncontent-length: ${length}\r\n\r\n`);
  });
}
