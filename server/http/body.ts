import type { IncomingMessage } from 'node:http';
import type { H3Event } from 'h3';
import { tooLarge } from './dispatch.ts';
import { ApiError } from '../errors.ts';

const abortedRequest = () => new ApiError('INVALID_ARGUMENT', 'Bad Request: the request was aborted before its body was complete.');

/** Reads the request body up to `limit` bytes, from the Node stream when there is one (the fast path). */
export async function readBody(event: H3Event, limit: number): Promise<string> {
  const nodeReq = (event.runtime?.node as { req?: IncomingMessage } | undefined)?.req;
  if (nodeReq) return readNodeBody(nodeReq, limit);
  return (await readBytes(event, limit)).toString('utf8');
}

/**
 * Reads the request body up to `limit` bytes as bytes, undecoded (an import's, decoded off the event loop); from the
 * Node stream when there is one, which a refusal only pauses (the web stream's cancel destroys the socket, and the
 * client lost the answer).
 */
export async function readBytes(event: H3Event, limit: number): Promise<Buffer> {
  const nodeReq = (event.runtime?.node as { req?: IncomingMessage } | undefined)?.req;
  if (nodeReq) {
    if (Number(nodeReq.headers['content-length']) > limit) throw tooLarge(limit);
    return readNodeBytes(nodeReq, limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  if (event.req.body) {
    const reader = event.req.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > limit) throw tooLarge(limit);
        chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
      }
    } catch (error) {
      await reader.cancel().catch(() => undefined);
      throw error;
    }
  }
  return Buffer.concat(chunks, size);
}

/**
 * Reads a node:http request body up to `limit` bytes. Plain stream events rather than `for await` (the async
 * iterator costs a visible share of a small request); a body of one chunk, the usual case, is decoded as is.
 */
export function readNodeBody(req: IncomingMessage, limit: number): Promise<string> {
  return readNode(req, limit, (bytes) => bytes.toString('utf8'));
}

/** readNodeBody's bytes, undecoded. */
export const readNodeBytes = (req: IncomingMessage, limit: number): Promise<Buffer> => readNode(req, limit, (bytes) => bytes);

function readNode<T>(req: IncomingMessage, limit: number, as: (bytes: Buffer) => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let first: Buffer | undefined;
    let more: Buffer[] | undefined;
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        reject(tooLarge(limit));
        return;
      }
      if (first === undefined) first = chunk;
      else (more ??= [first]).push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(as(more ? Buffer.concat(more, size) : (first ?? Buffer.alloc(0)))));
    // the client went away mid-upload: a bad request, not a server failure
    req.once('error', () => reject(abortedRequest()));
    req.once('aborted', () => reject(abortedRequest()));
  });
}

/** How long a refused body is read and dropped at most before the connection is closed anyway. */
const DROP_MS = 30_000;
/** How much of a refused body is read and dropped at most: four body limits, and at least 64 MiB. */
export const dropBytes = (maxBodyBytes: number) => Math.max(4 * maxBodyBytes, 64 * 1024 * 1024);

/**
 * Lingering close after a body refused as too large (RFC 9112 §9.6, nginx's `lingering_close`): the answer goes
 * out at once with `connection: close`, and the rest of the body is read and dropped until it ends, up to
 * `maxBytes` more or `DROP_MS`, before the connection is closed. Closing a socket that has unread input makes the
 * kernel reset the connection, and a client still uploading (node:http's `request`, `fetch`) then loses the
 * answer in flight and reports EPIPE or ECONNRESET instead of the error envelope. A client that stops sending
 * once it has the answer (curl) closes its side, which ends the lingering too. Call it on a paused request,
 * before the answer is written.
 */
export function dropRestOfBody(req: IncomingMessage, maxBytes: number): void {
  const socket = req.socket;
  if (req.complete || socket.destroyed) return;
  let dropped = 0;
  let answered = false;
  const close = () => {
    clearTimeout(timer);
    req.off('data', drop);
    if (socket.destroyed) return;
    // the answer and the FIN are written first (node's own destroySoon does the same)
    if (socket.writableFinished) socket.destroy();
    else socket.once('finish', () => socket.destroy());
  };
  const drop = (chunk: Buffer) => {
    dropped += chunk.byteLength;
    if (dropped > maxBytes) {
      clearTimeout(timer);
      req.off('data', drop);
      socket.destroy();
    }
  };
  // node:http closes a `connection: close` answer's socket with destroySoon once the answer is written; here it
  // only half-closes it until the body is over
  socket.destroySoon = () => {
    answered = true;
    if (socket.writable) socket.end();
    if (req.complete) close();
  };
  const timer = setTimeout(() => socket.destroy(), DROP_MS);
  timer.unref();
  req.on('data', drop);
  req.once('end', () => answered && close());
  req.once('error', close);
  req.resume();
}

/** dropRestOfBody for an h3 call: the answer it is about to write closes the connection once the body is over. */
export function refuseRestOfBody(event: H3Event, maxBodyBytes: number): void {
  event.res.headers.set('connection', 'close');
  const nodeReq = (event.runtime?.node as { req?: IncomingMessage } | undefined)?.req;
  if (nodeReq) dropRestOfBody(nodeReq, dropBytes(maxBodyBytes));
}
