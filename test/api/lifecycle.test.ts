import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserTokenAnswer } from '../helpers/answers.ts';
import { apiKeyHeaders, call, dataOf, errorOf, eventually, workspaceHeaders } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = ['--import', 'tsx', join(ROOT, 'server', 'cli.ts')];

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'hearth-cli-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Starts `npm start`'s program on an ephemeral port and reads the base URL and credentials off its banner. */
async function startCli(): Promise<{ child: ChildProcess; url: string; output: () => string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [...CLI, '--port', '0', '--data-dir', dataDir], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner: ${output}`)), 20_000);
    child.stdout!.on('data', () => {
      const match = output.match(/API\s+(http:\/\/127\.0\.0\.1:\d+)/);
      if (match && output.includes('authToken')) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on('exit', () => reject(new Error(`exited early: ${output}`)));
  });
  return { child, url, output: () => output, exited };
}

/** Runs a CLI command without blocking the event loop (a blocked loop lets the server drop idle keep-alive sockets under fetch). */
const runCli = (...args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [...CLI, ...args, '--data-dir', dataDir], { cwd: ROOT, encoding: 'utf8' }, (error, stdout, stderr) =>
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });

describe('npm start', () => {
  it('prints the banner with the credentials; SIGTERM lets an in-flight request finish, then exits 0', async () => {
    const server = await startCli();
    expect(server.output()).toMatch(/Admin UI\s+http:\/\/127\.0\.0\.1:\d+\//);
    expect(server.output()).toContain(join(dataDir, 'credentials.json'));

    // A request whose body is still arriving when SIGTERM comes.
    const port = Number(new URL(server.url).port);
    const inFlight = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/v2/ping', method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.write('{"data":');
      setImmediate(() => {
        server.child.kill('SIGTERM');
        // give the server a moment to begin shutting down before the body completes
        const finish = setInterval(() => {
          if (server.output().includes('SIGTERM')) {
            clearInterval(finish);
            req.end('{}}');
          }
        }, 10);
      });
    });
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body).result.message).toBe('pong');
    expect(await server.exited).toBe(0);
  });
});

describe('SIGTERM hands websocket clients over', () => {
  it('closes them with 1001 (going away) after storing every update it received, so that providers reconnect elsewhere', async () => {
    const server = await startCli();
    const K = apiKeyHeaders(JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { apiKey: string; authToken: string });
    const room = { organizationId: 'acme', documentId: 'handover', editorId: 'e1' };
    await call(server.url, '/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'handover' }] }, K);
    await call(server.url, '/v2/users/add', { organizationId: 'acme', documentId: 'handover', users: [{ userId: 'ann', accessRole: 'editor' }] }, K);
    await call(server.url, '/v2/crdt/add', { ...room, type: 'text', data: '' }, K);
    const token = dataOf<UserTokenAnswer>(await call(server.url, '/v2/auth/generate_token', { userId: 'ann' }, K)).token;
    const client = connectYjs(server.url, room, { apiKey: K['x-svc-api-key']!, token });
    try {
      await client.synced;
      const closes: Array<{ code: number; reason: string }> = [];
      client.provider.on('connection-close', (event: { code: number; reason: string } | null) => {
        if (event) closes.push({ code: event.code, reason: String(event.reason) });
      });
      client.doc.getText('content').insert(0, 'typed before the stop');
      // the server has it (a REST read answers the live document)
      await eventually(async () => {
        const res = await call(server.url, '/v2/crdt/get', room, K);
        expect(dataOf<Array<{ data: unknown }>>(res)[0]?.data).toBe('typed before the stop');
      });
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      await eventually(() => expect(closes[0]).toEqual({ code: 1001, reason: 'server shutting down' }));
    } finally {
      client.close();
    }
    const again = await startCli();
    try {
      const res = await call(again.url, '/v2/crdt/get', room, K);
      expect(dataOf<Array<{ data: unknown }>>(res)[0]?.data).toBe('typed before the stop');
    } finally {
      again.child.kill('SIGTERM');
      await again.exited;
    }
  }, 60_000);
});

describe('hearth workspace settings', () => {
  it('changes plan and production-key settings, which a running server applies at once', async () => {
    const server = await startCli();
    try {
      const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
      const production = () => call(server.url, '/v2/workspace/apikey/create', { ownerEmail: 'a@example.com', type: 'production' }, workspaceHeaders(creds));

      const shown = await runCli('workspace', 'settings', '--json');
      expect(shown.status).toBe(0);
      expect(JSON.parse(shown.stdout)).toMatchObject({ workspaceId: creds.workspaceId, plan: 'paid', selfServeProduction: true, maxProductionKeys: 3 });

      const free = await runCli('workspace', 'settings', '--plan', 'free', '--json');
      expect(JSON.parse(free.stdout).plan).toBe('free');
      expect(errorOf(await production()).status).toBe('FAILED_PRECONDITION');

      await runCli('workspace', 'settings', '--plan', 'paid', '--max-production-keys', '0');
      expect(errorOf(await production()).status).toBe('RESOURCE_EXHAUSTED');
      await runCli('workspace', 'settings', '--self-serve', 'off', '--max-production-keys', '5');
      expect(errorOf(await production()).status).toBe('PERMISSION_DENIED');
      await runCli('workspace', 'settings', '--self-serve', 'on');
      expect((await production()).status).toBe(200);

      const listed = await runCli('workspace', 'list');
      expect(listed.stdout).toContain(`${creds.workspaceId}  Default workspace`);
      expect(listed.stdout).toContain('(default)');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 120_000);

  it('rejects bad values with a clear message and a non-zero exit', async () => {
    const bad = await runCli('workspace', 'settings', '--plan', 'gold');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--plan takes free or paid, not "gold"');
    const unknownFlag = await runCli('workspace', 'settings', '--colour', 'red');
    expect(unknownFlag.status).toBe(2);
    expect(unknownFlag.stderr).toMatch(/Unknown option '--colour'/);
  });
});
