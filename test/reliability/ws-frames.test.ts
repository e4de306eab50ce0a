// Frames no websocket library would send (issue 28, point 1), against `npm start`'s program in a child process,
// through raw TCP sockets: bad lengths (64-bit lengths past any limit, lengths that promise more than comes),
// reserved opcodes and RSV bits, unmasked client frames, bad close codes and invalid UTF-8 in close and text
// frames, continuation frames out of order, control frames too long or fragmented, messages over the size limit
// (one frame or fragments), random bytes, between valid y-websocket messages; and TCP resets at random points:
// while the HTTP upgrade is sent, while credentials are checked, mid-frame. Connections use the key's credentials,
// an editor's or a viewer's token, or a forged token. No crash: the child must stay up through every connection,
// then answer /v2/ping and sync a y-websocket client. Prints frames, connections, close codes and crashes.
// Reproduce a run with WS_FRAME_SEED=<seed printed>; WS_FRAME_CONNECTIONS and WS_FRAMES set the minimum counts.
import type { Socket } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyHeaders, call, dataOf, eventually } from '../helpers/server.ts';
import { closePayload, connectTcp, encodeFrame, rawUpgrade, upgradeRequest, type FrameSpec } from '../helpers/ws-raw.ts';
import { connectYjs, yjsMessage } from '../helpers/yjs.ts';
import { newDataDir, removeDataDir, startChild, type ChildServer } from './helpers/child.ts';
import type { UserTokenAnswer } from '../helpers/answers.ts';

const SEED = Number(process.env.WS_FRAME_SEED ?? Date.now() % 2 ** 31);
const MIN_CONNECTIONS = Number(process.env.WS_FRAME_CONNECTIONS ?? 400);
const MIN_FRAMES = Number(process.env.WS_FRAMES ?? 10_000);
const MAX_PAYLOAD = 10 * 1024 * 1024;
const PARALLEL = 6;
const ORG = 'frames';

/** crdt/get's data for the text editor here: its text. */
interface TextItem {
  data: string;
}

type As = 'key' | 'editor' | 'viewer' | 'forged';
interface Frame {
  kind: string;
  bytes: Buffer;
}
interface Plan {
  as: As;
  /** Where the client resets the TCP connection: none, while it sends the upgrade, right after it, or mid-frame. */
  reset: { phase: 'none' } | { phase: 'upgrade'; fraction: number } | { phase: 'auth'; turns: number } | { phase: 'frame'; index: number; fraction: number };
  frames: Frame[];
}

const frame = (kind: string, spec: FrameSpec): Frame => ({ kind, bytes: encodeFrame(spec) });
const bytes = (min: number, max: number) => fc.uint8Array({ minLength: min, maxLength: max });
const INVALID_UTF8 = fc.constantFrom(
  Uint8Array.of(0xc3, 0x28),
  Uint8Array.of(0xff),
  Uint8Array.of(0xed, 0xa0, 0x80),
  Uint8Array.of(0xf8, 0x88, 0x80, 0x80, 0x80),
  Uint8Array.of(0xe2, 0x82),
);
const BAD_CLOSE_CODES = [0, 1, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535];

/** A valid y-websocket message: a state request, an awareness update of garbage, an update of garbage. */
const validMessage = fc.oneof(
  fc.constant(frame('valid sync step 1', { opcode: 0x2, payload: yjsMessage(0, 0, Uint8Array.of(0)) })),
  bytes(0, 24).map((b) => frame('y-protocol garbage', { opcode: 0x2, payload: yjsMessage(0, 2, b) })),
  bytes(0, 24).map((b) => frame('awareness garbage', { opcode: 0x2, payload: yjsMessage(1, null, b) })),
  bytes(0, 16).map((b) => frame('ping', { opcode: 0x9, payload: b })),
  bytes(0, 16).map((b) => frame('pong', { opcode: 0xa, payload: b })),
);

