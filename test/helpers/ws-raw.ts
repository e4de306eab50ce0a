import { randomBytes } from 'node:crypto';
import net from 'node:net';

/**
 * A websocket client written byte by byte over node:net, for frames no library would send: bad lengths, reserved
 * opcodes and bits, unmasked frames, bad close codes, resets at any point. Server frames are parsed as they come.
 */

export interface FrameSpec {
  fin?: boolean;
  /** RSV1..3 as bits 4, 2, 1 (the header's 0x40, 0x20, 0x10). */
  rsv?: number;
  opcode: number;
  /** Clients must mask: false sends the frame unmasked. */
  mask?: boolean;
  payload?: Uint8Array;
  /** The length the header states, when it is to differ from the payload's (a lie, or a claim of more to come). */
  claimedLength?: bigint;
}

/** One frame's bytes as a client sends it (masked unless `mask: false`). */
export function encodeFrame(spec: FrameSpec): Buffer {
  const payload = Buffer.from(spec.payload ?? new Uint8Array());
  const length = spec.claimedLength ?? BigInt(payload.length);
  const masked = spec.mask !== false;
  const head: number[] = [(spec.fin === false ? 0 : 0x80) | ((spec.rsv ?? 0) << 4) | (spec.opcode & 0x0f)];
  const maskBit = masked ? 0x80 : 0;
  let extended = Buffer.alloc(0);
  if (length < 126n) head.push(maskBit | Number(length));
  else if (length < 65_536n) {
    head.push(maskBit | 126);
    extended = Buffer.alloc(2);
    extended.writeUInt16BE(Number(length));
  } else {
    head.push(maskBit | 127);
    extended = Buffer.alloc(8);
    extended.writeBigUInt64BE(BigInt.asUintN(64, length));
  }
  if (!masked) return Buffer.concat([Buffer.from(head), extended, payload]);
  const key = randomBytes(4);
  const body = Buffer.alloc(payload.length);
  for (let i = 0; i < payload.length; i++) body[i] = (payload[i] as number) ^ (key[i % 4] as number);
  return Buffer.concat([Buffer.from(head), extended, key, body]);
}

/** A close frame's payload: the code, then the reason's bytes. */
export function closePayload(code: number, reason: Uint8Array = new Uint8Array()): Buffer {
  const out = Buffer.alloc(2 + reason.length);
  out.writeUInt16BE(code & 0xffff);
  Buffer.from(reason).copy(out, 2);
  return out;
}

export interface ServerFrame {
  opcode: number;
  payload: Buffer;
}

export interface RawConnection {
  socket: net.Socket;
  /** The HTTP status of the upgrade's answer (101 when it opened). */
  status: number;
  frames: ServerFrame[];
  /** The code of the server's close frame, once one came; null without one. */
  closeCode(): number | null;
  /** Resolves when the TCP connection is closed (by either side). */
  ended: Promise<void>;
  /** Writes bytes unless the socket is gone; true when written. */
  write(bytes: Uint8Array): boolean;
}

/** The GET request of a websocket upgrade to `path` (with `extra` headers). */
export function upgradeRequest(baseUrl: string, path: string, extra: Record<string, string> = {}): string {
  const { host } = new URL(baseUrl);
  const headers: Record<string, string> = {
    Host: host,
    Upgrade: 'websocket',
    Connection: 'Upgrade',
    'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
    'Sec-WebSocket-Version': '13',
    ...extra,
  };
  return `GET ${path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
}

/** Opens a TCP connection to `baseUrl` (resolves once connected); errors on it (resets) are expected, not thrown. */
export function connectTcp(baseUrl: string): Promise<net.Socket> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.off('error', reject);
      socket.on('error', () => undefined);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/**
 * Upgrades a raw TCP connection to `path`; resolves once the server answered (101 or a refusal). Frames the server
 * sends afterwards are collected in `frames`.
 */
export async function rawUpgrade(baseUrl: string, path: string, extra: Record<string, string> = {}): Promise<RawConnection> {
  const socket = await connectTcp(baseUrl);
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let buffer = Buffer.alloc(0);
  let status = 0;
  const frames: ServerFrame[] = [];
  let answered: (value: number) => void = () => undefined;
  const statusKnown = new Promise<number>((resolve) => (answered = resolve));
  ended.then(() => answered(status));
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    if (status === 0) {
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      status = Number(/^HTTP\/1\.1 (\d{3})/.exec(buffer.subarray(0, end).toString('latin1'))?.[1] ?? 0);
      buffer = buffer.subarray(end + 4);
      answered(status);
    }
    for (;;) {
      const frame = parseServerFrame(buffer);
      if (!frame) break;
      frames.push(frame.frame);
      buffer = buffer.subarray(frame.size);
    }
  });
  socket.write(upgradeRequest(baseUrl, path, extra));
  const connection: RawConnection = {
    socket,
    status: await statusKnown,
    frames,
    closeCode() {
      const close = frames.find((f) => f.opcode === 0x8);
      return close && close.payload.length >= 2 ? close.payload.readUInt16BE(0) : null;
    },
    ended,
    write(bytes) {
      if (socket.destroyed || !socket.writable) return false;
      socket.write(bytes);
      return true;
    },
  };
  return connection;
}

/** A server frame (unmasked) at the start of `buffer`, or null when it is not complete yet. */
function parseServerFrame(buffer: Buffer): { frame: ServerFrame; size: number } | null {
  if (buffer.length < 2) return null;
  const opcode = (buffer[0] as number) & 0x0f;
  let length = (buffer[1] as number) & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buffer.length < 4) return null;
    length = buffer.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return null;
    length = Number(buffer.readBigUInt64BE(2));
    offset = 10;
  }
  if (buffer.length < offset + length) return null;
  return { frame: { opcode, payload: Buffer.from(buffer.subarray(offset, offset + length)) }, size: offset + length };
}
