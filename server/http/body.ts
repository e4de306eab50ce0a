import type { IncomingMessage } from 'node:http';
import type { H3Event } from 'h3';
import { tooLarge } from './dispatch.ts';
import { ApiError } from './errors.ts';

const abortedRequest = () => new ApiError('INVALID_ARGUMENT', 'Bad Request: the request was aborted before its body was complete.');

/** Reads the request body up to `limit` bytes, from the Node stream when there is one (the fast path). */
export async function readBody(event: H3Event, limit: number): Promise<string> {
  const nodeReq = (event.runtime?.node as { req?: IncomingMessage } | undefined)?.req;
  const chunks: Buffer[] = [];
  let size = 0;
  const take = (chunk: Uint8Array) => {
    size += chunk.byteLength;
    if (size > limit) throw tooLarge(limit);
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  };
  if (nodeReq) {
    // Plain events rather than `for await`: the async iterator costs a visible share of a small request.
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        try {
          take(chunk);
        } catch (error) {
          nodeReq.off('data', onData);
          nodeReq.pause();
          reject(error);
        }
      };
      nodeReq.on('data', onData);
      nodeReq.once('end', resolve);
      // the client went away mid-upload: a bad request, not a server failure
      nodeReq.once('error', () => reject(abortedRequest()));
      nodeReq.once('aborted', () => reject(abortedRequest()));
    });
  } else if (event.req.body) {
    const reader = event.req.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        take(value);
      }
    } catch (error) {
      await reader.cancel().catch(() => undefined);
      throw error;
    }
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
