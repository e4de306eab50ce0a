// Issue 28, point 1: no websocket frame, socket error or reset stops the server. Each case goes through a real TCP
// socket (node:net) to a Hearth in a child process, so that a crash is the child's exit, not this test's; the child
// is started again for the next case when one died. After each case the server still answers, the one connection
// got the close code RFC 6455 names (the `ws` library's), and one warning line was logged.
import { pbkdf2 } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCliServer, type CliServer } from '../helpers/cli.ts';
import { apiKeyHeaders, call, dataOf, eventually, startTestServer } from '../helpers/server.ts';
import { closePayload, connectTcp, encodeFrame, rawUpgrade, upgradeRequest, type FrameSpec, type RawConnection } from '../helpers/ws-raw.ts';
import { connectYjs } from '../helpers/yjs.ts';
import type { UserTokenAnswer } from '../helpers/answers.ts';

const MAX_PAYLOAD = 10 * 1024 * 1024;

interface Child {
  cli: CliServer;
  dataDir: string;
  creds: { apiKey: string; authToken: string };
  viewerToken: string;
  editorToken: string;
}

let child: Child | undefined;
const dirs: string[] = [];

async function startChild(): Promise<Child> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-frames-'));
  dirs.push(dataDir);
  const cli = await startCliServer(dataDir, { LOG_LEVEL: 'warn' });
  const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { apiKey: string; authToken: string };
  const k = (path: string, data: unknown) => call(cli.url, path, data, apiKeyHeaders(creds));
  await k('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [{ documentId: 'doc', accessType: 'restricted' }],
  });
  await k('/v2/users/add', {
    organizationId: 'acme',
    documentId: 'doc',
    users: [
      { userId: 'ed', accessRole: 'editor' },
      { userId: 'vi', accessRole: 'viewer' },
    ],
  });
  await k('/v2/crdt/add', { organizationId: 'acme', documentId: 'doc', editorId: 'e', type: 'text', data: 'hello' });
  const token = async (userId: string) => dataOf<UserTokenAnswer>(await k('/v2/auth/generate_token', { userId })).token;
  return { cli, dataDir, creds, viewerToken: await token('vi'), editorToken: await token('ed') };
}

const alive = (c: Child) => c.cli.child.exitCode === null && c.cli.child.signalCode === null;

/** The running child, started again when an earlier case stopped it (so that each case fails on its own). */
async function server(): Promise<Child> {
  if (child && alive(child) && (await ping(child).catch(() => 0)) !== 200) {
    child.cli.child.kill('SIGKILL');
    await child.cli.exited;
  }
  if (!child || !alive(child)) child = await startChild();
  return child;
}

const warnings = (c: Child) =>
  c.cli
    .output()
    .split('\n')
    .filter((line) => / WARN /.test(line)).length;
const ping = async (c: Child) => (await call(c.cli.url, '/v2/ping', {})).status;

const path = (c: Child, as: 'key' | 'viewer' | 'editor') =>
  `/yjs/acme/doc/e?apiKey=${encodeURIComponent(c.creds.apiKey)}&` +
  (as === 'key' ? `authToken=${encodeURIComponent(c.creds.authToken)}` : `token=${as === 'viewer' ? c.viewerToken : c.editorToken}`);

