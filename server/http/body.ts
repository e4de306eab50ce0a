import type { IncomingMessage } from 'node:http';
import type { H3Event } from 'h3';
import { tooLarge } from './dispatch.ts';
import { ApiError } from './errors.ts';

const abortedRequest = () => new ApiError('INVALID_ARGUMENT', 'Bad Request: the request was aborted before its body was complete.');

/** Reads the request body up to `limit` bytes, from the Node stream when there is one (the fast path). */
export async function readBody(event: H3Event, limit: number): Promise<string> {
  const nodeReq = (event.runtime?.node as { req?: IncomingMessage } | undefined)?.req;
  if (nodeReq) return readNodeBody(nodeReq, limit);
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
  return Buffer.concat(chunks, size).toString('utf8');
}

/**
 * Reads a node:http request body up to `limit` bytes. Plain stream events rather than `for await` (the async
 * iterator costs a visible share of a small request); a body of one chunk, the usual case, is decoded as is.
 */
export function readNodeBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
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
    req.once('end', () => resolve(more ? Buffer.concat(more, size).toString('utf8') : first ? first.toString('utf8') : ''));
    // the client went away mid-upload: a bad request, not a server failure
    req.once('error', () => reject(abortedRequest()));
    req.once('aborted', () => reject(abortedRequest()));
  });
}