const badFrame: fc.Arbitrary<Frame> = fc.oneof(
  fc
    .bigInt({ min: BigInt(MAX_PAYLOAD) + 1n, max: 2n ** 64n - 1n })
    .map((length) => frame('64-bit length past the limit', { opcode: 0x2, claimedLength: length })),
  fc
    .tuple(fc.integer({ min: 1, max: 60_000 }), bytes(0, 16))
    .map(([length, b]) => frame('length promising more than comes', { opcode: 0x2, payload: b, claimedLength: BigInt(length + b.length) })),
  fc.tuple(fc.constantFrom(3, 4, 5, 6, 7, 11, 12, 13, 14, 15), bytes(0, 8)).map(([opcode, b]) => frame('reserved opcode', { opcode, payload: b })),
  fc.tuple(fc.integer({ min: 1, max: 7 }), bytes(0, 8)).map(([rsv, b]) => frame('RSV bits', { opcode: 0x2, rsv, payload: b })),
  fc.tuple(fc.constantFrom(0x1, 0x2, 0x9), bytes(0, 8)).map(([opcode, b]) => frame('unmasked', { opcode, mask: false, payload: b })),
  fc.constantFrom(...BAD_CLOSE_CODES).map((code) => frame('bad close code', { opcode: 0x8, payload: closePayload(code) })),
  INVALID_UTF8.map((b) => frame('invalid UTF-8 close reason', { opcode: 0x8, payload: closePayload(1000, b) })),
  fc.constant(frame('one-byte close', { opcode: 0x8, payload: Uint8Array.of(0x03) })),
  INVALID_UTF8.map((b) => frame('invalid UTF-8 text', { opcode: 0x1, payload: b })),
  fc.string({ maxLength: 20 }).map((s) => frame('text', { opcode: 0x1, payload: Buffer.from(s) })),
  bytes(0, 8).map((b) => frame('continuation with nothing to continue', { opcode: 0x0, payload: b })),
  fc.tuple(bytes(0, 8), fc.constantFrom(0x1, 0x2)).map(([b, opcode]) => ({
    kind: 'data frame inside a fragmented message',
    bytes: Buffer.concat([encodeFrame({ opcode: 0x2, fin: false, payload: b }), encodeFrame({ opcode, payload: b })]),
  })),
  fc
    .tuple(fc.constantFrom(0x8, 0x9, 0xa), fc.integer({ min: 126, max: 300 }))
    .map(([opcode, n]) => frame('control frame over 125 bytes', { opcode, payload: new Uint8Array(n) })),
  fc.constantFrom(0x8, 0x9, 0xa).map((opcode) => frame('fragmented control frame', { opcode, fin: false, payload: Uint8Array.of(1) })),
  fc.integer({ min: 1, max: 1000 }).map((over) => frame('one frame over the size limit', { opcode: 0x2, claimedLength: BigInt(MAX_PAYLOAD + over) })),
  fc.integer({ min: 1, max: 1000 }).map((over) => ({
    kind: 'fragments over the size limit',
    bytes: Buffer.concat([
      encodeFrame({ opcode: 0x2, fin: false, payload: new Uint8Array(16) }),
      encodeFrame({ opcode: 0x0, claimedLength: BigInt(MAX_PAYLOAD - 16 + over) }),
    ]),
  })),
  bytes(1, 64).map((b) => ({ kind: 'random bytes', bytes: Buffer.from(b) })),
);

const planArbitrary: fc.Arbitrary<Plan> = fc
  .record({
    as: fc.constantFrom<As>('key', 'key', 'editor', 'viewer', 'forged'),
    frames: fc.array(fc.oneof({ arbitrary: validMessage, weight: 3 }, { arbitrary: badFrame, weight: 1 }), { minLength: 1, maxLength: 40, size: 'max' }),
    reset: fc.oneof(
      { arbitrary: fc.constant({ phase: 'none' as const }), weight: 6 },
      { arbitrary: fc.double({ min: 0.05, max: 0.95, noNaN: true }).map((fraction) => ({ phase: 'upgrade' as const, fraction })), weight: 1 },
      { arbitrary: fc.integer({ min: 0, max: 3 }).map((turns) => ({ phase: 'auth' as const, turns })), weight: 1 },
      {
        arbitrary: fc
          .tuple(fc.nat(), fc.double({ min: 0.05, max: 0.95, noNaN: true }))
          .map(([index, fraction]) => ({ phase: 'frame' as const, index, fraction })),
        weight: 1,
      },
    ),
  })
  .map((plan) => (plan.reset.phase === 'frame' ? { ...plan, reset: { ...plan.reset, index: plan.reset.index % plan.frames.length } } : plan));

let child: ChildServer;
const dataDirs: string[] = [];
let tokens: { editor: string; viewer: string };