afterAll(async () => {
  if (child && alive(child)) {
    child.cli.child.kill('SIGTERM');
    await child.cli.exited;
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Opens a connection, sends `bytes`, and expects the server to close it with `code`, to log one warning for it and to
 * stay up.
 */
async function expectClosed(bytes: Buffer[], code: number, as: 'key' | 'viewer' | 'editor' = 'key', headers: Record<string, string> = {}) {
  const c = await server();
  const before = warnings(c);
  const conn: RawConnection = await rawUpgrade(c.cli.url, path(c, as), headers);
  expect(conn.status).toBe(101);
  for (const b of bytes) conn.write(b);
  await eventually(() => expect(conn.closeCode() ?? (conn.socket.destroyed ? 'closed without a close frame' : null)).toBe(code));
  conn.socket.end();
  expect(await ping(c)).toBe(200);
  expect(alive(c)).toBe(true);
  await eventually(() => expect(warnings(c) - before).toBe(1));
}

const frame = (spec: FrameSpec) => encodeFrame(spec);

describe('bad frames close their connection, never the server', () => {
  it('a frame claiming 2^40 bytes (the 14 bytes of the issue): 1009', async () => {
    await expectClosed([Buffer.from('82ff0000010000000000' + '01020304', 'hex')], 1009);
  });

  it('a reserved opcode, from a viewer token (83 80 01 02 03 04): 1002', async () => {
    await expectClosed([Buffer.from('838001020304', 'hex')], 1002, 'viewer');
  });

  it('a message over the size limit sent by a browser (Origin, masked, one frame): 1009', async () => {
    await expectClosed([frame({ opcode: 0x2, payload: new Uint8Array(MAX_PAYLOAD + 1) })], 1009, 'editor', { Origin: 'http://localhost:5173' });
  });

  it('a message over the size limit in fragments: 1009', async () => {
    const half = new Uint8Array(MAX_PAYLOAD / 2 + 1);
    await expectClosed([frame({ opcode: 0x2, fin: false, payload: half }), frame({ opcode: 0x0, payload: half })], 1009);
  });

  it('an unmasked client frame: 1002', async () => {
    await expectClosed([frame({ opcode: 0x2, mask: false, payload: Uint8Array.of(0, 0) })], 1002);
  });

  it('RSV bits without an extension: 1002', async () => {
    await expectClosed([frame({ opcode: 0x2, rsv: 0b100, payload: Uint8Array.of(0, 0) })], 1002);
  });

  it('invalid UTF-8 in a text frame: 1007', async () => {
    await expectClosed([frame({ opcode: 0x1, payload: Uint8Array.of(0xc3, 0x28) })], 1007);
  });

  it('invalid UTF-8 in a close frame reason: 1007', async () => {
    await expectClosed([frame({ opcode: 0x8, payload: closePayload(1000, Uint8Array.of(0xff, 0xfe)) })], 1007);
  });

  it('a close code no endpoint may send (1005): 1002', async () => {
    await expectClosed([frame({ opcode: 0x8, payload: closePayload(1005) })], 1002);
  });

  it('a one-byte close payload: 1002', async () => {
    await expectClosed([frame({ opcode: 0x8, payload: Uint8Array.of(3) })], 1002);
  });

  it('a continuation frame with no message to continue: 1002', async () => {
    await expectClosed([frame({ opcode: 0x0, payload: Uint8Array.of(1) })], 1002);
  });

  it('a new data frame inside a fragmented message: 1002', async () => {
    await expectClosed([frame({ opcode: 0x2, fin: false, payload: Uint8Array.of(0) }), frame({ opcode: 0x2, payload: Uint8Array.of(0) })], 1002);
  });

  it('a control frame over 125 bytes: 1002', async () => {
    await expectClosed([frame({ opcode: 0x9, payload: new Uint8Array(126) })], 1002);
  });

  it('a fragmented control frame: 1002', async () => {
    await expectClosed([frame({ opcode: 0x9, fin: false, payload: Uint8Array.of(1) })], 1002);
  });
});

describe('resets close their connection, never the server', () => {
  it('a TCP reset while the upgrade request is sent, right after it, and mid-frame', async () => {
    const c = await server();
    const request = upgradeRequest(c.cli.url, path(c, 'editor'));
    for (let round = 0; round < 10; round++) {
      // during the HTTP upgrade: half of the request's head, then a reset
      const partial = await connectTcp(c.cli.url);
      partial.write(request.slice(0, Math.floor(request.length / 2)));
      partial.resetAndDestroy();
      // the whole request (a user token, verified asynchronously), then a reset at once
      const during = await connectTcp(c.cli.url);
      during.write(request);
      during.resetAndDestroy();
    }
    // mid-frame, after the upgrade
    const open = await rawUpgrade(c.cli.url, path(c, 'key'));
    expect(open.status).toBe(101);
    open.write(frame({ opcode: 0x2, payload: new Uint8Array(1000) }).subarray(0, 500));
    open.socket.resetAndDestroy();
    await open.ended;
    expect(await ping(c)).toBe(200);
    expect(alive(c)).toBe(true);
  });

  it('a TCP reset while a user token is verified: the upgrade is dropped, the server stays up, no connection is left behind', async () => {
    // In this process, so that the reset can be timed: the token's signature is checked on libuv's thread pool
    // (WebCrypto), which pbkdf2 jobs keep busy here; the request is read within a few turns of the event loop, and
    // the reset sent then arrives while the verification waits for a thread.
    const t = await startTestServer();
    // an 'error' event nobody listens to is thrown from the socket's read callback: the process's uncaught exception
    const uncaught: string[] = [];
    const record = (error: unknown) => uncaught.push(String(error));
    process.on('uncaughtException', record);
    try {
      await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
      await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'doc', editorId: 'e', type: 'text', data: 'x' });
      await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'doc', users: [{ userId: 'ed', accessRole: 'editor' }] });
      const token = dataOf<UserTokenAnswer>(await t.callK('/v2/auth/generate_token', { userId: 'ed' })).token;
      const request = upgradeRequest(t.url, `/yjs/acme/doc/e?apiKey=${encodeURIComponent(t.credentials.apiKey)}&token=${token}`);
      const key = { apiKeyId: t.credentials.apiKey, organizationId: 'acme', documentId: 'doc', editorId: 'e' };
      for (let round = 0; round < 3; round++) {
        const busy = Array.from({ length: 16 }, () => new Promise((resolve) => pbkdf2('x', 'y', 60_000, 32, 'sha256', resolve)));
        const socket = await connectTcp(t.url);
        socket.write(request);
        for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
        socket.resetAndDestroy();
        await Promise.all(busy);
      }
      // a live client syncs, and once it leaves no connection is left in the room
      const client = connectYjs(t.url, { organizationId: 'acme', documentId: 'doc', editorId: 'e' }, { apiKey: t.credentials.apiKey, token });
      await client.synced;
      expect(client.doc.getText('content').toString()).toBe('x');
      client.close();
      await eventually(() => expect(t.server.app.crdt.connections(key)).toBe(0));
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', record);
      await t.close();
    }
  });
});

describe('after the bad frames', () => {
  it('a y-websocket client still syncs', async () => {
    const c = await server();
    const client = connectYjs(c.cli.url, { organizationId: 'acme', documentId: 'doc', editorId: 'e' }, c.creds);
    try {
      await client.synced;
      expect(client.doc.getText('content').toString()).toBe('hello');
    } finally {
      client.close();
    }
  });
});
