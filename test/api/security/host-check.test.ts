import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostCheck, hostName } from '../../../server/http/host-check.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

/** A request with a Host header of our choosing (fetch does not let a caller set Host). */
function asHost(url: string, host: string, method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; text: string; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
    const req = request(url + path, { method, headers: { 'content-type': 'application/json', 'x-hearth-ui': '1', ...headers, host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('Host names', () => {
  it('reads the name of a Host header: lower case, without port, brackets or a trailing dot', () => {
    expect(hostName('LocalHost:8787')).toBe('localhost');
    expect(hostName('[::1]:8787')).toBe('::1');
    expect(hostName('hearth.lan.')).toBe('hearth.lan');
    expect(hostName('127.0.0.1')).toBe('127.0.0.1');
  });

  it('allows loopback names, IP literals, PUBLIC_URL and ALLOWED_HOSTS; nothing else', () => {
    const allowed = createHostCheck({ allowedHosts: ['hearth.lan', '.corp.example', 'Other.Example:9000'], publicUrl: 'https://hearth.example.org' });
    for (const host of [
      'localhost:8787',
      'app.localhost',
      '127.0.0.1:1',
      '127.8.9.10',
      '[::1]:80',
      '192.168.1.20:8787',
      '[fe80::1]',
      '10.0.0.1',
      'hearth.lan:8787',
      'HEARTH.LAN',
      'corp.example',
      'a.b.corp.example:8787',
      'other.example',
      'hearth.example.org',
      null,
      undefined,
    ]) {
      expect(allowed(host), String(host)).toBe(true);
    }
    for (const host of ['attacker.example:8787', 'localhost.attacker.example', 'evilcorp.example', 'hearth.lan.evil', '127.0.0.1.nip.io', '', 'example.org']) {
      expect(allowed(host), host).toBe(false);
    }
    expect(createHostCheck({ allowedHosts: ['*'] })('anything.example')).toBe(true);
  });
});

describe('requests addressed to another name (DNS rebinding)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('are refused with 403 naming ALLOWED_HOSTS: operations, public ones included, the admin API and the UI', async () => {
    const evil = 'attacker.example:8787';
    const cases: Array<[string, string, string?]> = [
      ['POST', '/v2/ping', '{"data":{}}'],
      ['POST', '/v2/workspace/create', JSON.stringify({ data: { ownerEmail: 'x@example.com' } })],
      ['POST', '/admin/api/session', JSON.stringify({ workspaceId: t.credentials.workspaceId, workspaceAuthToken: t.credentials.workspaceAuthToken })],
      ['GET', '/admin/api/requests'],
      ['GET', '/admin/api/session'],
      ['GET', `/admin/signin?token=x`],
      ['GET', '/'],
      ['GET', '/openapi.json'],
      ['POST', '/v2/ping?x=1', '{"data":{}}'],
    ];
    for (const [method, path, body] of cases) {
      const res = await asHost(t.url, evil, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      const answer = JSON.parse(res.text);
      expect(answer.error.status).toBe('PERMISSION_DENIED');
      expect(answer.error.message).toContain('ALLOWED_HOSTS');
      expect(answer.error.message).toContain('"attacker.example"');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    // the same requests by a loopback name or an address are answered
    expect((await asHost(t.url, `localhost:${t.server.port}`, 'POST', '/v2/ping', '{"data":{}}')).status).toBe(200);
    expect((await asHost(t.url, `127.0.0.1:${t.server.port}`, 'POST', '/v2/ping', '{"data":{}}')).status).toBe(200);
    expect((await asHost(t.url, `[::1]:${t.server.port}`, 'GET', '/openapi.json')).status).toBe(200);
  });

  it('refuses a websocket upgrade addressed to another name before its credentials are looked at', async () => {
    const upgrade = (host: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(t.server.port, '127.0.0.1', () => {
          const path = `/yjs/org/doc/editor?apiKey=${t.credentials.apiKey}&authToken=${t.credentials.authToken}`;
          socket.write(
            `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${Buffer.from('0123456789abcdef').toString('base64')}\r\n\r\n`,
          );
        });
        let answer = '';
        socket.on('data', (d) => {
          answer += d;
          if (answer.includes('\r\n\r\n')) {
            socket.destroy();
            resolve(answer);
          }
        });
        socket.on('error', reject);
        socket.on('close', () => resolve(answer));
      });
    const refused = await upgrade('attacker.example:8787');
    expect(refused).toMatch(/^HTTP\/1\.1 403 /);
    expect(refused).toContain('ALLOWED_HOSTS');
    expect(await upgrade(`127.0.0.1:${t.server.port}`)).toMatch(/^HTTP\/1\.1 101 /);
  });

  it('answers a name once ALLOWED_HOSTS (or PUBLIC_URL) names it', async () => {
    const lan = await startTestServer({ allowedHosts: ['hearth.lan', '.team.example'], publicUrl: 'http://hearth-public.example:8080' });
    try {
      for (const host of ['hearth.lan:8787', 'x.team.example', 'hearth-public.example:8080']) {
        expect((await asHost(lan.url, host, 'POST', '/v2/ping', '{"data":{}}')).status, host).toBe(200);
      }
      const signIn = await asHost(
        lan.url,
        'hearth.lan',
        'POST',
        '/admin/api/session',
        JSON.stringify({ workspaceId: lan.credentials.workspaceId, workspaceAuthToken: lan.credentials.workspaceAuthToken }),
      );
      expect(signIn.status).toBe(200);
      expect((await asHost(lan.url, 'other.example', 'POST', '/v2/ping', '{"data":{}}')).status).toBe(403);
    } finally {
      await lan.close();
    }
  });
});