async function start(): Promise<void> {
  const dir = newDataDir('ws-frames');
  dataDirs.push(dir);
  child = await startChild(dir);
  await child.callK('/v2/organizations/documents/add', {
    organizationId: ORG,
    createOrganization: true,
    documents: [{ documentId: 'doc', accessType: 'restricted' }],
  });
  await child.callK('/v2/users/add', {
    organizationId: ORG,
    documentId: 'doc',
    users: [
      { userId: 'ed', accessRole: 'editor' },
      { userId: 'vi', accessRole: 'viewer' },
    ],
  });
  await child.callK('/v2/crdt/add', { organizationId: ORG, documentId: 'doc', editorId: 'e', type: 'text', data: 'kept' });
  const token = async (userId: string) => dataOf<UserTokenAnswer>(await child.callK('/v2/auth/generate_token', { userId })).token;
  tokens = { editor: await token('ed'), viewer: await token('vi') };
}

beforeAll(start);
afterAll(async () => {
  await child?.stop();
  for (const dir of dataDirs) removeDataDir(dir);
});

const alive = () => child.cli.child.exitCode === null && child.cli.child.signalCode === null;

function pathFor(as: As): string {
  const key = encodeURIComponent(child.credentials.apiKey);
  if (as === 'key') return `/yjs/${ORG}/doc/e?apiKey=${key}&authToken=${encodeURIComponent(child.credentials.authToken)}`;
  const token = as === 'editor' ? tokens.editor : as === 'viewer' ? tokens.viewer : `${tokens.editor.slice(0, -4)}AAAA`;
  return `/yjs/${ORG}/doc/e?apiKey=${key}&token=${token}`;
}

interface Tally {
  frames: number;
  malformed: number;
  connections: number;
  refused: Map<number, number>;
  resets: { upgrade: number; auth: number; frame: number };
  closeCodes: Map<string, number>;
  /** Connections that failed on the client's side (refused: the server was down). */
  failures: Map<string, number>;
}

const count = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);
const turn = () => new Promise((resolve) => setImmediate(resolve));
const written = (socket: Socket, data: Uint8Array) =>
  new Promise<void>((resolve) => {
    if (socket.destroyed || !socket.writable) return resolve();
    socket.write(data, () => resolve());
  });

/** Resolves when the socket closes, or destroys it after `ms` (a connection the server left open counts as such). */
const closedWithin = (socket: Socket, ms: number) =>
  new Promise<boolean>((resolve) => {
    if (socket.destroyed) return resolve(true);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(false);
    }, ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });

async function run(plan: Plan, tally: Tally): Promise<void> {
  tally.connections++;
  const request = upgradeRequest(child.url, pathFor(plan.as));
  if (plan.reset.phase === 'upgrade') {
    const socket = await connectTcp(child.url);
    await written(socket, Buffer.from(request.slice(0, Math.max(1, Math.floor(request.length * plan.reset.fraction)))));
    socket.resetAndDestroy();
    tally.resets.upgrade++;
    return;
  }
  if (plan.reset.phase === 'auth') {
    const socket = await connectTcp(child.url);
    await written(socket, Buffer.from(request));
    for (let i = 0; i < plan.reset.turns; i++) await turn();
    socket.resetAndDestroy();
    tally.resets.auth++;
    return;
  }
  const conn = await rawUpgrade(child.url, pathFor(plan.as));
  if (conn.status !== 101) {
    count(tally.refused, conn.status);
    conn.socket.destroy();
    return;
  }
  for (const [i, f] of plan.frames.entries()) {
    if (conn.socket.destroyed) break;
    tally.frames++;
    if (!validKinds.has(f.kind)) tally.malformed++;
    if (plan.reset.phase === 'frame' && plan.reset.index === i) {
      await written(conn.socket, f.bytes.subarray(0, Math.max(1, Math.floor(f.bytes.length * plan.reset.fraction))));
      conn.socket.resetAndDestroy();
      tally.resets.frame++;
      count(tally.closeCodes, String(conn.closeCode() ?? 'reset by the client'));
      return;
    }
    await written(conn.socket, f.bytes);
  }
  // a clean close, then the end of the stream: whatever the server still waits for, it stops there
  await written(conn.socket, encodeFrame({ opcode: 0x8, payload: closePayload(1000) }));
  conn.socket.end();
  const closed = await closedWithin(conn.socket, 15_000);
  count(tally.closeCodes, closed ? String(conn.closeCode() ?? 'no close frame') : 'left open 15 s');
}

const validKinds = new Set(['valid sync step 1', 'y-protocol garbage', 'awareness garbage', 'ping', 'pong']);

describe('websocket frames', () => {
  it(`no frame, reset or bad credentials stops the server (at least ${MIN_FRAMES} frames over ${MIN_CONNECTIONS} connections)`, async () => {
    const tally: Tally = {
      frames: 0,
      malformed: 0,
      connections: 0,
      refused: new Map(),
      resets: { upgrade: 0, auth: 0, frame: 0 },
      closeCodes: new Map(),
      failures: new Map(),
    };
    let crashes = 0;
    const crashOutput: string[] = [];
    const started = Date.now();
    let synced = false;
    try {
      for (let round = 0; tally.connections < MIN_CONNECTIONS || tally.frames < MIN_FRAMES; round++) {
        const plans = fc.sample(planArbitrary, { numRuns: PARALLEL * 5, seed: SEED + round });
        for (let i = 0; i < plans.length; i += PARALLEL) {
          // a connection the server cannot take (it stopped: a crash) is counted; the check below restarts it
          await Promise.all(
            plans
              .slice(i, i + PARALLEL)
              .map((plan) => run(plan, tally).catch((error: NodeJS.ErrnoException) => count(tally.failures, error.code ?? String(error)))),
          );
        }
        if (
          !alive() ||
          (await call(child.url, '/v2/ping', {}).then(
            (r) => r.status,
            () => 0,
          )) !== 200
        ) {
          crashes++;
          crashOutput.push(child.cli.output().slice(-2_000));
          await child.kill();
          await start();
        }
      }
      expect((await call(child.url, '/v2/ping', {})).status).toBe(200);
      const client = connectYjs(
        child.url,
        { organizationId: ORG, documentId: 'doc', editorId: 'e' },
        { apiKey: child.credentials.apiKey, authToken: child.credentials.authToken },
      );
      try {
        await client.synced;
        client.doc.getText('content').insert(0, 'after the frames: ');
        await eventually(async () => {
          const got = await call(child.url, '/v2/crdt/get', { organizationId: ORG, documentId: 'doc', editorId: 'e' }, apiKeyHeaders(child.credentials));
          expect(dataOf<TextItem[]>(got)[0]!.data).toContain('after the frames: ');
        });
        synced = true;
      } finally {
        client.close();
      }
      // a frame is the client's fault: warnings, never an error of the server's
      const errorsLogged = child.cli
        .output()
        .split('\n')
        .filter((line) => / ERROR /.test(line));
      expect(errorsLogged).toEqual([]);
      expect(crashOutput).toEqual([]);
      expect(crashes).toBe(0);
      expect(tally.failures.size).toBe(0);
      expect(tally.frames).toBeGreaterThanOrEqual(MIN_FRAMES);
      expect(tally.connections).toBeGreaterThanOrEqual(MIN_CONNECTIONS);
    } finally {
      const codes = [...tally.closeCodes]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([code, n]) => `${code}×${n}`)
        .join(', ');
      const refused = [...tally.refused].map(([status, n]) => `${status}×${n}`).join(', ') || 'none';
      const warnings = child
        ? child.cli
            .output()
            .split('\n')
            .filter((line) => / WARN /.test(line)).length
        : 0;
      const failures = [...tally.failures].map(([code, n]) => `${code}×${n}`).join(', ') || 'none';
      console.log(
        `ws frames: ${tally.frames} frames (${tally.malformed} malformed) over ${tally.connections} connections in ${((Date.now() - started) / 1000).toFixed(0)} s (seed ${SEED}); ` +
          `TCP resets by the client: ${tally.resets.upgrade} during the upgrade, ${tally.resets.auth} during authorization, ${tally.resets.frame} mid-frame; ` +
          `upgrades refused: ${refused}; close codes seen: ${codes}; connections failed: ${failures}; warnings logged: ${warnings}; crashes: ${crashes}; ` +
          `afterwards /v2/ping answered and a y-websocket client ${synced ? 'synced' : 'did NOT sync'}`,
      );
    }
  });
});
